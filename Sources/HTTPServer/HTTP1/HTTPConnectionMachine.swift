/// The whole HTTP/1.1 protocol state of one connection (RFC 9112 §9), as a value: events in,
/// actions out. It does no I/O and reads no clock; every event that depends on time carries
/// `now` (monotonic nanoseconds). The event loop reads and writes the socket, runs the
/// responder, and performs the ``Action`` each event returns.
///
/// It owns the bytes between the socket and the application: the received input (parsed by its
/// ``HTTPRequestParser``) and the encoded output. It decides request framing and pipelining
/// order (one request in flight; the next is parsed only once the previous answer is queued),
/// back-pressure (no parsing while ``Rules/outputHighWater`` bytes wait to be sent, no reading
/// while ``Rules/inputHighWater`` wait to be parsed), every timeout (``deadline``), the
/// lingering close, the client's half-close, and graceful shutdown.
///
/// ```
///            bytes            head             body complete
///   idle ──────────▶ head ─────────▶ body ──────────────────▶ responding ──▶ streaming
///    ▲                 │               │                          │              │
///    └──── response sent, keep-alive ─────────────────────────────┴──────────────┘
///   any ── reject / Connection: close / shutdown ──▶ closing ── output sent ──▶ lingering ──▶ closed
/// ```
struct HTTPConnectionMachine {
    /// Where the connection is in its protocol. Pending output is orthogonal: a keep-alive
    /// response may still be sending while the next request is read.
    enum Phase: Equatable, Sendable {
        /// Between requests, nothing of the next one received.
        case idle
        /// Bytes of a request's header section have arrived (or wait, pipelined, in the input).
        case head
        /// The header section was accepted and its body needs memory the loop's body budget
        /// does not have yet: nothing more is parsed (reading stops at the input high-water
        /// mark) until ``HTTPConnectionMachine/bodyGranted(now:)``, or 503 at the body-read deadline.
        case waitingForBudget
        /// The header section was accepted; the body is being read.
        case body
        /// A whole request was handed to the responder; waiting for its answer.
        case responding
        /// A streamed body is being produced and sent.
        case streaming
        /// No more requests: once the output is sent, the write side is shut.
        case closing
        /// The write side is shut; input is read and dropped until the client's FIN or the
        /// linger deadline, so unread request bytes cannot turn the close into a reset.
        case lingering
        /// Done; the loop closes the socket.
        case closed
    }

    /// What the loop must do after an event. Events that need several steps return the first;
    /// the loop's next event (``flushed(now:)`` after a send, ``responseReady(_:dateField:now:)``
    /// after a dispatch) returns the next.
    enum Action: Sendable {
        /// Nothing until the next event.
        case none
        /// Answer this request (on the loop if the responder can, else in an owned task), then
        /// report the answer with ``responseReady(_:dateField:now:)``.
        case dispatch(HTTPRequest)
        /// Reserve this many bytes of the body budget for the body that follows, then report
        /// ``bodyGranted(now:)`` (at once, or when another body releases enough).
        case reserveBody(Int)
        /// Send ``pendingOutput`` (report progress with ``sent(_:now:)``, then ``flushed(now:)``);
        /// log the record if there is one.
        case send(AccessRecord?)
        /// Send the head in ``pendingOutput``, then run the body's producer in an owned task.
        case startStream(HTTPBodyStream)
        /// The streamed body has ended: stop its producer, log, then send as for ``send(_:)``.
        case finishStream(AccessRecord)
        /// The request is refused (by the parser, or it timed out): answer it with
        /// ``reject(_:dateField:now:)``, which closes after the answer.
        case reject(HTTPRejection)
        /// The client has gone: cancel the responder's task. Its answer is still taken.
        case cancelResponder
        /// Shut the write side (`shutdown(SHUT_WR)`) and keep reading, to drop.
        case halfClose
        /// Close the socket (FIN), cancelling any task the connection owns.
        case close(CloseReason)
        /// Close with a reset (`SO_LINGER` 0): drop what the kernel still holds for the client.
        case abort(CloseReason)
    }

