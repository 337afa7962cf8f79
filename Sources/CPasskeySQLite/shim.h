#ifndef CPASSKEY_SQLITE_SHIM_H
#define CPASSKEY_SQLITE_SHIM_H

#include <stddef.h>
#include <sqlite3.h>

/* Swift cannot import SQLITE_TRANSIENT (a cast of -1 to a function pointer), so binding helpers
 * that need it live here. SQLITE_TRANSIENT makes SQLite copy the bytes before returning, so the
 * Swift buffer only has to live for the duration of the call. */

/* Binds a BLOB. A zero-length Swift buffer may have a NULL base address, and
 * sqlite3_bind_blob(…, NULL, 0, …) would bind SQL NULL instead of an empty blob: bind a
 * zero-length blob explicitly in that case. */
static inline int passkey_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int count) {
    if (count == 0 || bytes == NULL) {
        return sqlite3_bind_zeroblob(stmt, index, 0);
    }
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}

/* Binds TEXT of exactly `count` UTF-8 bytes (embedded NULs are kept). A NULL pointer binds the
 * empty string, never SQL NULL. */
static inline int passkey_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int count) {
    if (count == 0 || text == NULL) {
        return sqlite3_bind_text(stmt, index, "", 0, SQLITE_STATIC);
    }
    return sqlite3_bind_text(stmt, index, text, count, SQLITE_TRANSIENT);
}

#endif /* CPASSKEY_SQLITE_SHIM_H */
