// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<sqlite3.h>)
#error "sqlite3.h not found: install Debian's libsqlite3-dev (deploy/dev.sh does: see the README)"
#else
#include <sqlite3.h>

/// renameat2(2), which glibc declares only under _GNU_SOURCE (<stdio.h> comes from Swift's
/// prebuilt Glibc module, so a macro here cannot change that): the same prototype. A backup
/// renames its copy into place with RENAME_NOREPLACE, so it never replaces a file made meanwhile.
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// renameat2's RENAME_NOREPLACE (<linux/fs.h>): fail with EEXIST rather than replace `to`.
static inline int csqlite_rename_without_replacing(const char *from, const char *to) {
    return renameat2(-100 /* AT_FDCWD */, from, -100 /* AT_FDCWD */, to, 1 /* RENAME_NOREPLACE */);
}

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic, which Swift cannot call: whether closing the last connection
/// checkpoints the WAL into the database file (https://sqlite.org/c3ref/c_dbconfig_defensive.html).
static inline int csqlite_set_checkpoint_on_close(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}
#endif
