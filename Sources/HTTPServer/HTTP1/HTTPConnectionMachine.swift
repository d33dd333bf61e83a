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
    // Its state is internal to the module so that the machine's events can live in more than one
    // file; nothing outside this type's files writes it (the event loop only calls the events and
    // reads the questions below).
    let rules: Rules
    var phase = Phase.idle
    var parser: HTTPRequestParser
    var exchange: Exchange?
    /// The head of the request whose body is next: set when the header section of a request with
    /// a body is accepted (``Action/reserveBody(_:)``), cleared when the request is complete. The
    /// loop reads it to decide whether the body is worth reading at all.
    var bodyHead: HTTPRequestHead?

    /// Received bytes not yet consumed by the parser start at `inputStart`.
    var input: [UInt8] = []
    var inputStart = 0
    /// Encoded bytes not yet sent.
    var output = OutputQueue()

    /// The client has shut down its sending side: answer what was received, then close.
    var peerClosed = false
    /// The request's body was refused (over its limit): whatever more arrives is part of it and
    /// is dropped as it comes, so the client can finish sending and read the answer.
    var discardsInput = false
    var isShuttingDown = false
    /// When the current phase's clock started: idle since, head's first byte, last body bytes,
    /// linger start.
    var phaseStarted: UInt64
    /// Last time the socket accepted bytes, or a response was queued.
    var lastWrite: UInt64
    /// When the current request started, for the log: its first byte, or the end of the
    /// previous response for pipelined bytes.
    var requestStarted: UInt64
    var graceEnds: UInt64?
    /// The current request's client waits for `100 Continue` before sending its body.
    var expectsContinue = false
    /// When the current body began to be read, and the bytes received since: the minimum rate
    /// and the overall deadline of a body are measured from these.
    var bodyStarted: UInt64 = 0
    var bodyReceived: UInt64 = 0

    /// A connection accepted at `now`.
    init(rules: Rules, now: UInt64) {
        self.rules = rules
        parser = HTTPRequestParser(limits: rules.limits)
        phaseStarted = now
        lastWrite = now
        requestStarted = now
    }

    // MARK: Questions the loop asks

    var hasPendingOutput: Bool { !output.isEmpty }
    var pendingOutputCount: Int { output.count }
    var unconsumedInputCount: Int { input.count - inputStart }

    /// Calls `body` with the bytes to send next, in two parts (the second may be empty:
    /// ``OutputQueue``). Mutating, though it changes nothing, so that the loop calls it on the
    /// machine in its connection in place: as a plain method, which the closure's send could
    /// not be proved to leave alone, the whole machine was copied for each send (28 reference
    /// counts a response, counted).
    mutating func withPendingOutput<Result>(
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try output.withPending(body)
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
        if discardsInput { return .none }
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

    /// The socket accepted `count` more bytes of the pending output (``withPendingOutput(_:)``).
    mutating func sent(_ count: Int, now: UInt64) {
        output.sent(count)
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
        output.removeAll()
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

    // MARK: Internals

    /// The instant the body being read runs out of time: its overall deadline, or, past the
    /// grace period, the moment the bytes received so far fall below the minimum rate.
    var bodyDeadline: UInt64 {
        let overall = bodyStarted &+ rules.bodyDeadline
        guard rules.bodyMinimumRate > 0 else { return overall }
        let (earned, overflow) = bodyReceived.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return overall }
        return min(overall, bodyStarted &+ rules.bodyRateGrace &+ earned / rules.bodyMinimumRate)
    }

    /// Parses buffered input while nothing is in flight and the output is not backed up.
    mutating func advance(now: UInt64) -> Action {
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
                if request.bodyRefusal != nil {
                    discardsInput = true
                    input = []
                    inputStart = 0
                }
                compactInput()
                bodyHead = nil
                exchange = Exchange(
                    method: request.method, path: request.path, version: request.version,
                    // After a refused body the parser cannot find the next request: close.
                    keepAlive: !request.wantsClose && !isShuttingDown && request.bodyRefusal == nil, started: now)
                if case .tooLarge(let limit) = request.bodyRefusal {
                    exchange?.refusal = HTTPRejection(.contentTooLarge, "body over \(limit) bytes")
                }
                phase = .responding
                return .dispatch(request)
            case .reject(let rejection):
                return .reject(rejection)
            }
        }
        return .none
    }

    /// The exchange is over: the connection continues with the next request or closes.
    mutating func endExchange(closing: Bool, now: UInt64) {
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

    mutating func finishStream(now: UInt64) -> Action {
        guard let exchange else { return .none }
        if exchange.isChunked { output.append(contentsOf: HTTPResponseEncoder.lastChunk) }
        let record = AccessRecord(
            method: exchange.method.rawValue, path: exchange.path, status: nil, bodyBytes: exchange.streamedBytes,
            started: exchange.started)
        endExchange(closing: !exchange.keepAlive || !exchange.isChunked || isShuttingDown, now: now)
        return .finishStream(record)
    }

    mutating func closeAfterOutput(_ reason: CloseReason) -> Action {
        if hasPendingOutput {
            phase = .closing
            return .none
        }
        phase = .closed
        return .close(reason)
    }

    /// Drops consumed input, releasing the buffer once empty (an idle connection holds none).
    mutating func compactInput() {
        if inputStart == input.count {
            input = []
            inputStart = 0
        } else if inputStart >= 32 * 1024 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }
}
