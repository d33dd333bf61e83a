private import CTLS

/// OpenSSL's client settings (`SSL_CTX`), made once per ``SMTPTransport`` and shared by all its
/// deliveries: TLS 1.2 or newer, certificates checked (`SSL_VERIFY_PEER`) against the system's
/// trust store (`SSL_CTX_set_default_verify_paths`, Debian's `/etc/ssl/certs`) plus, when given,
/// an extra CA file (a private relay's own CA).
///
/// Owns its `SSL_CTX` and frees it exactly once, in `deinit`; every ``TLSConnection`` made from
/// it holds its own reference too (`SSL_new` counts one, `SSL_free` drops it), so a connection
/// can never outlive the settings it uses. Nothing changes the context after `init`, which is
/// why deliveries on several threads may share it (see `Unsafe.swift`).
final class TLSClientContext {
    /// The `SSL_CTX`; never nil, never changed after `init`.
    let pointer: OpaquePointer

    /// Settings that trust the system's CAs and those in `extraCAFile` (PEM).
    ///
    /// - Throws: ``SMTPTransportSetupError/caFile(path:reason:)`` when `extraCAFile` cannot be
    ///   read or holds no certificate; ``SMTPTransportSetupError/tls(_:)`` when OpenSSL fails.
    init(extraCAFile: String?) throws(SMTPTransportSetupError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tls("SSL_CTX_new: " + (OpenSSLErrorQueue.take() ?? "out of memory"))
        }
        // From here, the context is freed on every failure (below), or by `deinit`.
        do throws(SMTPTransportSetupError) {
            try Self.configure(context, extraCAFile: extraCAFile)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        pointer = context
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    private static func configure(_ context: OpaquePointer, extraCAFile: String?) throws(SMTPTransportSetupError) {
        guard ctls_require_tls12_or_newer(context) == 1 else {
            throw .tls("cannot require TLS 1.2: " + (OpenSSLErrorQueue.take() ?? "unknown error"))
        }
        guard SSL_CTX_set_default_verify_paths(context) == 1 else {
            throw .tls("cannot load the system's trusted certificates: " + (OpenSSLErrorQueue.take() ?? "unknown error"))
        }
        if let extraCAFile {
            guard SSL_CTX_load_verify_locations(context, extraCAFile, nil) == 1 else {
                throw .caFile(path: extraCAFile, reason: OpenSSLErrorQueue.take() ?? "no certificate in it")
            }
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    }
}
