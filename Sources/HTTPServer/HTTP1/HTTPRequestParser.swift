/// An incremental HTTP/1.1 request parser (RFC 9112): bytes in, events out, no I/O.
///
/// The caller keeps the unconsumed bytes and calls ``parse(_:)`` with all of them each time
/// more arrive; the parser says how many it consumed. It emits ``Event/head(_:)`` once the
/// header section is complete and valid (so the connection can answer `100 Continue` or
/// reject early), then ``Event/request(_:)`` when the body is complete, and starts over for
/// the next (pipelined) request. After ``Event/reject(_:)`` it stays failed.
///
/// Limits come from one ``HTTPLimits`` value: request line (414), header section size and
/// field count (431), body size per `Content-Type` (413, decided from `Content-Length` before
/// any body byte is read). A value type, so it is `Sendable` and compiles on its own for
/// fuzzing (`Fuzz/`).
package struct HTTPRequestParser: Sendable {
    /// What one call to ``parse(_:)`` found.
    package enum Event: Sendable {
        /// The bytes end inside a line or a body; call again with more.
        case needMoreData
        /// The header section is complete and valid; the body (if any) follows.
        case head(HTTPRequestHead)
        /// A whole request, body included; or, when its body is over the limit, the head alone
        /// with ``HTTPRequest/bodyRefusal`` set, after which the parser stays failed (413).
        case request(HTTPRequest)
        /// The request is invalid; answer `rejection.status` and close.
        case reject(HTTPRejection)
    }

    enum State: Sendable {
        case requestLine
        case fields
        case bodyStart
        case lengthBody
        case chunkSize
        case chunkData
        case chunkDataEnd
        case trailers
        case failed(HTTPRejection)
    }

    /// Longest chunk-size line (size plus ignored extensions), RFC 9112 §7.1.1.
    static let chunkLineLimit = 4096
    /// Empty lines tolerated before a request line (RFC 9112 §2.2).
    static let emptyLineLimit = 8

    /// The limits this parser enforces.
    package let limits: HTTPLimits
    var state: State = .requestLine
    var emptyLines = 0

    // The request being built; reset by `finish()`.
    var method = HTTPMethod.get
    var target = ""
    var version = HTTPVersion.http1_1
    var headers = HTTPHeaders()
    var headerBytes = 0
    var hostCount = 0
    var contentLength: Int?
    var transferEncoding: [UInt8]?
    var expectation: [UInt8]?
    var framing = HTTPBodyFraming.none
    var body: [UInt8] = []
    /// Where the body goes instead of ``body`` when the connection spools it to a file.
    var spool: SpooledBody?
    var bodyLimit = 0
    /// Bytes left in a `Content-Length` body or in the current chunk.
    var remaining = 0
    var trailerBytes = 0

    /// A parser at the start of a connection, enforcing `limits`.
    package init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// Whether the parser is between requests with nothing buffered in its state, i.e. the
    /// next byte would start a new request.
    package var isAtRequestBoundary: Bool {
        if case .requestLine = state { return emptyLines == 0 }
        return false
    }

    /// Whether no request line has started (empty lines before one may have been consumed).
    package var isBeforeRequestLine: Bool {
        if case .requestLine = state { return true }
        return false
    }

    /// The method and target of the current request once its request line has been accepted
    /// (also after a later rejection of that request), nil before; for logs.
    package var parsedRequestLine: (method: HTTPMethod, target: String)? {
        target.isEmpty ? nil : (method, target)
    }

    /// Whether the header section is complete and the parser is reading a body.
    package var isReadingBody: Bool {
        switch state {
        case .lengthBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers, .bodyStart: true
        case .requestLine, .fields, .failed: false
        }
    }

    /// Parses as much of `bytes` as forms the next event.
    /// - Returns: the event and how many leading bytes of `bytes` were used (the caller drops them).
    package mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var offset = 0
        while true {
            switch state {
            case .failed(let rejection):
                return (.reject(rejection), offset)
            case .bodyStart:
                switch framing {
                case .none, .length(0):
                    return (.request(finish()), offset)
                case .length(let length):
                    remaining = length
                    // Exactly what the framing says (the limit was checked): no doubling, and
                    // the size the loop's body budget reserved.
                    if spool == nil { body.reserveCapacity(length) }
                    state = .lengthBody
                case .chunked:
                    state = .chunkSize
                }
            case .lengthBody, .chunkData:
                let available = bytes.count - offset
                let take = min(available, remaining)
                if take > 0 {
                    let taken = UnsafeBufferPointer(rebasing: bytes[offset..<offset + take])
                    if let spool {
                        guard spool.append(UnsafeRawBufferPointer(taken)) else {
                            return (.reject(fail(HTTPRejection(.serviceUnavailable, "no room to keep the body"))), offset)
                        }
                    } else {
                        body.append(contentsOf: taken)
                    }
                    offset += take
                    remaining -= take
                }
                if remaining > 0 { return (.needMoreData, offset) }
                if case .lengthBody = state { return (.request(finish()), offset) }
                state = .chunkDataEnd
            case .requestLine, .fields, .chunkSize, .chunkDataEnd, .trailers:
                guard let newline = Self.firstLineFeed(in: bytes, from: offset) else {
                    if let rejection = partialLineRejection(length: bytes.count - offset) {
                        return (.reject(fail(rejection)), offset)
                    }
                    return (.needMoreData, offset)
                }
                guard newline > offset, bytes[newline - 1] == ASCII.cr else {
                    return (.reject(fail(.badRequest("line ends with a bare LF"))), offset)
                }
                let line = UnsafeBufferPointer(rebasing: bytes[offset..<newline - 1])
                offset = newline + 1
                if let event = handleLine(line) {
                    if case .reject(let rejection) = event { return (.reject(fail(rejection)), offset) }
                    return (event, offset)
                }
            }
        }
    }

    /// Enters the failed state, so later calls report the same rejection.
    mutating func fail(_ rejection: HTTPRejection) -> HTTPRejection {
        state = .failed(rejection)
        return rejection
    }

    /// A rejection when an unfinished line is already longer than its state allows.
    func partialLineRejection(length: Int) -> HTTPRejection? {
        switch state {
        case .requestLine:
            length > limits.requestLine + 1 ? HTTPRejection(.uriTooLong, "request line over \(limits.requestLine) bytes") : nil
        case .fields:
            headerBytes + length > limits.headerSection + 1
                ? HTTPRejection(.requestHeaderFieldsTooLarge, "header section over \(limits.headerSection) bytes") : nil
        case .chunkSize:
            length > Self.chunkLineLimit + 1 ? .badRequest("chunk size line too long") : nil
        case .chunkDataEnd:
            length > 1 ? .badRequest("chunk data longer than its size") : nil
        case .trailers:
            trailerBytes + length > limits.headerSection + 1
                ? HTTPRejection(.requestHeaderFieldsTooLarge, "trailer section over \(limits.headerSection) bytes") : nil
        case .bodyStart, .lengthBody, .chunkData, .failed:
            nil
        }
    }

    /// Dispatches one complete line (CRLF removed) to the current state's rule.
    mutating func handleLine(_ line: UnsafeBufferPointer<UInt8>) -> Event? {
        switch state {
        case .requestLine:
            if line.isEmpty {
                emptyLines += 1
                return emptyLines > Self.emptyLineLimit ? .reject(.badRequest("too many empty lines")) : nil
            }
            if let rejection = parseRequestLine(line) { return .reject(rejection) }
            state = .fields
            return nil
        case .fields:
            if line.isEmpty { return completeHead() }
            if let rejection = parseFieldLine(line) { return .reject(rejection) }
            return nil
        case .chunkSize:
            return parseChunkSize(line)
        case .chunkDataEnd:
            guard line.isEmpty else { return .reject(.badRequest("chunk data longer than its size")) }
            state = .chunkSize
            return nil
        case .trailers:
            if line.isEmpty { return .request(finish()) }
            return dropTrailer(line)
        case .bodyStart, .lengthBody, .chunkData, .failed:
            return nil
        }
    }

    /// The complete request, with the parser reset for the next one.
    mutating func finish() -> HTTPRequest {
        var request = HTTPRequest(method: method, target: target, version: version, headers: headers, body: body)
        request.spooledBody = spool
        resetMessage()
        return request
    }

    /// The request so far without its body, which is over ``bodyLimit``: handed on with
    /// ``HTTPRequest/bodyRefusal`` so that the responder's page says so; the parser stays failed.
    mutating func refuseBody() -> Event {
        var request = HTTPRequest(method: method, target: target, version: version, headers: headers)
        request.bodyRefusal = .tooLarge(limit: bodyLimit)
        _ = fail(HTTPRejection(.contentTooLarge, "body over \(bodyLimit) bytes"))
        body = []
        spool = nil
        return .request(request)
    }

    /// Bytes of the current body received so far, in memory or spooled.
    var bodyCount: Int { spool?.count ?? body.count }

    mutating func resetMessage() {
        state = .requestLine
        emptyLines = 0
        target = ""
        headers = HTTPHeaders()
        headerBytes = 0
        hostCount = 0
        contentLength = nil
        transferEncoding = nil
        expectation = nil
        framing = .none
        body = []
        spool = nil
        remaining = 0
        trailerBytes = 0
    }

    /// Index of the first LF at or after `start`.
    static func firstLineFeed(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == ASCII.lf { return index }
            index += 1
        }
        return nil
    }
}