    /// Why a connection ends; for the debug log and tests.
    enum CloseReason: String, Sendable {
        case clientClosed = "client closed"
        case clientClosedDuringStream = "client closed during a stream"
        case responseSentClientClosed = "response sent, client closed"
        case lingerEnded = "client closed after the response"
        case idleTimeout = "idle timeout"
        case lingerTimeout = "linger timeout"
        case writeTimeout = "write timeout"
        case idleAtShutdown = "idle at shutdown"
        case shutdownGraceOver = "shutdown grace period over"
        case streamReaderTooSlow = "streaming client does not read"
    }

    /// One line of the access log: what was asked, what was answered, how long it took.
    struct AccessRecord: Sendable {
        /// `-` when no request line was parsed.
        var method: String
        var path: String
        /// nil for a streamed body.
        var status: Int?
        var bodyBytes: Int
        /// Monotonic nanoseconds at which the request started.
        var started: UInt64
        /// Set when the parser refused the request.
        var rejection: HTTPRejection?
    }

    /// The limits and timeouts every connection of a server shares (one instance per server).
    final class Rules: Sendable {
        let limits: HTTPLimits
        let header: UInt64
        let bodyRead: UInt64
        /// Longest a body may take from when its reading starts to its last byte.
        let bodyDeadline: UInt64
        /// Bytes per second a body must average once ``bodyRateGrace`` is over; 0: no minimum.
        let bodyMinimumRate: UInt64
        /// How long a body may start slowly before ``bodyMinimumRate`` applies.
        let bodyRateGrace: UInt64
        let idle: UInt64
        let write: UInt64
        let shutdownGrace: UInt64
        /// How long a closing connection waits for the client's FIN before it is dropped.
        let linger: UInt64
        /// The same during a graceful shutdown.
        let shutdownLinger: UInt64
        /// Stop parsing pipelined requests while this many response bytes wait to be sent.
        let outputHighWater: Int
        /// Stop reading while this many received bytes wait to be parsed.
        let inputHighWater: Int
        /// A streaming client with more unsent bytes than this is dropped.
        let streamBufferLimit: Int

        init(
            limits: HTTPLimits, timeouts: HTTPTimeouts, streamBufferLimit: Int,
            linger: UInt64 = 2_000_000_000, shutdownLinger: UInt64 = 50_000_000,
            outputHighWater: Int = 256 * 1024, inputHighWater: Int = 64 * 1024
        ) {
            self.limits = limits
            header = timeouts.header.nanoseconds
            bodyRead = timeouts.bodyRead.nanoseconds
            bodyDeadline = timeouts.bodyDeadline.nanoseconds
            bodyMinimumRate = UInt64(max(0, timeouts.bodyMinimumRate))
            bodyRateGrace = timeouts.bodyRateGrace.nanoseconds
            idle = timeouts.idle.nanoseconds
            write = timeouts.write.nanoseconds
            shutdownGrace = timeouts.shutdownGrace.nanoseconds
            self.linger = linger
            self.shutdownLinger = shutdownLinger
            self.outputHighWater = outputHighWater
            self.inputHighWater = inputHighWater
            self.streamBufferLimit = streamBufferLimit
        }

        /// The shortest timeout, which sets how often the loop checks deadlines.
        var shortestTimeout: UInt64 { min(header, bodyRead, idle, write) }
    }

    /// The request being answered: what the encoder and the access log need.
    struct Exchange: Sendable {
        var method: HTTPMethod
        var path: String
        var version: HTTPVersion
        var keepAlive: Bool
        var started: UInt64
        var streamedBytes = 0
        var isChunked = false
    }

