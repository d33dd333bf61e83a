private import CTLS

/// OpenSSL's per-thread error queue (ERR_get_error(3)) as text for a ``MailDeliveryError`` or a
/// set-up error. A delivery has a thread of its own, so the queue holds only its errors.
enum OpenSSLErrorQueue {
    /// Forgets earlier errors, before a call whose failure is then read with ``take()``.
    static func clear() {
        ERR_clear_error()
    }

    /// The oldest queued error as OpenSSL's text (`error:0A000086:SSL routines::certificate
    /// verify failed`), or nil; the queue is emptied.
    static func take() -> String? {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            guard let start = buffer.baseAddress else { return "OpenSSL error \(code)" }
            buffer.initialize(repeating: 0)
            ERR_error_string_n(code, start, buffer.count)
            return String(cString: start)
        }
    }
}
