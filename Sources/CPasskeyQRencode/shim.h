#ifndef CPASSKEY_QRENCODE_SHIM_H
#define CPASSKEY_QRENCODE_SHIM_H

#include <qrencode.h>

#endif /* CPASSKEY_QRENCODE_SHIM_H */