    let rules: Rules
    private(set) var phase = Phase.idle
    private(set) var parser: HTTPRequestParser
    private(set) var exchange: Exchange?
    /// The head of the request whose body is next: set when the header section of a request with
    /// a body is accepted (``Action/reserveBody(_:)``), cleared when the request is complete. The
    /// loop reads it to decide whether the body is worth reading at all.
    private(set) var bodyHead: HTTPRequestHead?

    /// Received bytes not yet consumed by the parser start at `inputStart`.
    private(set) var input: [UInt8] = []
    private var inputStart = 0
    /// Encoded bytes not yet sent start at `outputStart`.
    private(set) var output: [UInt8] = []
    private var outputStart = 0

    /// The client has shut down its sending side: answer what was received, then close.
    private(set) var peerClosed = false
    private(set) var isShuttingDown = false
    /// When the current phase's clock started: idle since, head's first byte, last body bytes,
    /// linger start.
    private var phaseStarted: UInt64
    /// Last time the socket accepted bytes, or a response was queued.
    private var lastWrite: UInt64
    /// When the current request started, for the log: its first byte, or the end of the
    /// previous response for pipelined bytes.
    private var requestStarted: UInt64
    private var graceEnds: UInt64?
    /// The current request's client waits for `100 Continue` before sending its body.
    private var expectsContinue = false
    /// When the current body began to be read, and the bytes received since: the minimum rate
    /// and the overall deadline of a body are measured from these.
    private var bodyStarted: UInt64 = 0
    private var bodyReceived: UInt64 = 0

    /// A connection accepted at `now`.
    init(rules: Rules, now: UInt64) {
        self.rules = rules
        parser = HTTPRequestParser(limits: rules.limits)
        phaseStarted = now
        lastWrite = now
        requestStarted = now
    }

    // MARK: Questions the loop asks

    var hasPendingOutput: Bool { outputStart < output.count }
    var pendingOutputCount: Int { output.count - outputStart }
    var unconsumedInputCount: Int { input.count - inputStart }

    /// Calls `body` with the bytes to send next.
    func withPendingOutput<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let start = outputStart
        return try output.withUnsafeBytes { buffer in
            try body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Whether the loop should read: always while lingering or closing (to drop), else while
    /// fewer than ``Rules/inputHighWater`` received bytes wait to be parsed.
    var wantsInput: Bool {
        switch phase {
        case .closed: false
        case .closing, .lingering: true
        case .idle, .head, .waitingForBudget, .body, .responding, .streaming:
            unconsumedInputCount < rules.inputHighWater
        }
    }

    /// Between requests with nothing received and nothing to send.
    var isIdle: Bool { phase == .idle && !hasPendingOutput && unconsumedInputCount == 0 }

    /// The instant after which ``tick(now:)`` ends the connection; nil while it waits only for
    /// the server (a responder or a stream's producer).
    var deadline: UInt64? {
        let own: UInt64? =
            switch phase {
            case .closed: nil
            case .lingering: phaseStarted &+ (isShuttingDown ? rules.shutdownLinger : rules.linger)
            case _ where hasPendingOutput: lastWrite &+ rules.write
            case .responding, .streaming, .closing: nil
            case .body where bodyHead != nil: min(phaseStarted &+ rules.bodyRead, bodyDeadline)
            case .body, .waitingForBudget: phaseStarted &+ rules.bodyRead
            case .head: phaseStarted &+ rules.header
            case .idle: max(phaseStarted, lastWrite) &+ rules.idle
            }
        guard let graceEnds, phase != .closed else { return own }
        return min(own ?? graceEnds, graceEnds)
    }

    // MARK: Events

    /// Bytes arrived from the client.
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) -> Action {
        switch phase {
        case .closing, .lingering, .closed:
            return .none  // nothing more will be answered: dropped
        case .idle:
            phase = .head
            phaseStarted = now
            requestStarted = now
        case .body:
            phaseStarted = now
            bodyReceived &+= UInt64(bytes.count)
        case .head, .waitingForBudget, .responding, .streaming:
            break
        }
        input.append(contentsOf: bytes)
        return advance(now: now)
    }

