import Basics

/// Serialises a response onto a connection's ``OutputQueue``: the head into its buffer, the
/// body behind it (copied when short, else sent from its own array), so the connection sends
/// both with one call (RFC 9112 §4 status line, §6 framing).
///
/// The encoder owns the framing fields: it writes `Date`, `Content-Length` and `Connection`
/// itself and drops any the responder set (except a `Content-Length` on a HEAD or 304
/// response without body, which states the size a GET would have had, RFC 9110 §8.6).
/// Fields containing CR, LF or NUL are dropped (no response splitting).
enum HTTPResponseEncoder {
    /// What the encoder needs to know about the request being answered.
    struct Context {
        var isHead: Bool
        var version: HTTPVersion
        var keepAlive: Bool
        /// The body follows as a stream: chunked for HTTP/1.1, until close for HTTP/1.0.
        var isStreamed = false
    }

    /// Queues the encoded response on `queue` (a long body from its own array); returns the
    /// number of body bytes queued.
    @discardableResult
    static func encode(_ response: HTTPResponse, context: Context, dateField: [UInt8], into queue: inout OutputQueue) -> Int {
        let sendsBody = queue.write { encodeHead(response, context: context, dateField: dateField, into: &$0) }
        guard sendsBody else { return 0 }
        queue.append(body: response.body)
        return response.body.count
    }

    /// Appends the response's head to `buffer`; whether its body is to be sent after it.
    private static func encodeHead(
        _ response: HTTPResponse, context: Context, dateField: [UInt8], into buffer: inout [UInt8]
    ) -> Bool {
        let code = response.status.code
        // Room for all of it at once (a page's head, its security headers alone, is longer than
        // a fixed guess), and for a body short enough to be copied behind it.
        var headBytes = 160 + dateField.count + (response.headers.written?.bytes.count ?? 0)
        // The fields are read in place: a `for` over them copied each one, twice a response.
        response.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices { headBytes += fields[index].name.utf8.count + fields[index].value.utf8.count + 4 }
        }
        let copiedBody = response.body.count < OutputQueue.separateBodyBytes ? response.body.count : 0
        buffer.reserveCapacity(buffer.count + headBytes + copiedBody)
        buffer.append(literal: "HTTP/1.1 ")
        DecimalDigits.append(code, to: &buffer)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: response.status.reason.utf8)
        buffer.append(literal: "\r\n")
        if let written = response.headers.written { written.bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) } }
        var explicitLength: String?
        response.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                if fields[index].name.caseInsensitiveEquals("Content-Length") {
                    explicitLength = fields[index].value
                    continue
                }
                if isFramingField(fields[index].name) { continue }
                appendField(fields[index].name, fields[index].value, to: &buffer)
            }
        }
        buffer.append(contentsOf: dateField)
        let mayHaveBody = code >= 200 && code != 204 && code != 304
        if context.isStreamed && mayHaveBody {
            if context.version == .http1_1 { buffer.append(literal: "Transfer-Encoding: chunked\r\n") }
        } else if mayHaveBody || code == 304 {
            if response.body.isEmpty, context.isHead || code == 304, let explicitLength,
                explicitLength.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            {
                buffer.append(literal: "Content-Length: ")
                buffer.append(contentsOf: explicitLength.utf8)
                buffer.append(literal: "\r\n")
            } else if mayHaveBody {
                buffer.append(literal: "Content-Length: ")
                DecimalDigits.append(response.body.count, to: &buffer)
                buffer.append(literal: "\r\n")
            }
        }
        if !context.keepAlive {
            buffer.append(literal: "Connection: close\r\n")
        } else if context.version == .http1_0 {
            buffer.append(literal: "Connection: keep-alive\r\n")
        }
        buffer.append(literal: "\r\n")
        return mayHaveBody && !context.isHead && !context.isStreamed
    }

    /// The interim `100 Continue` (RFC 9110 §15.2.1).
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends one chunk (RFC 9112 §7.1) holding `bytes` (not empty).
    static func appendChunk(_ bytes: [UInt8], to buffer: inout [UInt8]) {
        buffer.append(contentsOf: String(bytes.count, radix: 16).utf8)
        buffer.append(literal: "\r\n")
        buffer.append(contentsOf: bytes)
        buffer.append(literal: "\r\n")
    }

    /// The last chunk with an empty trailer section.
    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// A field the encoder writes itself, dropping the responder's (`Content-Length` is also
    /// read, for a HEAD or 304 response).
    static func isFramingField(_ name: String) -> Bool {
        name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Date")
            || name.caseInsensitiveEquals("Connection") || name.caseInsensitiveEquals("Transfer-Encoding")
    }

    /// Appends `name: value` and CRLF, unless either holds CR, LF or NUL; each is read once, in
    /// place, from its UTF-8 storage (a string without contiguous UTF-8, bridged from elsewhere,
    /// is copied into it first: `withUTF8` on copies retained every field's strings).
    static func appendField(_ name: String, _ value: String, to buffer: inout [UInt8]) {
        name.withUTF8InPlace { name in value.withUTF8InPlace { value in appendField(name, value, to: &buffer) } }
    }

    private static func appendField(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]
    ) {
        guard isSafe(name), isSafe(value) else { return }
        buffer.append(contentsOf: name)
        buffer.append(literal: ": ")
        buffer.append(contentsOf: value)
        buffer.append(literal: "\r\n")
    }

    private static func isSafe(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        !text.contains { $0 == ASCII.cr || $0 == ASCII.lf || $0 == 0 }
    }
}

extension HTTPHeaders {
    /// These fields, with every one written once as a response head writes it (unsafe ones
    /// dropped, as there): for fields sent on every response, made once and copied. Unchanged
    /// when one is a field the encoder writes itself.
    package func writtenOnce() -> HTTPHeaders {
        let all = Array(self)
        guard !all.contains(where: { HTTPResponseEncoder.isFramingField($0.name) }) else { return self }
        var bytes: [UInt8] = []
        for field in all { HTTPResponseEncoder.appendField(field.name, field.value, to: &bytes) }
        var headers = HTTPHeaders()
        headers.written = WrittenFields(fields: all, bytes: bytes)
        return headers
    }
}
