import Logging

/// One event-loop thread: its own `epoll` instance, the connections it accepted, and their
/// timers. Created and run on its own thread by ``HTTPServer``; never touched from elsewhere.
///
/// Ownership: the loop owns its poller descriptor and every ``Connection`` in ``connections``
/// (indexed by descriptor number). Other threads reach it only through its ``LoopInbox``.
/// Sockets are registered edge-triggered for input and output, once; the shared listening
/// socket level-triggered with `EPOLLEXCLUSIVE`. The responder's synchronous
/// ``HTTPResponder/reply(to:in:)`` runs on this thread; its `respond(to:)` runs in a
/// `Task` (see ``ResponderExecution``); `epoll_wait` runs only here.
final class EventLoop {
    static let listenerToken = UInt64.max
    static let inboxToken = UInt64.max - 1
    static let shutdownSweepInterval: UInt64 = 10_000_000
    static let readBufferSize = 64 * 1024
    /// The most ready descriptors one `epoll_wait` reports.
    static let eventsPerWait = 256

    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let listener: ListeningSocket
    let inbox: LoopInbox
    /// Every loop's inbox (this one's at ``index``), to hand accepted connections over.
    let inboxes: [LoopInbox]
    let balancer: LoopBalancer
    let tasks: TaskTracker
    /// The protocol rules every connection's state machine follows.
    let rules: HTTPConnectionMachine.Rules
    let poller: FileDescriptor
    let index: Int

    var connections: [Connection?] = []
    var connectionCount = 0
    var serial: UInt64 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where `epoll_wait` writes the ready events, allocated once.
    let readyEvents: UnsafeMutableRawBufferPointer
    let clock: HTTPServerClock
    var now: UInt64
    /// Callers of ``ManualServerClock/advance(by:)`` waiting for this loop to have checked its
    /// deadlines at the new time.
    var clockWaiters: [CheckedContinuation<Void, Never>] = []
    let sweepInterval: UInt64
    var nextSweep: UInt64

    var isListening = false
    var acceptResumesAt: UInt64?
    var isShuttingDown = false

    /// Bytes of request bodies this loop may hold at once (its share of the server's
    /// ``HTTPServerConfiguration/bodyMemoryBudget``), what is left of it, what each client
    /// address holds and may hold, and the connections waiting for some, in arrival order.
    let bodyBudget: Int
    var bodyBudgetLeft: Int
    let bodyBudgetPerClient: Int
    var budgetHeld: [IPAddress?: Int] = [:]
    var budgetWaiters: [UInt64] = []
    /// A release or a new waiter: waiting bodies are looked at again after this iteration.
    var needsGranting = false
    /// What is left of the bytes of spooled bodies this loop may hold on disk (its share of
    /// ``BodySpool/budget``), and what each client address holds and may hold.
    var spoolLeft: Int
    let spoolPerClient: Int
    var spoolHeld: [IPAddress?: Int] = [:]

    /// Connections and event streams open on every loop, in total and per client address.
    let connectionSlots: ClientSlots
    let streamSlots: ClientSlots
    /// When a refused connection was last logged (at most one warning a second).
    var lastRefusalLog: UInt64 = 0

    var dateSecond = -1
    var dateField: [UInt8] = []
    /// Access lines of this turn of the loop, written together at its end (``writeAccessLines()``).
    /// `@exclusivity(unchecked)`: only the loop's thread touches it, in `log` and
    /// `writeAccessLines`, each append a call that returns without reaching the loop again; a
    /// dynamic check of each of a line's appends was six a request.
    @exclusivity(unchecked) var accessLines: LogLines

    init(
        index: Int, configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger,
        listener: ListeningSocket, inboxes: [LoopInbox], balancer: LoopBalancer, tasks: TaskTracker,
        rules: HTTPConnectionMachine.Rules, connectionSlots: ClientSlots, streamSlots: ClientSlots
    ) throws(HTTPServerError) {
        self.index = index
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        accessLines = LogLines(level: .info, label: logger.label)
        self.listener = listener
        self.inbox = inboxes[index]
        self.inboxes = inboxes
        self.balancer = balancer
        self.tasks = tasks
        self.rules = rules
        let limits = configuration.limits
        bodyBudget = max(
            configuration.bodyMemoryBudget / max(1, configuration.eventLoopCount), limits.uploadBody, limits.formBody)
        bodyBudgetLeft = bodyBudget
        bodyBudgetPerClient = configuration.bodyBudgetPerClient
            ?? max(bodyBudget / 4, limits.uploadBody, limits.formBody)
        let spoolBudget = (configuration.bodySpool?.budget ?? 0) / max(1, configuration.eventLoopCount)
        spoolLeft = spoolBudget
        spoolPerClient = configuration.bodySpool?.budgetPerClient ?? spoolBudget / 2
        self.connectionSlots = connectionSlots
        self.streamSlots = streamSlots
        self.poller = FileDescriptor(try Platform.epollCreate())
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        readyEvents = Platform.allocateEpollEvents(capacity: Self.eventsPerWait)
        clock = configuration.clock
        now = clock.now()
        sweepInterval = min(max(rules.shortestTimeout / 10, 2_000_000), 250_000_000)
        nextSweep = now &+ sweepInterval
    }