    /// The client shut down its sending side (a read returned end of stream).
    mutating func endOfInput(now: UInt64) -> Action {
        peerClosed = true
        switch phase {
        case .streaming:
            phase = .closed
            return .close(.clientClosedDuringStream)
        case .lingering:
            phase = .closed
            return .close(.lingerEnded)
        case .responding:
            // Its answer is still sent if it comes (the client may only have half-closed).
            return .cancelResponder
        case .closing, .closed:
            return .none
        case .idle, .head, .waitingForBudget, .body:
            // Complete requests still buffered are answered first.
            return hasPendingOutput ? .none : advance(now: now)
        }
    }

    /// The socket accepted `count` more bytes of ``pendingOutput``.
    mutating func sent(_ count: Int, now: UInt64) {
        outputStart += count
        lastWrite = now
    }

    /// The loop sent what the socket would take: everything, or until it would block.
    mutating func flushed(now: UInt64) -> Action {
        if hasPendingOutput {
            if phase == .streaming, pendingOutputCount > rules.streamBufferLimit {
                phase = .closed
                return .abort(.streamReaderTooSlow)
            }
            return advance(now: now)
        }
        output = []
        outputStart = 0
        guard phase == .closing else { return advance(now: now) }
        if peerClosed {
            phase = .closed
            return .close(.responseSentClientClosed)
        }
        phase = .lingering
        phaseStarted = now
        input = []
        inputStart = 0
        return .halfClose
    }

    /// The responder answered the request in flight. `dateField` is the `Date: …\r\n` line.
    mutating func responseReady(_ response: HTTPResponse, dateField: [UInt8], now: UInt64) -> Action {
        guard phase == .responding, var exchange else { return .none }
        let isStreamed = response.stream != nil
        // A client that half-closed with nothing more buffered can send no further request.
        let closes =
            !exchange.keepAlive || isShuttingDown || (peerClosed && unconsumedInputCount == 0)
            || (isStreamed && exchange.version == .http1_0)
            || response.headers.values(for: "Connection").contains { $0.lowercased().contains("close") }
        let isHead = exchange.method == .head
        let bodyBytes = HTTPResponseEncoder.encode(
            response,
            context: .init(isHead: isHead, version: exchange.version, keepAlive: !closes, isStreamed: isStreamed),
            dateField: dateField, into: &output)
        let code = response.status.code
        if let stream = response.stream, !isHead, (200..<600).contains(code), code != 204, code != 304 {
            if peerClosed {
                phase = .closed  // nobody will read a stream (as for a FIN during one)
                return .close(.clientClosedDuringStream)
            }
            exchange.keepAlive = !closes
            exchange.isChunked = exchange.version == .http1_1
            self.exchange = exchange
            phase = .streaming
            return .startStream(stream)
        }
        let record = AccessRecord(
            method: exchange.method.rawValue, path: exchange.path, status: code, bodyBytes: bodyBytes,
            started: exchange.started)
        endExchange(closing: closes, now: now)
        return .send(record)
    }

    /// A streamed body's producer wrote `bytes` (not empty).
    mutating func streamed(_ bytes: [UInt8], now: UInt64) -> Action {
        guard phase == .streaming, exchange != nil else { return .none }
        if !hasPendingOutput { lastWrite = now }  // the write clock starts with the first unsent byte
        if exchange?.isChunked == true {
            HTTPResponseEncoder.appendChunk(bytes, to: &output)
        } else {
            output.append(contentsOf: bytes)
        }
        exchange?.streamedBytes += bytes.count
        return .send(nil)
    }

    /// A streamed body's producer returned; `overflowed` when it gave up because its writes
    /// outran the client.
    mutating func streamEnded(overflowed: Bool, now: UInt64) -> Action {
        guard phase == .streaming else { return .none }
        if overflowed {
            phase = .closed
            return .abort(.streamReaderTooSlow)
        }
        return finishStream(now: now)
    }

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

