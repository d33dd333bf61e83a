/// One accepted TCP connection and its HTTP/1.1 state, owned by exactly one ``EventLoop``.
///
/// Not Sendable: only its loop's thread touches it. At most one request is in flight at a time;
/// pipelined requests wait, unparsed, in ``input`` until the previous response is queued
/// (RFC 9112 §9.3.2: answers in order). Buffers are released when empty, so an idle connection
/// costs a few hundred bytes of user memory.
final class Connection {
    /// The request being answered: what the response encoder and the access log need.
    struct InFlight {
        var method: HTTPMethod
        var path: String
        var version: HTTPVersion
        var keepAlive: Bool
        var started: UInt64
    }

    let socket: FileDescriptor
    /// Identity across descriptor reuse: the loop's serial in the high half, fd in the low half.
    let id: UInt64
    var parser: HTTPRequestParser

    /// Received bytes not yet consumed by the parser start at ``inputStart``.
    var input: [UInt8] = []
    var inputStart = 0
    /// Encoded responses not yet sent start at ``outputStart``.
    var output: [UInt8] = []
    var outputStart = 0

    /// Edge-triggered epoll: true from a readiness event until a read comes back short or
    /// would-block.
    var isReadable = true
    /// The poller reported `EPOLLRDHUP`/`EPOLLHUP`: keep reading past short reads until the
    /// end of stream is seen (it may have arrived with the last data, in the same edge).
    var sawHangUp = false
    var inFlight: InFlight?
    /// While a streamed body is being sent: its channel and producer task, and whether chunks
    /// are framed (HTTP/1.1) or the body ends at close (HTTP/1.0).
    var stream: (channel: StreamChannel, task: Task<Void, Never>, isChunked: Bool, bytes: Int)?
    /// Close once ``output`` is sent (error, `Connection: close`, HTTP/1.0, shutdown).
    var closeAfterWrite = false
    /// The client has shut down its sending side; serve what was received, then close.
    var peerClosed = false
    /// Set once the response before closing is sent: `SHUT_WR` done, reading and dropping
    /// until the client closes (so unread request bytes do not turn the close into a reset
    /// that could destroy the response, RFC 9112 §9.6).
    var lingerStarted: UInt64?

    /// When the first byte of the current request's header section arrived.
    var headStarted: UInt64?
    /// When the current request started, as far as the log is concerned: its first byte read,
    /// or the end of the previous response for bytes already buffered (pipelining). Unlike
    /// ``headStarted`` it is kept while the body is read, so a rejection can say how long it took.
    var requestStarted: UInt64
    /// Last time body bytes arrived.
    var lastBodyProgress: UInt64 = 0
    /// Last time the send buffer accepted bytes (or the connection became idle).
    var lastActivity: UInt64

    init(socket: FileDescriptor, id: UInt64, limits: HTTPLimits, now: UInt64) {
        self.socket = socket
        self.id = id
        self.parser = HTTPRequestParser(limits: limits)
        self.lastActivity = now
        self.requestStarted = now
    }

    var unconsumedInput: Int { input.count - inputStart }
    var hasPendingOutput: Bool { outputStart < output.count }
    var pendingOutput: Int { output.count - outputStart }

    /// Between requests with nothing received and nothing to send: may be closed at shutdown.
    var isIdle: Bool {
        inFlight == nil && !hasPendingOutput && unconsumedInput == 0 && parser.isAtRequestBoundary
    }

    /// What the connection is waiting for, which decides its deadline.
    enum Wait: Equatable {
        case lingering, sending, responder, body, head, idle
    }

    var wait: Wait {
        if lingerStarted != nil { return .lingering }
        if hasPendingOutput { return .sending }
        if inFlight != nil { return .responder }
        if parser.isReadingBody { return .body }
        if headStarted != nil || unconsumedInput > 0 || !parser.isAtRequestBoundary { return .head }
        return .idle
    }

    /// The instant (monotonic ns) after which the connection has waited too long; nil when it
    /// waits for the server itself.
    func deadline(timeouts: HTTPTimeouts, lingerTimeout: UInt64) -> UInt64? {
        switch wait {
        case .lingering: (lingerStarted ?? 0) &+ lingerTimeout
        case .sending: lastActivity &+ timeouts.write.nanoseconds
        case .responder: nil
        case .body: lastBodyProgress &+ timeouts.bodyRead.nanoseconds
        case .head: (headStarted ?? lastActivity) &+ timeouts.header.nanoseconds
        case .idle: lastActivity &+ timeouts.idle.nanoseconds
        }
    }

    /// Drops consumed input, releasing the buffer once empty (an idle connection holds none).
    func compactInput() {
        if inputStart == input.count {
            input = []
            inputStart = 0
        } else if inputStart >= 32 * 1024 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    /// Drops sent output, releasing the buffer once empty.
    func compactOutput() {
        if outputStart == output.count {
            output = []
            outputStart = 0
        }
    }
}

@available(*, unavailable)
extension Connection: Sendable {}

extension Duration {
    /// The duration in whole nanoseconds (negative durations count as zero).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
