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

    /// Hands a request to the responder in a `Task`; the answer comes back through the inbox.
    func dispatch(_ request: HTTPRequest, on connection: Connection) {
        connection.inFlight = Connection.InFlight(
            method: request.method, path: request.path, version: request.version,
            keepAlive: !request.wantsClose && !isShuttingDown, started: now)
        if request.method == .options, request.target == "*" {
            // RFC 9110 §9.3.7: `OPTIONS *` asks about the server, not a resource.
            complete(connection, with: HTTPResponse(status: .ok, headers: ["Allow": Self.serverWideAllow]))
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
        logger.info(
            "\(request.method) \(request.path) \(response.status.code) \(bodyBytes)B "
                + "\(Self.milliseconds(from: request.started, to: Platform.monotonicNanoseconds()))ms")
        flush(connection)
    }

    /// Answers a request the parser refused with a short text/plain response and closes
    /// (these requests were never valid HTTP, so no application page).
    func reject(_ connection: Connection, _ rejection: HTTPRejection) {
        connection.inFlight = nil
        let response = HTTPResponse.text(
            "\(rejection.status.code) \(rejection.status.reason): \(rejection.reason)\n", status: rejection.status)
        HTTPResponseEncoder.encode(
            response, context: .init(isHead: false, version: .http1_1, keepAlive: false),
            dateField: currentDateField(), into: &connection.output)
        connection.closeAfterWrite = true
        connection.input = []
        connection.inputStart = 0
        connection.lastActivity = now
        logger.info("rejected: \(rejection)")
        flush(connection)
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

    /// Runs a streamed body's producer in a task (where the responder would run); its pieces
    /// and its end come back through the inbox.
    func startStream(_ stream: HTTPBodyStream, on connection: Connection, keepAlive: Bool) {
        guard let request = connection.inFlight else { return }
        connection.inFlight?.keepAlive = keepAlive
        let channel = StreamChannel()
        let writer = HTTPBodyWriter(connection: connection.id, inbox: inbox, channel: channel)
        let inbox = self.inbox
        let id = connection.id
        let produce = stream.produce
        let task: Task<Void, Never>
        switch configuration.responderExecution {
        case .cooperativePool:
            task = Task {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
            }
        case .eventLoop:
            task = Task(executorPreference: inbox) {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
            }
        }
        connection.stream = (channel, task, request.version == .http1_1, 0)
    }

    /// One piece of a streamed body, framed as a chunk (HTTP/1.1) or raw (HTTP/1.0).
    func sendStreamChunk(_ bytes: [UInt8], to id: UInt64) {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id,
            let stream = connection.stream
        else { return }
        if stream.isChunked {
            HTTPResponseEncoder.appendChunk(bytes, to: &connection.output)
        } else {
            connection.output.append(contentsOf: bytes)
        }
        connection.stream?.bytes += bytes.count
        if connection.pendingOutput > HTTPBodyWriter.bufferLimit {
            close(connection, reason: "streaming client does not read")
            return
        }
        flush(connection)
    }

    /// The producer of a streamed body has returned.
    func endStream(of id: UInt64) {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id,
            connection.stream != nil
        else { return }
        finishStream(connection, keepAlive: connection.inFlight?.keepAlive ?? false)
        if connection.socket.isOpen, connection.inFlight == nil, !connection.closeAfterWrite {
            process(connection)
            readAndProcess(connection)
        }
    }

    /// Ends a streamed body (last chunk), logs the request, and closes if it cannot continue.
    func finishStream(_ connection: Connection, keepAlive: Bool) {
        guard let stream = connection.stream, let request = connection.inFlight else { return }
        stream.channel.close()
        stream.task.cancel()
        connection.stream = nil
        connection.inFlight = nil
        if stream.isChunked { connection.output.append(contentsOf: HTTPResponseEncoder.lastChunk) }
        if !keepAlive || !stream.isChunked || isShuttingDown { connection.closeAfterWrite = true }
        connection.lastActivity = now
        logger.info(
            "\(request.method) \(request.path) stream \(stream.bytes)B "
                + "\(Self.milliseconds(from: request.started, to: Platform.monotonicNanoseconds()))ms")
        flush(connection)
    }

    static func milliseconds(from start: UInt64, to end: UInt64) -> String {
        let micros = (end &- start) / 1000
        let fraction = micros % 1000
        return "\(micros / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }
}
