/// The machine's events that come from the clock and from the server rather than the socket:
/// deadlines, shutdown, the body budget, and answers decided before or instead of the request.
extension HTTPConnectionMachine {
    /// Time passed: ends the connection if its deadline is over. A request that had started
    /// gets 408 (RFC 9110 §15.5.9); an idle or lingering connection closes quietly; a client
    /// that stopped reading is reset.
    mutating func tick(now: UInt64) -> Action {
        if let graceEnds, now >= graceEnds, phase != .closed {
            phase = .closed
            return .close(.shutdownGraceOver)
        }
        guard let deadline, now >= deadline else { return .none }
        switch phase {
        case .closed:
            return .none
        case .lingering:
            phase = .closed
            return .close(.lingerTimeout)
        case _ where hasPendingOutput:
            phase = .closed
            return .abort(.writeTimeout)
        case .body where bodyHead != nil && now < phaseStarted &+ rules.bodyRead:
            let reason =
                now >= bodyStarted &+ rules.bodyDeadline ? "body not received within the body deadline"
                : "body arriving below the minimum rate"
            return .reject(HTTPRejection(.requestTimeout, reason))
        case .head, .body:
            return .reject(HTTPRejection(.requestTimeout, "request not received in time"))
        case .waitingForBudget:
            return .reject(HTTPRejection(.serviceUnavailable, "too many request bodies at once"))
        case .idle:
            phase = .closed
            return .close(.idleTimeout)
        case .responding, .streaming, .closing:
            return .none  // no deadline of their own
        }
    }

    /// The server is shutting down: idle connections and partial heads close now, a stream
    /// ends, a response still sending closes once sent, requests in flight are answered with
    /// `Connection: close`, and nothing lasts past the grace period.
    /// The loop reads what is already in the socket first, so a request that arrived just
    /// before is still served.
    mutating func shutdown(now: UInt64) -> Action {
        guard !isShuttingDown else { return .none }
        isShuttingDown = true
        graceEnds = now &+ rules.shutdownGrace
        switch phase {
        case .streaming:
            exchange?.keepAlive = false
            return finishStream(now: now)
        case .idle, .head:
            if hasPendingOutput {
                phase = .closing
                return .send(nil)
            }
            phase = .closed
            return .close(.idleAtShutdown)
        case .waitingForBudget, .body, .responding, .closing, .lingering, .closed:
            return .none
        }
    }

    /// The loop reserved the memory a ``Action/reserveBody(_:)`` asked for: read the body
    /// (after `100 Continue` if the client waits for it, RFC 9110 §10.1.1).
    mutating func bodyGranted(now: UInt64) -> Action {
        guard phase == .waitingForBudget else { return .none }
        phase = .body
        phaseStarted = now
        bodyStarted = now
        bodyReceived = UInt64(unconsumedInputCount)
        if expectsContinue, unconsumedInputCount == 0 {
            if !hasPendingOutput { lastWrite = now }
            output.append(contentsOf: HTTPResponseEncoder.continueResponse)
            return .send(nil)
        }
        return advance(now: now)
    }

    /// The body goes to `file` as it arrives instead of memory; otherwise as ``bodyGranted(now:)``.
    mutating func spoolBody(into file: SpooledBody, now: UInt64) -> Action {
        guard phase == .waitingForBudget else { return .none }
        parser.spool = file
        return bodyGranted(now: now)
    }

    /// Answers a ``Action/reject(_:)``: a short text/plain response, then close. These requests
    /// were never valid HTTP, so the application does not see them.
    mutating func reject(_ rejection: HTTPRejection, dateField: [UInt8], now: UInt64) -> Action {
        let response = HTTPResponse.rejection(rejection)
        let bodyBytes = HTTPResponseEncoder.encode(
            response, context: .init(isHead: false, version: .http1_1, keepAlive: false),
            dateField: dateField, into: &output)
        let requestLine = parser.parsedRequestLine
        let record = AccessRecord(
            method: requestLine?.method.rawValue ?? "-",
            path: requestLine.map { HTTPRequest.split(target: $0.target).path } ?? "-",
            status: rejection.status.code, bodyBytes: bodyBytes, started: requestStarted, rejection: rejection)
        exchange = nil
        bodyHead = nil
        input = []
        inputStart = 0
        phase = .closing
        lastWrite = now
        return .send(record)
    }

    /// Answers the request whose body waits (``bodyHead``) without reading the body: the
    /// responder could tell from the head alone (a POST that cannot pass its CSRF check). The
    /// connection closes after the answer, lingering so that the unread body does not turn the
    /// close into a reset before the client has read the answer.
    mutating func answerBeforeBody(_ response: HTTPResponse, dateField: [UInt8], now: UInt64) -> Action {
        guard phase == .waitingForBudget, let head = bodyHead else { return .none }
        bodyHead = nil
        exchange = Exchange(
            method: head.method, path: HTTPRequest.split(target: head.target).path, version: head.version,
            keepAlive: false, started: requestStarted)
        phase = .responding
        var response = response
        response.stream = nil
        return responseReady(response, dateField: dateField, now: now)
    }
}
