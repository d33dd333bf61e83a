// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<sqlite3.h>)
#error "sqlite3.h not found: install Debian's libsqlite3-dev (deploy/dev.sh does: see the README)"
#else
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic, which Swift cannot call: whether closing the last connection
/// checkpoints the WAL into the database file (https://sqlite.org/c3ref/c_dbconfig_defensive.html).
static inline int csqlite_set_checkpoint_on_close(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}
#endif
