/// One accepted TCP connection, owned by exactly one ``EventLoop``: its socket, its protocol
/// state (``HTTPConnectionMachine``, which holds its buffers), the readiness the poller
/// reported, and the tasks working for it.
///
/// Not Sendable: only its loop's thread touches it. The tasks it owns (the responder's for the
/// request in flight, a stream's producer) are cancelled when it closes, and are counted by
/// the server's ``TaskTracker`` until they end.
final class Connection {
    let socket: FileDescriptor
    /// Identity across descriptor reuse: the loop's serial in the high half, fd in the low half.
    let id: UInt64
    /// `@exclusivity(unchecked)`: only the loop's thread touches it, and no access to it begins
    /// while another is open. Its methods compute and return actions; the two that reach outside
    /// it do not reach the connection: `spoolBody` writes to the spool file, and the closure the
    /// loop passes to `withPendingOutput` sends on the socket (`flush`). Their arguments (the
    /// date field, received bytes) are made before the access starts. Checked dynamically, the
    /// several accesses of every request each took the thread-local access set.
    @exclusivity(unchecked) var machine: HTTPConnectionMachine

    /// Edge-triggered epoll: true from a readiness event until a read comes back short or
    /// would-block.
    var isReadable = true
    /// The poller reported `EPOLLRDHUP`/`EPOLLHUP`: keep reading past short reads until the
    /// end of stream is seen (it may have arrived with the last data, in the same edge).
    var sawHangUp = false

    /// What the responder prepared from the head of the request whose body is being read.
    var prepared: PreparedRequest?
    /// The responder's task for the request in flight.
    var responderTask: Task<Void, Never>?
    /// While a streamed body is being sent: its channel and producer task.
    var stream: (channel: StreamChannel, task: Task<Void, Never>)?
    /// Bytes of the loop's body budget this connection's current request holds.
    var reservedBody = 0
    /// Bytes it asked for and waits for (queued in the loop's budget waiters).
    var awaitedBody = 0
    /// Bytes of the loop's spool budget its current request's body holds on disk.
    var reservedSpool = 0
    /// The client (an IPv6 one by its /64) under which ``reservedBody`` or ``reservedSpool`` is counted.
    var budgetClient: IPAddress?
    /// The other end's address, as `accept` reported it (nil if it did not).
    let peer: IPAddress?
    /// ``peer`` as the access log writes it (formatted once per connection, not per request).
    lazy var peerText = peer?.description ?? "-"
    /// The client that a trusted proxy named for the current request (`X-Forwarded-For`).
    var forwardedClient: IPAddress?
    /// Who asks in the current request: whom a trusted proxy forwarded for, else the peer.
    var client: IPAddress? { forwardedClient ?? peer }
    /// While its streamed body is sent: the client whose event-stream place it holds.
    var streamSlot: IPAddress??

    init(socket: FileDescriptor, peer: IPAddress?, id: UInt64, rules: HTTPConnectionMachine.Rules, now: UInt64) {
        self.socket = socket
        self.peer = peer
        self.id = id
        self.machine = HTTPConnectionMachine(rules: rules, now: now)
    }

    /// Cancels every task working for this connection.
    func cancelTasks() {
        responderTask?.cancel()
        responderTask = nil
        if let stream {
            stream.channel.close()
            stream.task.cancel()
            self.stream = nil
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
