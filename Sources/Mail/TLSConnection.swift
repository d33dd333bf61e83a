private import CTLS

/// One TLS session over an ``SMTPSocket`` after STARTTLS (RFC 3207): OpenSSL's `SSL` with two
/// memory BIOs, so OpenSSL only turns bytes into records and back while every byte on the wire
/// goes through ``SMTPSocket`` — `poll(2)` against each step's ``Deadline`` and `MSG_NOSIGNAL`
/// (a socket BIO would `write(2)` and could raise `SIGPIPE`).
///
/// The peer must present a certificate chain to a trusted CA (``TLSClientContext``) for the
/// relay's host: its name (`SSL_set1_host`, also sent as SNI) or its IP address
/// (`X509_VERIFY_PARAM_set1_ip_asc`).
///
/// Owns the `SSL`, which owns both BIOs (`SSL_set_bio`), and frees it exactly once, in
/// `deinit` (`SSL_free` frees the BIOs and drops the `SSL_CTX` reference `SSL_new` took).
/// Not Sendable: one delivery's thread uses it from start to end.
final class TLSConnection {
    private let ssl: OpaquePointer
    /// Records from the relay, for OpenSSL to read; owned by `ssl`.
    private let incoming: OpaquePointer
    /// Records for the relay, written by OpenSSL; owned by `ssl`.
    private let outgoing: OpaquePointer
    private let socket: SMTPSocket
    private let host: String
    /// Set once OpenSSL reported a fatal error: `SSL_shutdown` must not be called after one
    /// (SSL_shutdown(3)).
    private var hasFailed = false

    /// A session for `host` that has not shaken hands yet (``handshake(deadline:)``).
    init(context: TLSClientContext, host: String, socket: SMTPSocket) throws(MailDeliveryError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else { throw Self.setUpFailure("SSL_new") }
        guard let incoming = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw Self.setUpFailure("BIO_new")
        }
        guard let outgoing = BIO_new(BIO_s_mem()) else {
            BIO_free(incoming)
            SSL_free(ssl)
            throw Self.setUpFailure("BIO_new")
        }
        SSL_set_bio(ssl, incoming, outgoing)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.socket = socket
        self.host = host
        // Fully initialised: a failure below frees `ssl` through `deinit`.
        SSL_set_connect_state(ssl)
        if SocketCalls.isIPAddress(host) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw Self.setUpFailure("set IP") }
        } else {
            guard SSL_set1_host(ssl, host) == 1 else { throw Self.setUpFailure("SSL_set1_host") }
            guard ctls_set_server_name(ssl, host) == 1 else { throw Self.setUpFailure("SNI") }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Shakes hands and checks the relay's certificate.
    ///
    /// - Throws: ``MailDeliveryError/temporary(_:)`` saying why: an untrusted or mismatched
    ///   certificate, no common protocol version, a timeout, a closed connection.
    func handshake(deadline: Deadline) throws(MailDeliveryError) {
        _ = try perform("during the TLS handshake", deadline: deadline) { SSL_connect(ssl) }
    }

    /// Encrypts and sends all of `bytes`.
    func send(_ bytes: [UInt8], deadline: Deadline, step: String) throws(MailDeliveryError) {
        var start = 0
        while start < bytes.count {
            let end = min(start + Self.chunkSize, bytes.count)
            let ssl = self.ssl
            let written = bytes[start..<end].withUnsafeBytes { chunk in
                Result { () throws(MailDeliveryError) in
                    try perform(step, deadline: deadline) { SSL_write(ssl, chunk.baseAddress, Int32(chunk.count)) }
                }
            }
            _ = try written.get()
            start = end
        }
    }

    /// The next decrypted bytes, at least one, waiting until `deadline`.
    func receive(deadline: Deadline, step: String) throws(MailDeliveryError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        let ssl = self.ssl
        let read = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(MailDeliveryError) in
                try perform(step, deadline: deadline) { SSL_read(ssl, raw.baseAddress, Int32(raw.count)) }
            }
        }
        return Array(buffer[..<Int(try read.get())])
    }

    /// Sends TLS's close_notify, without waiting for the relay's (RFC 8446 §6.1 allows that when
    /// no more data is read); best effort, as the connection is closed next anyway.
    func close(deadline: Deadline) {
        guard !hasFailed else { return }
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        try? flushOutgoing(deadline: deadline, step: "closing TLS")
        OpenSSLErrorQueue.clear()
    }

    /// Runs `operation` (an OpenSSL call on `ssl` that returns > 0 on success) until it
    /// succeeds, moving records between the memory BIOs and the socket as it asks for them.
    private func perform(_ step: String, deadline: Deadline, _ operation: () -> Int32) throws(MailDeliveryError) -> Int32 {
        while true {
            OpenSSLErrorQueue.clear()
            let result = operation()
            let error = result > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, result)
            // Whatever OpenSSL wrote goes out first: records, or the alert that tells the relay
            // why we give up (whose own failure to send then matters less than the reason).
            let flushed = Result { () throws(MailDeliveryError) in try flushOutgoing(deadline: deadline, step: step) }
            switch error {
            case SSL_ERROR_NONE:
                try flushed.get()
                return result
            case SSL_ERROR_WANT_READ:
                try flushed.get()
                let records = try socket.receive(limit: Self.chunkSize, deadline: deadline, step: step)
                _ = records.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
            case SSL_ERROR_WANT_WRITE:
                try flushed.get()  // a memory BIO never fills, so this is only a retry
            case SSL_ERROR_ZERO_RETURN:
                throw .temporary("\(socket.peer) ended the TLS session \(step)")
            default:
                hasFailed = true
                throw .temporary("TLS with \(socket.peer) failed \(step): \(failureReason())")
            }
        }
    }

    /// Sends every record OpenSSL has written.
    private func flushOutgoing(deadline: Deadline, step: String) throws(MailDeliveryError) {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        while BIO_ctrl_pending(outgoing) > 0 {
            let count = buffer.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            try socket.send(buffer[..<Int(count)], deadline: deadline, step: step)
        }
    }

    /// Why the session failed: the certificate check's verdict when it failed (the most useful
    /// line for whoever reads the log), else OpenSSL's error.
    private func failureReason() -> String {
        let verdict = SSL_get_verify_result(ssl)
        if verdict != X509_V_OK {
            return "the certificate of \(host) was not accepted: " + String(cString: X509_verify_cert_error_string(verdict))
        }
        return OpenSSLErrorQueue.take() ?? "the connection broke off"
    }

    private static func setUpFailure(_ call: String) -> MailDeliveryError {
        .temporary("TLS set-up failed (\(call)): " + (OpenSSLErrorQueue.take() ?? "out of memory"))
    }

    /// The most plaintext per `SSL_write` and per `SSL_read`: one TLS record's worth (16 KiB).
    private static let chunkSize = 16_384
}

@available(*, unavailable, message: "A TLS session belongs to one delivery's thread.")
extension TLSConnection: Sendable {}
