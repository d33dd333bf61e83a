extension HTTPRequestParser {
    /// `request-line = method SP request-target SP HTTP-version` (RFC 9112 §3), single spaces.
    mutating func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) -> HTTPRejection? {
        if line.count > limits.requestLine {
            return HTTPRejection(.uriTooLong, "request line over \(limits.requestLine) bytes")
        }
        guard let firstSpace = line.firstIndex(of: ASCII.space) else { return .badRequest("malformed request line") }
        let rest = line.index(after: firstSpace)
        guard let secondSpace = line[rest...].firstIndex(of: ASCII.space) else {
            return .badRequest("malformed request line")
        }
        let methodBytes = UnsafeBufferPointer(rebasing: line[..<firstSpace])
        let targetBytes = UnsafeBufferPointer(rebasing: line[rest..<secondSpace])
        let versionBytes = UnsafeBufferPointer(rebasing: line[(secondSpace + 1)...])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isTokenByte) else {
            return .badRequest("malformed method")
        }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy(ASCII.isTargetByte) else {
            return .badRequest("malformed request target")
        }
        switch Self.parseVersion(versionBytes) {
        case .some(.some(let parsed)): version = parsed
        case .some(.none): return HTTPRejection(.httpVersionNotSupported, "HTTP version not supported")
        case .none: return .badRequest("malformed HTTP version")
        }
        method = Self.makeMethod(methodBytes)
        guard HTTPMethod.known.contains(method) else { return HTTPRejection(.notImplemented, "method not implemented") }
        if method == .connect { return HTTPRejection(.notImplemented, "CONNECT is not supported") }
        let first = targetBytes[0]
        if first == UInt8(ascii: "*") {
            guard targetBytes.count == 1, method == .options else { return .badRequest("asterisk-form outside OPTIONS") }
        } else if first != UInt8(ascii: "/") {
            guard Self.isAbsoluteForm(targetBytes) else { return .badRequest("malformed request target") }
        }
        target = String(decoding: targetBytes, as: UTF8.self)
        return nil
    }

    /// nil: malformed; `.some(nil)`: well-formed but not 1.0/1.1 (505).
    static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPVersion?? {
        guard bytes.count == 8, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"),
            bytes[2] == UInt8(ascii: "T"), bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/"),
            bytes[6] == UInt8(ascii: "."),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[5]),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[7])
        else { return nil }
        switch (bytes[5], bytes[7]) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .some(.http1_1)
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .some(.http1_0)
        default: return .some(nil)
        }
    }

    /// Reuses the static methods' strings for the common tokens.
    static func makeMethod(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPMethod {
        switch bytes.count {
        case 3 where bytes[0] == UInt8(ascii: "G") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T"):
            .get
        case 4
        where bytes[0] == UInt8(ascii: "P") && bytes[1] == UInt8(ascii: "O") && bytes[2] == UInt8(ascii: "S")
            && bytes[3] == UInt8(ascii: "T"):
            .post
        case 4
        where bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "A")
            && bytes[3] == UInt8(ascii: "D"):
            .head
        default:
            HTTPMethod(rawValue: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// `http://` or `https://` followed by an authority (RFC 9112 §3.2.2).
    static func isAbsoluteForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for scheme: StaticString in ["http://", "https://"] {
            let length = scheme.utf8CodeUnitCount
            if bytes.count > length, ASCII.equalsIgnoringCase(UnsafeBufferPointer(rebasing: bytes[..<length]), scheme) {
                return true
            }
        }
        return false
    }

    /// Fields a request's header list has room for from its first field on (more grow it).
    static let fieldsReserved = 16

    /// `field-line = field-name ":" OWS field-value OWS` (RFC 9112 §5): no whitespace before
    /// the colon (§5.1), no obs-fold (§5.2), no NUL/CR/LF or other controls in the value.
    mutating func parseFieldLine(_ line: UnsafeBufferPointer<UInt8>) -> HTTPRejection? {
        headerBytes += line.count + 2
        if headerBytes > limits.headerSection {
            return HTTPRejection(.requestHeaderFieldsTooLarge, "header section over \(limits.headerSection) bytes")
        }
        if headers.count >= limits.headerCount {
            return HTTPRejection(.requestHeaderFieldsTooLarge, "more than \(limits.headerCount) header fields")
        }
        if ASCII.isOptionalWhitespace(line[0]) { return .badRequest("obsolete line folding") }
        guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else { return .badRequest("field line without a colon") }
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        guard name.allSatisfy(ASCII.isTokenByte) else { return .badRequest("malformed field name") }
        var start = colon + 1
        var end = line.count
        while start < end, ASCII.isOptionalWhitespace(line[start]) { start += 1 }
        while end > start, ASCII.isOptionalWhitespace(line[end - 1]) { end -= 1 }
        let value = UnsafeBufferPointer(rebasing: line[start..<end])
        guard value.allSatisfy(ASCII.isFieldValueByte) else { return .badRequest("invalid byte in a field value") }
        if let rejection = noteSpecialField(name: name, value: value) { return rejection }
        // Room for a browser's fields at the first one: grown from empty, the array was
        // allocated again at the second, third, fifth and ninth field (counted: one malloc fewer
        // for a request of two fields, four fewer for fourteen).
        if headers.count == 0 { headers.reserveCapacity(adding: Self.fieldsReserved) }
        headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        return nil
    }

    /// Records the fields that frame the message or need checking (`Host`, `Content-Length`,
    /// `Transfer-Encoding`, `Expect`).
    mutating func noteSpecialField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HTTPRejection? {
        switch name.count {
        case 4 where ASCII.equalsIgnoringCase(name, "host"):
            hostCount += 1
            // RFC 9110 §4.2.1 and §7.2: an http URI always has a host, so an empty Host (the form
            // for targets without an authority) names nothing this server could be.
            guard !value.isEmpty else { return .badRequest("empty Host") }
            guard value.allSatisfy(ASCII.isHostByte) else { return .badRequest("malformed Host") }
        case 14 where ASCII.equalsIgnoringCase(name, "content-length"):
            // RFC 9112 §6.3 ¶5: a list of identical values may be read as one; anything else is
            // an unrecoverable framing error.
            for element in value.split(separator: ASCII.comma, omittingEmptySubsequences: false) {
                var digits = element[...]
                while let first = digits.first, ASCII.isOptionalWhitespace(first) { digits.removeFirst() }
                while let last = digits.last, ASCII.isOptionalWhitespace(last) { digits.removeLast() }
                guard !digits.isEmpty, digits.count <= 18,
                    digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                else {
                    return .badRequest("malformed Content-Length")
                }
                let length = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                if let known = contentLength, known != length { return .badRequest("conflicting Content-Length") }
                contentLength = length
            }
        case 17 where ASCII.equalsIgnoringCase(name, "transfer-encoding"):
            if transferEncoding != nil { transferEncoding?.append(ASCII.comma) } else { transferEncoding = [] }
            transferEncoding?.append(contentsOf: value)
        case 6 where ASCII.equalsIgnoringCase(name, "expect"):
            expectation = Array(value)
        default:
            break
        }
        return nil
    }

    /// Checks the whole header section (RFC 9112 §3.2 Host, §6 framing, RFC 9110 §10.1.1
    /// Expect) and emits the head.
    mutating func completeHead() -> Event {
        if hostCount > 1 { return .reject(.badRequest("repeated Host")) }
        if hostCount == 0 && version == .http1_1 { return .reject(.badRequest("missing Host")) }
        if let coding = transferEncoding {
            if contentLength != nil { return .reject(.badRequest("both Content-Length and Transfer-Encoding")) }
            if version == .http1_0 { return .reject(.badRequest("Transfer-Encoding in an HTTP/1.0 request")) }
            // RFC 9112 §6.1: chunked must be the final (here: the only) coding; §6.3 ¶4: a coding
            // the server does not understand is answered 501.
            let isOnlyChunked = coding.withUnsafeBufferPointer { bytes in
                var start = 0
                var end = bytes.count
                while start < end, ASCII.isOptionalWhitespace(bytes[start]) { start += 1 }
                while end > start, ASCII.isOptionalWhitespace(bytes[end - 1]) { end -= 1 }
                return ASCII.equalsIgnoringCase(UnsafeBufferPointer(rebasing: bytes[start..<end]), "chunked")
            }
            guard isOnlyChunked else { return .reject(HTTPRejection(.notImplemented, "transfer coding not implemented")) }
            framing = .chunked
        } else if let length = contentLength {
            framing = .length(length)
        }
        bodyLimit = limits.bodyLimit(contentType: headers["Content-Type"])
        if case .length(let length) = framing, length > bodyLimit {
            return refuseBody()
        }
        var expectsContinue = false
        if let expectation, version == .http1_1 {
            let isContinue = expectation.withUnsafeBufferPointer { ASCII.equalsIgnoringCase($0, "100-continue") }
            guard isContinue else { return .reject(HTTPRejection(.expectationFailed, "unsupported expectation")) }
            expectsContinue = true
        }
        state = .bodyStart
        return .head(
            HTTPRequestHead(
                method: method, target: target, version: version, headers: headers, framing: framing,
                expectsContinue: expectsContinue))
    }
}