    /// Answers a ``Action/reject(_:)``: a short text/plain response, then close. These requests
    /// were never valid HTTP, so the application does not see them.
    mutating func reject(_ rejection: HTTPRejection, dateField: [UInt8], now: UInt64) -> Action {
        var response = HTTPResponse.text(
            "\(rejection.status.code) \(rejection.status.reason): \(rejection.reason)\n", status: rejection.status)
        if rejection.status == .serviceUnavailable { response.headers.add(name: "Retry-After", value: "1") }
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

    // MARK: Internals

    /// The instant the body being read runs out of time: its overall deadline, or, past the
    /// grace period, the moment the bytes received so far fall below the minimum rate.
    private var bodyDeadline: UInt64 {
        let overall = bodyStarted &+ rules.bodyDeadline
        guard rules.bodyMinimumRate > 0 else { return overall }
        let (earned, overflow) = bodyReceived.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return overall }
        return min(overall, bodyStarted &+ rules.bodyRateGrace &+ earned / rules.bodyMinimumRate)
    }

    /// Parses buffered input while nothing is in flight and the output is not backed up.
    private mutating func advance(now: UInt64) -> Action {
        while phase == .idle || phase == .head || phase == .body, pendingOutputCount < rules.outputHighWater {
            let start = inputStart
            let (event, consumed) = input.withUnsafeBufferPointer { buffer in
                parser.parse(UnsafeBufferPointer(rebasing: buffer[start...]))
            }
            inputStart += consumed
            switch event {
            case .needMoreData:
                compactInput()
                if phase == .head, unconsumedInputCount == 0, parser.isBeforeRequestLine {
                    phase = .idle  // only empty lines arrived (RFC 9112 §2.2): still idle
                }
                if peerClosed { return closeAfterOutput(.clientClosed) }
                return .none
            case .head(let head):
                phaseStarted = now
                guard head.hasBody else {
                    phase = .body
                    continue
                }
                phase = .waitingForBudget
                bodyHead = head
                expectsContinue = head.expectsContinue
                switch head.framing {
                case .length(let length): return .reserveBody(length)
                case .chunked, .none: return .reserveBody(parser.bodyLimit)
                }
            case .request(let request):
                compactInput()
                bodyHead = nil
                exchange = Exchange(
                    method: request.method, path: request.path, version: request.version,
                    keepAlive: !request.wantsClose && !isShuttingDown, started: now)
                phase = .responding
                return .dispatch(request)
            case .reject(let rejection):
                return .reject(rejection)
            }
        }
        return .none
    }

    /// The exchange is over: the connection continues with the next request or closes.
    private mutating func endExchange(closing: Bool, now: UInt64) {
        exchange = nil
        lastWrite = now
        requestStarted = now
        phaseStarted = now
        if closing {
            phase = .closing
        } else {
            phase = unconsumedInputCount > 0 ? .head : .idle
        }
    }

    private mutating func finishStream(now: UInt64) -> Action {
        guard let exchange else { return .none }
        if exchange.isChunked { output.append(contentsOf: HTTPResponseEncoder.lastChunk) }
        let record = AccessRecord(
            method: exchange.method.rawValue, path: exchange.path, status: nil, bodyBytes: exchange.streamedBytes,
            started: exchange.started)
        endExchange(closing: !exchange.keepAlive || !exchange.isChunked || isShuttingDown, now: now)
        return .finishStream(record)
    }

    private mutating func closeAfterOutput(_ reason: CloseReason) -> Action {
        if hasPendingOutput {
            phase = .closing
            return .none
        }
        phase = .closed
        return .close(reason)
    }

    /// Drops consumed input, releasing the buffer once empty (an idle connection holds none).
    private mutating func compactInput() {
        if inputStart == input.count {
            input = []
            inputStart = 0
        } else if inputStart >= 32 * 1024 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }
}
