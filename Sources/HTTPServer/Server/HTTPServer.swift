import Foundation
package import Logging
import Synchronization

/// An HTTP/1.1 server (RFC 9110, RFC 9112) on non-blocking sockets and `epoll`, with one
/// event-loop thread per core and the responder running on Swift's cooperative pool (or, for
/// what it can answer at once, ``HTTPResponder/reply(to:in:)``, on the loop).
///
/// Lifecycle: ``start()`` binds, listens and spawns the loops, ``run()`` returns when they have
/// all stopped, ``shutdown()`` stops them gracefully. Ownership of mutable state:
/// - the lifecycle (`State` below) lives in a `Mutex` of this object, so every method may be
///   called from any thread or task;
/// - each ``EventLoop`` owns its poller, its connections and their buffers, on its own thread;
/// - the listening socket is shared read-only by the loops and closed once, here, after the
///   last loop has stopped watching it;
/// - responses travel from responder tasks to loops through each loop's ``LoopInbox``.
package final class HTTPServer: Sendable {
    private enum Phase {
        case idle
        case running(ListeningSocket, [LoopInbox])
        case stopped
    }

    private struct State {
        var phase = Phase.idle
        var shutdownRequested = false
        var runningLoops = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    private let state = Mutex(State())
    /// The tasks connections own; ``run()`` returns only after the last has ended.
    private let tasks = TaskTracker()

    /// A server that will serve `responder` once started; logs go to `logger` (access lines at
    /// info level, connection closes at debug).
    package init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// Raises the process's soft descriptor limit to its hard limit (at most `ceiling`), as Go's
    /// runtime does, so that the default connection limit is not the shell's 1,024; returns the
    /// soft limit now in force. For the composition root, once, before opening anything.
    package static func raiseDescriptorLimit(upTo ceiling: Int = 1 << 20) -> Int {
        Platform.raiseFileLimit(to: ceiling)
    }

    /// Binds and listens (`SO_REUSEADDR`, non-blocking) and starts the event-loop threads;
    /// returns the bound port, the kernel's choice when the configuration asks for port 0.
    /// - Throws: ``HTTPServerError/systemCall(_:errno:)`` naming the failed call (e.g. `bind`
    ///   with `EADDRINUSE`), ``HTTPServerError/invalidAddress(_:)``, or
    ///   ``HTTPServerError/alreadyStarted``.
    package func start() throws(HTTPServerError) -> Int {
        let (listener, inboxes) = try state.withLock { state throws(HTTPServerError) -> (ListeningSocket, [LoopInbox]) in
            guard case .idle = state.phase, !state.shutdownRequested else { throw .alreadyStarted }
            let listener = try ListeningSocket(
                host: configuration.host, port: configuration.port, backlog: Int32(clamping: configuration.backlog))
            var inboxes: [LoopInbox] = []
            do throws(HTTPServerError) {
                for _ in 0..<configuration.eventLoopCount { inboxes.append(try LoopInbox()) }
            } catch {
                for inbox in inboxes { inbox.close() }
                listener.close()
                throw error
            }
            state.phase = .running(listener, inboxes)
            state.runningLoops = inboxes.count
            return (listener, inboxes)
        }
        if case .manual(let clock) = configuration.clock { clock.attach(inboxes) }
        startLoops(listener: listener, inboxes: inboxes)
        return listener.port
    }

    /// Spawns one thread per loop. Serving starts here, not in ``run()``, so it never waits for
    /// a cooperative-pool thread to become free.
    private func startLoops(listener: ListeningSocket, inboxes: [LoopInbox]) {
        let balancer = LoopBalancer(loopCount: inboxes.count)
        let rules = HTTPConnectionMachine.Rules(
            limits: configuration.limits, timeouts: configuration.timeouts,
            streamBufferLimit: configuration.streamBufferLimit)
        let connectionLimit = configuration.connectionLimit(fileLimit: Platform.fileLimit())
        // Trusted proxies speak for many clients: only the total counts their connections.
        let connectionSlots = ClientSlots(
            total: connectionLimit, perClient: configuration.maxConnectionsPerClient,
            exempt: configuration.trustedProxies.addresses)
        let streamSlots = ClientSlots(
            total: configuration.maxStreams ?? max(1, connectionLimit / 2), perClient: configuration.maxStreamsPerClient)
        for index in inboxes.indices {
            let thread = Thread { [configuration, responder, logger, tasks] in
                do {
                    let loop = try EventLoop(
                        index: index, configuration: configuration, responder: responder, logger: logger,
                        listener: listener, inboxes: inboxes, balancer: balancer, tasks: tasks, rules: rules,
                        connectionSlots: connectionSlots, streamSlots: streamSlots)
                    loop.run()
                } catch {
                    logger.error("event loop \(index) could not start: \(error)")
                    // Nobody will drain its inbox: sockets the other loops hand over would hang,
                    // so close it (adopted sockets are then closed) and stop choosing it.
                    balancer.retire(index)
                    inboxes[index].close()
                }
                self.loopStopped()
            }
            thread.name = "http-loop-\(index)"
            thread.start()
        }
    }

    /// Returns when the server has stopped, i.e. when a ``shutdown()`` has completed (at once if
    /// it was never started): its loops have closed every connection and every task a
    /// connection started (responders, stream producers) has ended. The event-loop threads
    /// started by ``start()`` do the serving.
    package func run() async {
        await waitUntilStopped()
    }

    /// Graceful shutdown: stop accepting, close idle connections, let requests in flight finish
    /// (at most ``HTTPTimeouts/shutdownGrace``), then close the rest. Returns when done; safe to
    /// call from any task or thread, more than once.
    package func shutdown() async {
        let inboxes: [LoopInbox] = state.withLock { state in
            state.shutdownRequested = true
            switch state.phase {
            case .idle:
                state.phase = .stopped
            case .running(_, let inboxes):
                return inboxes
            case .stopped:
                break
            }
            return []
        }
        for inbox in inboxes { inbox.post(.shutdown) }
        await waitUntilStopped()
    }

    /// Waits for the loops to stop (their connections are closed, so the tasks still running
    /// were cancelled), then for those tasks to end.
    private func waitUntilStopped() async {
        await waitUntilLoopsStopped()
        await tasks.waitUntilNoneRun()
    }

    private func waitUntilLoopsStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isStopped = state.withLock { state in
                if case .stopped = state.phase { return true }
                if case .idle = state.phase { return true }
                state.waiters.append(continuation)
                return false
            }
            if isStopped { continuation.resume() }
        }
    }

    /// Called on each loop thread as it ends; the last one closes the shared resources and
    /// wakes everyone waiting in ``run()`` or ``shutdown()``.
    private func loopStopped() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.runningLoops -= 1
            guard state.runningLoops == 0, case .running(let listener, let inboxes) = state.phase else { return [] }
            listener.close()
            for inbox in inboxes { inbox.close() }  // already closed by their loops, unless one failed to start
            state.phase = .stopped
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
