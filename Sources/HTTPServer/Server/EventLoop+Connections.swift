import Basics
import Logging

/// The loop's side of a connection: reading, writing and running tasks, as the connection's
/// ``HTTPConnectionMachine`` says. Every protocol decision is the machine's.
extension EventLoop {
    /// Reads while the socket has data and the connection wants it, feeding the machine.
    func readAndProcess(_ connection: Connection) {
        while connection.isReadable, connection.socket.isOpen, connection.machine.wantsInput {
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
                perform(connection.machine.endOfInput(now: now), on: connection)
            case .done(let count):
                if count < readBuffer.count, !connection.sawHangUp { connection.isReadable = false }
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[..<count])
                perform(connection.machine.received(bytes, now: now), on: connection)
            }
        }
    }

    /// Carries out what the machine asked, and what it asks next, until it waits for an event.
    func perform(_ first: HTTPConnectionMachine.Action, on connection: Connection) {
        var action = first
        while connection.socket.isOpen {
            switch action {
            case .none:
                return
            case .dispatch(let request):
                action = dispatch(request, on: connection)
            case .reserveBody(let bytes):
                action = bodyFollows(bytes, on: connection)
            case .send(let record):
                if let record { log(record, on: connection) }
                action = flush(connection)
            case .startStream(let stream):
                startStream(stream, on: connection)
                action = flush(connection)
            case .finishStream(let record):
                endTasks(of: connection)
                log(record, on: connection)
                action = flush(connection)
            case .reject(let rejection):
                connection.prepared = nil
                releaseBody(of: connection)
                responder.rejected(rejection)
                action = connection.machine.reject(rejection, dateField: currentDateField(), now: now)
            case .cancelResponder:
                connection.responderTask?.cancel()
                return
            case .halfClose:
                Platform.shutdownWrite(connection.socket.rawValue)
                readAndProcess(connection)
                return
            case .close(let reason):
                close(connection, reason: reason.rawValue)
                return
            case .abort(let reason):
                Platform.abortOnClose(connection.socket.rawValue)
                close(connection, reason: reason.rawValue)
                return
            }
        }
    }

    /// Answers a request on this thread when the responder can
    /// (``HTTPResponder/reply(to:in:)`` is `.now`), else runs the responder's work in a task
    /// the connection owns, whose answer comes back through the inbox.
    func dispatch(_ request: HTTPRequest, on connection: Connection) -> HTTPConnectionMachine.Action {
        var request = request
        let prepared = connection.prepared
        connection.prepared = nil
        resolveClient(request.headers, on: connection)
        request.client = connection.client
        if request.method == .options, request.target == "*" {
            // RFC 9110 §9.3.7: `OPTIONS *` asks about the server, not a resource.
            return answer(connection, with: HTTPResponse(status: .ok, headers: ["Allow": Self.serverWideAllow]))
        }
        let work: Step<HTTPResponse>
        switch responder.reply(to: request, prepared: prepared) {
        case .now(let response): return answer(connection, with: response)
        case let later: work = later
        }
        let inbox = self.inbox
        let tasks = self.tasks
        let id = connection.id
        tasks.begin()
        switch configuration.responderExecution {
        case .cooperativePool:
            connection.responderTask = Task {
                let response = await work.response()
                inbox.post(.response(connection: id, response))
                tasks.end()
            }
        case .eventLoop:
            connection.responderTask = Task(executorPreference: inbox) {
                let response = await work.response()
                inbox.post(.response(connection: id, response))
                tasks.end()
            }
        }
        return .none
    }

    /// Sets whom a trusted proxy forwarded the current request for (`X-Forwarded-For`), or
    /// nil when the peer asks for itself.
    func resolveClient(_ headers: HTTPHeaders, on connection: Connection) {
        guard !configuration.trustedProxies.isEmpty, let peer = connection.peer else { return }
        let forwardedFor = headers.values(for: "X-Forwarded-For")
        connection.forwardedClient =
            forwardedFor.isEmpty ? nil : configuration.trustedProxies.client(peer: peer, forwardedFor: forwardedFor)
    }

    /// The methods `OPTIONS *` announces.
    static let serverWideAllow = "GET, HEAD, POST, OPTIONS"

    /// A response from a responder task, if its connection still exists.
    func deliver(_ response: HTTPResponse, to id: UInt64) {
        guard let connection = connection(id) else { return }
        connection.responderTask = nil
        perform(answer(connection, with: response), on: connection)
        // The answer may have freed input: read what edge-triggered epoll will not announce again.
        if connection.socket.isOpen { readAndProcess(connection) }
    }

    /// The response to the request in flight is ready: its body's memory is back in the budget.
    /// A streamed one takes an event-stream place for its client, or, when none is free, is
    /// answered 503 with `Retry-After` instead.
    func answer(_ connection: Connection, with response: HTTPResponse) -> HTTPConnectionMachine.Action {
        releaseBody(of: connection)
        var response = response
        if response.stream != nil, connection.machine.exchange?.method != .head {
            if let refusal = streamSlots.take(for: connection.client) {
                logger.warning(
                    "event stream refused to \(connection.client?.description ?? "-"): \(refusal == .total ? "the server's" : "the client's") limit of open streams")
                response = HTTPResponse.text(
                    "503 Service Unavailable: too many event streams open\n", status: .serviceUnavailable)
                response.headers.add(name: "Retry-After", value: "10")
            } else {
                connection.streamSlot = .some(connection.client)
            }
        }
        return connection.machine.responseReady(response, dateField: currentDateField(), now: now)
    }

    /// Cancels the connection's tasks and gives back its event-stream place, if it holds one.
    func endTasks(of connection: Connection) {
        connection.cancelTasks()
        if case .some(let client) = connection.streamSlot {
            streamSlots.release(for: client)
            connection.streamSlot = nil
        }
    }

    /// The connection with this identity, if it is still open on this loop.
    func connection(_ id: UInt64) -> Connection? {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id else { return nil }
        return connection
    }

    /// One access line at info: `192.0.2.7 GET /path 200 2414B 0.123ms` (the client: the
    /// peer, or whom a trusted proxy forwarded for; method, path without query, status, or
    /// `stream` when nil, body bytes, time since the request started), then `rejected: <reason>`
    /// for a rejection. Nothing is formatted when info is off. The line joins the others of this
    /// turn of the loop, written at its end (``writeAccessLines()``): before the loop waits again.
    func log(_ record: HTTPConnectionMachine.AccessRecord, on connection: Connection) {
        guard logger.isEnabled(.info) else { return }
        let micros = Int((clock.now() &- record.started) / 1000)
        accessLines.startLine()
        if record.rejection == nil, let forwarded = connection.forwardedClient {
            accessLines.append(forwarded.description)
        } else {
            accessLines.append(connection.peerText)
        }
        accessLines.append(literal: " ")
        accessLines.append(record.method)
        accessLines.append(literal: " ")
        accessLines.append(record.path)
        accessLines.append(literal: " ")
        if let status = record.status { accessLines.append(status) } else { accessLines.append(literal: "stream") }
        accessLines.append(literal: " ")
        accessLines.append(record.bodyBytes)
        accessLines.append(literal: "B ")
        accessLines.append(micros / 1000)
        accessLines.append(literal: ".")
        accessLines.append(micros % 1000, width: 3)
        accessLines.append(literal: "ms")
        if let rejection = record.rejection {
            accessLines.append(literal: " rejected: ")
            accessLines.append(rejection.reason)
        }
        accessLines.endLine()
        if accessLines.bytes.count >= Self.accessLinesFlushSize { writeAccessLines() }
    }

    /// Bytes of access lines past which they are written at once, not at the end of the turn.
    static let accessLinesFlushSize = 32 * 1024

    /// Writes this turn's access lines, in one call to the log's sink.
    func writeAccessLines() {
        logger.write(&accessLines)
    }

    /// Sends pending output until done or the socket's buffer is full (then `EPOLLOUT` brings
    /// the loop back); returns what the machine wants next.
    func flush(_ connection: Connection) -> HTTPConnectionMachine.Action {
        while connection.machine.hasPendingOutput {
            let outcome: Platform.IOOutcome
            do {
                let socket = connection.socket.rawValue
                outcome = try connection.machine.withPendingOutput { head, body in
                    try Platform.send(socket, head, body)
                }
            } catch {
                close(connection, reason: "\(error)")
                return .none
            }
            guard case .done(let count) = outcome else { break }
            connection.machine.sent(count, now: now)
        }
        return connection.machine.flushed(now: now)
    }
}
