import Logging

extension EventLoop {
    /// Reads while the socket has data and the connection can take it, parsing as it goes.
    func readAndProcess(_ connection: Connection) {
        while connection.isReadable, connection.socket.isOpen {
            let isLingering = connection.lingerStarted != nil
            if !isLingering, connection.unconsumedInput >= Self.inputHighWater { return }
            let outcome: Platform.IOOutcome
            do {
                outcome = try Platform.read(connection.socket.rawValue, into: readBuffer)
            } catch {
                close(connection, reason: "\(error)")
                return
            }
            switch outcome {
            case .wouldBlock:
                connection.isReadable = false
            case .done(0):
                connection.isReadable = false
                peerClosed(connection)
            case .done(let count):
                if count < readBuffer.count, !connection.sawHangUp { connection.isReadable = false }
                if isLingering { continue }
                connection.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
                if connection.headStarted == nil, connection.inFlight == nil, !connection.parser.isReadingBody {
                    connection.headStarted = now
                    connection.requestStarted = now
                }
                if connection.parser.isReadingBody { connection.lastBodyProgress = now }
                process(connection)
            }
        }
    }

    /// The client sent FIN: finish what it asked for, then close.
    func peerClosed(_ connection: Connection) {
        connection.peerClosed = true
        if connection.stream != nil {
            // Nobody will read the rest of a stream; the producer is cancelled by close.
            close(connection, reason: "client closed during a stream")
            return
        }
        if connection.lingerStarted != nil || (connection.inFlight == nil && !connection.hasPendingOutput) {
            // Complete pipelined requests still buffered are served before closing.
            process(connection)
            if connection.inFlight == nil && !connection.hasPendingOutput { close(connection, reason: "client closed") }
        }
    }

    /// Parses buffered input into requests while nothing is in flight and the output is not
    /// backed up (back-pressure: a client that does not read stops being parsed and read).
    func process(_ connection: Connection) {
        while connection.socket.isOpen, connection.inFlight == nil, !connection.closeAfterWrite,
            connection.lingerStarted == nil, connection.pendingOutput < Self.outputHighWater
        {
            let start = connection.inputStart
            let (event, consumed) = connection.input.withUnsafeBufferPointer { buffer in
                connection.parser.parse(UnsafeBufferPointer(rebasing: buffer[start...]))
            }
            connection.inputStart += consumed
            switch event {
            case .needMoreData:
                connection.compactInput()
                if connection.peerClosed, connection.inFlight == nil {
                    if connection.hasPendingOutput {
                        connection.closeAfterWrite = true
                    } else {
                        close(connection, reason: "client closed")
                    }
                }
                return
            case .head(let head):
                connection.headStarted = nil
                connection.lastBodyProgress = now
                if head.expectsContinue, head.hasBody, connection.unconsumedInput == 0 {
                    connection.output.append(contentsOf: HTTPResponseEncoder.continueResponse)
                    flush(connection)
                }
            case .request(let request):
                connection.headStarted = nil
                connection.compactInput()
                dispatch(request, on: connection)
            case .reject(let rejection):
                reject(connection, rejection)
                return
            }
        }
    }

    /// Answers a request on this thread when the responder can
    /// (``HTTPResponder/respondImmediately(to:)``), else hands it to the responder in a `Task`
    /// whose answer comes back through the inbox.
    func dispatch(_ request: HTTPRequest, on connection: Connection) {
        connection.inFlight = Connection.InFlight(
            method: request.method, path: request.path, version: request.version,
            keepAlive: !request.wantsClose && !isShuttingDown, started: now)
        if request.method == .options, request.target == "*" {
            // RFC 9110 §9.3.7: `OPTIONS *` asks about the server, not a resource.
            complete(connection, with: HTTPResponse(status: .ok, headers: ["Allow": Self.serverWideAllow]))
            return
        }
        if let response = responder.respondImmediately(to: request) {
            complete(connection, with: response)
            return
        }
        let inbox = self.inbox
        let responder = self.responder
        let id = connection.id
        switch configuration.responderExecution {
        case .cooperativePool:
            Task {
                let response = await responder.respond(to: request)
                inbox.post(.response(connection: id, response))
            }
        case .eventLoop:
            Task(executorPreference: inbox) {
                let response = await responder.respond(to: request)
                inbox.post(.response(connection: id, response))
            }
        }
    }

    /// The methods `OPTIONS *` announces.
    static let serverWideAllow = "GET, HEAD, POST, OPTIONS"

    /// A response from a responder task, if its connection still exists.
    func deliver(_ response: HTTPResponse, to id: UInt64) {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id,
            connection.inFlight != nil
        else { return }
        complete(connection, with: response)
        if connection.socket.isOpen, connection.inFlight == nil, !connection.closeAfterWrite {
            process(connection)
            readAndProcess(connection)
        }
    }

