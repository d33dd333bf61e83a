import Synchronization

/// The way into an event loop from other threads: a `Mutex`-protected queue plus an eventfd
/// that wakes the loop's `epoll_wait` — written only when the loop is actually asleep.
///
/// Responder tasks post finished responses here; ``HTTPServer`` posts shutdown. It is also a
/// `TaskExecutor` (SE-0417): with ``ResponderExecution/eventLoop`` the responder's task prefers
/// it, so its jobs run on the loop thread between I/O events.
///
/// Protocol with the loop: before `epoll_wait` the loop calls ``prepareToSleep()`` (false if
/// messages wait, so it polls without blocking); after waking it calls ``wakeAndTakeAll()``.
/// A poster signals the eventfd only if the loop said it sleeps and no signal is pending, so a
/// busy loop is never woken by a syscall. Sendable: all mutable state is behind the mutex, and
/// the eventfd is written and closed only under it, so a late post after ``close()`` can never
/// write into a reused descriptor number.
final class LoopInbox: TaskExecutor {
    /// One message for the loop.
    enum Message: Sendable {
        /// The responder's answer to the request in flight on connection `connection`.
        case response(connection: UInt64, HTTPResponse)
        /// A job of a task that prefers this loop as its executor.
        case job(UnownedJob)
        /// A connection another loop accepted for this one (see ``LoopBalancer``).
        case adopt(Int32, peer: IPAddress?)
        /// A piece of a streamed response body (``HTTPBodyStream``).
        case streamChunk(connection: UInt64, [UInt8])
        /// The streamed body of that connection's response is complete.
        case streamEnd(connection: UInt64)
        /// Begin a graceful shutdown.
        case shutdown
        /// The loop's clock moved: check deadlines now, then resume the continuation (a test
        /// awaiting the loop's reaction to the time it set).
        case wake(CheckedContinuation<Void, Never>?)
    }

    private struct State {
        var messages: [Message] = []
        var wakeDescriptor: Int32?
        var isSleeping = false
        var isSignalled = false
    }

    /// The eventfd number, for registering with the loop's poller.
    let wakeDescriptor: Int32
    private let state: Mutex<State>

    init() throws(HTTPServerError) {
        let descriptor = try Platform.eventCreate()
        wakeDescriptor = descriptor
        state = Mutex(State(wakeDescriptor: descriptor))
    }

    /// Queues a message, waking the loop if it sleeps. After ``close()`` jobs go to the global
    /// concurrent executor (so their tasks still finish), adopted sockets are closed, and other
    /// messages are dropped.
    func post(_ message: Message) {
        let isClosed = state.withLock { state in
            guard let descriptor = state.wakeDescriptor else { return true }
            state.messages.append(message)
            if state.isSleeping && !state.isSignalled {
                state.isSignalled = true
                Platform.eventSignal(descriptor)
            }
            return false
        }
        if isClosed { Self.dispose(message) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        post(.job(UnownedJob(job)))
    }

    /// Called by the loop right before `epoll_wait`: false when messages are waiting (then the
    /// loop must not block).
    func prepareToSleep() -> Bool {
        state.withLock { state in
            guard state.messages.isEmpty else { return false }
            state.isSleeping = true
            return true
        }
    }

    /// Called by the loop as soon as `epoll_wait` returns events, so that what it posts while
    /// handling them (its own tasks' jobs) does not signal the eventfd needlessly.
    func markAwake() {
        state.withLock { $0.isSleeping = false }
    }

    /// Called by the loop after `epoll_wait`: marks it awake, resets the eventfd if it was
    /// signalled, and takes every message.
    func wakeAndTakeAll() -> [Message] {
        let (messages, wasSignalled) = state.withLock { state in
            state.isSleeping = false
            let wasSignalled = state.isSignalled
            state.isSignalled = false
            guard !state.messages.isEmpty else { return ([Message](), wasSignalled) }
            defer { state.messages = [] }
            return (state.messages, wasSignalled)
        }
        if wasSignalled { Platform.eventDrain(wakeDescriptor) }
        return messages
    }

    /// Closes the eventfd once; pending jobs move to the global executor, other messages are
    /// dropped.
    func close() {
        let pending: [Message] = state.withLock { state in
            if let descriptor = state.wakeDescriptor { Platform.close(descriptor) }
            state.wakeDescriptor = nil
            defer { state.messages = [] }
            return state.messages
        }
        for message in pending { Self.dispose(message) }
    }

    /// What happens to a message the closed loop will never handle: jobs still run (on the
    /// global executor), adopted sockets are closed, the rest is dropped.
    private static func dispose(_ message: Message) {
        switch message {
        case .job(let job): globalConcurrentExecutor.enqueue(ExecutorJob(job))
        case .adopt(let fd, _): Platform.close(fd)
        case .wake(let waiter): waiter?.resume()
        case .response, .shutdown, .streamChunk, .streamEnd: break
        }
    }

    deinit {
        close()
    }
}
