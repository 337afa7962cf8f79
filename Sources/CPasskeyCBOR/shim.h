// libcbor 0.8. PasskeyCBOR uses only the streaming decoder (cbor_stream_decode with a
// struct cbor_callbacks), which imports into Swift as is: no shims are needed.
#include <cbor.h>
