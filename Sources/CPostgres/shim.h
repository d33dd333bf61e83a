// libpq, PostgreSQL's C client (https://www.postgresql.org/docs/15/libpq.html). Debian's
// libpq-dev puts the header in /usr/include/postgresql. Only Store's Persistence/Postgres files
// import this module (privately).
// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<postgresql/libpq-fe.h>)
#error "postgresql/libpq-fe.h not found: install Debian's libpq-dev (deploy/dev.sh does: see the README)"
#else
#include <postgresql/libpq-fe.h>

/// The five-character SQLSTATE of a failed result, or NULL; PG_DIAG_SQLSTATE is a character
/// macro, which Swift does not import (https://www.postgresql.org/docs/15/libpq-exec.html).
static inline const char *cpostgres_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/// The primary human-readable message of a failed result (PG_DIAG_MESSAGE_PRIMARY), or NULL:
/// one line, without the DETAIL that can quote a row's values.
static inline const char *cpostgres_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
#endif