    /// Encodes and sends the response to the request in flight, then logs it; a streamed
    /// response keeps the request in flight until its producer ends (``endStream(of:)``).
    func complete(_ connection: Connection, with response: HTTPResponse) {
        guard let request = connection.inFlight else { return }
        let isHead = request.method == .head
        let isStreamed = response.stream != nil
        let closes =
            !request.keepAlive || isShuttingDown
            || (isStreamed && request.version == .http1_0)
            || response.headers.values(for: "Connection").contains { $0.lowercased().contains("close") }
        let bodyBytes = HTTPResponseEncoder.encode(
            response,
            context: .init(isHead: isHead, version: request.version, keepAlive: !closes, isStreamed: isStreamed),
            dateField: currentDateField(), into: &connection.output)
        if let stream = response.stream, !isHead, (200..<600).contains(response.status.code),
            response.status.code != 204, response.status.code != 304
        {
            startStream(stream, on: connection, keepAlive: !closes)
            flush(connection)
            return
        }
        connection.inFlight = nil
        if closes { connection.closeAfterWrite = true }
        connection.lastActivity = now
        connection.requestStarted = now
        logAccess(
            method: request.method.rawValue, path: request.path, status: response.status.code, bytes: bodyBytes,
            started: request.started)
        flush(connection)
    }

    /// Answers a request the parser refused with a short text/plain response and closes
    /// (these requests were never valid HTTP, so no application page). The log line has the
    /// access format (`-` for a method and path never parsed), then `rejected:` and the reason.
    func reject(_ connection: Connection, _ rejection: HTTPRejection) {
        connection.inFlight = nil
        let response = HTTPResponse.text(
            "\(rejection.status.code) \(rejection.status.reason): \(rejection.reason)\n", status: rejection.status)
        let bodyBytes = HTTPResponseEncoder.encode(
            response, context: .init(isHead: false, version: .http1_1, keepAlive: false),
            dateField: currentDateField(), into: &connection.output)
        connection.closeAfterWrite = true
        connection.input = []
        connection.inputStart = 0
        connection.lastActivity = now
        responder.rejected(rejection)
        let requestLine = connection.parser.parsedRequestLine
        logAccess(
            method: requestLine?.method.rawValue ?? "-",
            path: requestLine.map { HTTPRequest.split(target: $0.target).path } ?? "-",
            status: rejection.status.code, bytes: bodyBytes, started: connection.requestStarted,
            note: "rejected: \(rejection.reason)")
        flush(connection)
    }

    /// One access line at info: `GET /path 200 2414B 0.123ms` (method, path without query,
    /// status, or `stream` when nil, body bytes, time since `started`), then `note` if any.
    /// Nothing is formatted when info is off.
    func logAccess(
        method: String, path: String, status: Int?, bytes: Int, started: UInt64,
        note: @autoclosure () -> String? = nil
    ) {
        guard logger.isEnabled(.info) else { return }
        let duration = Self.milliseconds(from: started, to: Platform.monotonicNanoseconds())
        let statusText = status.map { "\($0)" } ?? "stream"
        logger.info("\(method) \(path) \(statusText) \(bytes)B \(duration)ms\(note().map { " " + $0 } ?? "")")
    }

    /// Sends pending output until done or the socket's buffer is full (then waits for
    /// `EPOLLOUT`); after the last byte of a closing connection, starts the lingering close.
    func flush(_ connection: Connection) {
        while connection.hasPendingOutput {
            let start = connection.outputStart
            let outcome: Platform.IOOutcome
            do {
                outcome = try connection.output.withUnsafeBytes { buffer throws(HTTPServerError) in
                    try Platform.send(connection.socket.rawValue, UnsafeRawBufferPointer(rebasing: buffer[start...]))
                }
            } catch {
                close(connection, reason: "\(error)")
                return
            }
            switch outcome {
            case .wouldBlock:
                return
            case .done(let count):
                connection.outputStart += count
                connection.lastActivity = now
            }
        }
        connection.compactOutput()
        if connection.closeAfterWrite, connection.inFlight == nil {
            if connection.peerClosed {
                close(connection, reason: "response sent, client closed")
            } else if connection.lingerStarted == nil {
                connection.lingerStarted = now
                Platform.shutdownWrite(connection.socket.rawValue)
                connection.input = []
                connection.inputStart = 0
                readAndProcess(connection)
            }
        }
    }

    static func milliseconds(from start: UInt64, to end: UInt64) -> String {
        let micros = (end &- start) / 1000
        let fraction = micros % 1000
        return "\(micros / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }
}
