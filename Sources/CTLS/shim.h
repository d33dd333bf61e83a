// OpenSSL 3's libssl and libcrypto (https://www.openssl.org/docs/man3.0/), for STARTTLS to the
// mail relay. Only Sources/Mail's TLS files import this module (privately).
// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<openssl/ssl.h>)
#error "openssl/ssl.h not found: install Debian's libssl-dev (deploy/dev.sh does: see the README)"
#else
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

/// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl, which Swift does not import:
/// refuse anything older than TLS 1.2 (SSL_CTX_set_min_proto_version(3)).
static inline int ctls_require_tls12_or_newer(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// SSL_set_tlsext_host_name is a macro over SSL_ctrl: the name sent as SNI
/// (SSL_set_tlsext_host_name(3)), so a relay with several certificates picks the right one.
static inline int ctls_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
#endif
