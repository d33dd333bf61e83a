/// Size limits on what a client may send (RFC 9110 §15.5: 413, 414, 431).
package struct HTTPLimits: Sendable, Equatable {
    /// Longest request line in bytes, CRLF excluded (else 414).
    package var requestLine: Int = 8 * 1024
    /// Largest header section in bytes (else 431).
    package var headerSection: Int = 16 * 1024
    /// Most header fields (else 431).
    package var headerCount: Int = 100
    /// Largest body of any request that is not `multipart/form-data` (else 413).
    package var formBody: Int = 1024 * 1024
    /// Largest `multipart/form-data` body (else 413).
    package var uploadBody: Int = 21 * 1024 * 1024

    /// The defaults of SPEC.md: 8 KiB line, 16 KiB / 100 fields, 1 MiB form, 21 MiB upload (a
    /// 20 MiB photo and the rest of its form).
    package init() {}

    /// The body limit for a request with this `Content-Type`.
    package func bodyLimit(contentType: String?) -> Int {
        guard let contentType else { return formBody }
        return contentType.lowercased().hasPrefix("multipart/form-data") ? uploadBody : formBody
    }
}