    deinit {
        readBuffer.deallocate()
        readyEvents.deallocate()
        poller.close()
    }

    /// Serves until a shutdown has been posted and every connection is closed.
    func run() {
        do {
            try Platform.epollControl(
                poller.rawValue, .add, fd: inbox.wakeDescriptor, events: Platform.eventReadable, token: Self.inboxToken)
            startListening()
            while !(isShuttingDown && connectionCount == 0) {
                let timeout = inbox.prepareToSleep() ? waitTimeout() : 0
                var isClockFresh = false
                _ = try Platform.epollWait(poller.rawValue, events: readyEvents, timeoutMilliseconds: timeout) {
                    events, token in
                    if !isClockFresh {
                        // The wait may have lasted long: timers must see the time of the events.
                        now = clock.now()
                        isClockFresh = true
                        inbox.markAwake()
                    }
                    handle(events: events, token: token)
                }
                now = clock.now()
                runInbox()
                if now >= nextSweep { sweep() }
                if !clockWaiters.isEmpty { resumeClockWaiters() }
                if needsGranting { grantBodyBudget() }
                writeAccessLines()
            }
        } catch {
            logger.error("event loop \(index) stopped: \(error)")
        }
        for connection in connections.compactMap({ $0 }) { close(connection, reason: "loop stopped") }
        writeAccessLines()
        stopListening()
        inbox.close()
        resumeClockWaiters()
    }

    /// Handles what other threads (and this loop's own tasks) posted: responses, jobs of tasks
    /// that prefer this loop, shutdown. Repeats a few times so a response produced by a job
    /// run here is written in the same iteration.
    func runInbox() {
        for _ in 0..<4 {
            let messages = inbox.wakeAndTakeAll()
            if messages.isEmpty { return }
            for message in messages {
                switch message {
                case .response(let id, let response): deliver(response, to: id)
                case .job(let job): job.runSynchronously(on: inbox.asUnownedTaskExecutor())
                case .adopt(let fd, let peer): register(FileDescriptor(fd), peer: peer)
                case .streamChunk(let id, let bytes): sendStreamChunk(bytes, to: id)
                case .streamEnd(let id): endStream(of: id)
                case .shutdown: beginShutdown()
                case .wake(let waiter):
                    nextSweep = now
                    if let waiter { clockWaiters.append(waiter) }
                }
            }
        }
    }

    func resumeClockWaiters() {
        for waiter in clockWaiters { waiter.resume() }
        clockWaiters = []
    }

    /// Milliseconds until the next timer check, or -1 when nothing is timed.
    func waitTimeout() -> Int32 {
        guard connectionCount > 0 || acceptResumesAt != nil || isShuttingDown else { return -1 }
        let current = clock.now()
        guard nextSweep > current else { return 0 }
        return Int32(min((nextSweep - current + 999_999) / 1_000_000, 1000))
    }

    func handle(events: UInt32, token: UInt64) {
        switch token {
        case Self.listenerToken:
            acceptConnections()
        case Self.inboxToken:
            break  // handled by runInbox() after the batch
        default:
            let fd = Int(token)
            guard fd < connections.count, let connection = connections[fd] else { return }
            if events & Platform.eventError != 0 {
                close(connection, reason: "socket error")
                return
            }
            if events & (Platform.eventReadable | Platform.eventHangUp) != 0 {
                connection.isReadable = true
                if events & Platform.eventHangUp != 0 { connection.sawHangUp = true }
            }
            if events & Platform.eventWritable != 0, connection.machine.hasPendingOutput {
                // Output drained below the high-water mark resumes parsing buffered requests.
                perform(flush(connection), on: connection)
            }
            readAndProcess(connection)
        }
    }

    /// Gives each connection whose deadline has passed a timer tick, and resumes accepting
    /// after a pause. (The connections' state machines decide what a tick means.)
    func sweep() {
        nextSweep = now &+ (isShuttingDown ? Self.shutdownSweepInterval : sweepInterval)
        if let resume = acceptResumesAt, now >= resume, !isShuttingDown {
            acceptResumesAt = nil
            startListening()
        }
        for case let connection? in connections {
            guard let deadline = connection.machine.deadline, now >= deadline else { continue }
            perform(connection.machine.tick(now: now), on: connection)
        }
    }

    /// Stops accepting and tells every connection (after reading what is already in its socket,
    /// so a request that arrived just before is still served).
    func beginShutdown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        nextSweep = now &+ Self.shutdownSweepInterval
        stopListening()
        acceptResumesAt = nil
        for case let connection? in connections {
            connection.isReadable = true
            readAndProcess(connection)
            guard connection.socket.isOpen else { continue }
            perform(connection.machine.shutdown(now: now), on: connection)
        }
    }

    /// The `Date: …\r\n` line for this second (RFC 9110 §6.6.1), formatted once per second.
    func currentDateField() -> [UInt8] {
        let second = Platform.wallClockSeconds()
        if second != dateSecond {
            dateSecond = second
            dateField = Array("Date: \(HTTPDate.format(secondsSinceEpoch: second))\r\n".utf8)
        }
        return dateField
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}
