import Foundation
import Store
import Synchronization

/// The one follower of NOTIFY channels (https://www.postgresql.org/docs/15/sql-listen.html) in
/// a process: one connection and one thread LISTEN to every channel anyone follows, and hand each
/// notification to that channel's handlers, with word of every lost connection: notifications
/// sent while it was down are gone, so whoever follows must reload (or forget) what it mirrors.
/// Both followers of the database share it: the account storage (session deletions) and the
/// journal (appends by other instances, with ``Event/quiet`` as the cue to poll).
///
/// Ownership: the thread creates, uses and closes the ``PostgresConnection``; nothing else
/// touches it. Followers are added and removed through a `Mutex` the thread reads before each
/// wait, so a new channel is LISTENed within ``pollInterval``. The thread waits in `poll` for at
/// most ``pollInterval`` at a time, so it never holds a cooperative-pool thread, and notices
/// ``stop()`` (or the listener's release) within that interval, or, while the server is away,
/// after the reconnection budget. It has one loop for connecting, reconnecting and waiting.
package final class PostgresListener: Sendable {
    /// What a follower's handler hears, in order, on the listener's thread.
    package enum Event: Sendable, Equatable {
        /// LISTENing to the follower's channel, at the start or again after ``interrupted``, on a
        /// new connection: notifications arrive from now on; any sent in between were lost.
        case listening
        /// The connection was lost (or could not be made), for `reason`: notifications go
        /// unheard until ``listening``.
        case interrupted(reason: String)
        case notification(PostgresNotification)
        /// No event for the follower's quiet interval: a follower that cannot afford to miss
        /// anything reads what it follows anyway.
        case quiet
    }

    /// Names one follower, for ``unfollow(_:)``.
    package struct Follower: Hashable, Sendable {
        let id: Int
    }

    /// How long one wait for notifications lasts before the thread checks for new followers and
    /// whether to stop.
    package static let pollInterval: Duration = .milliseconds(100)

    private let shared: Shared

    /// Starts the thread, which keeps trying to connect to `url` (each failure is an
    /// ``Event/interrupted`` to the followers there are, the success ``Event/listening``) and
    /// then follows every channel added with ``follow(_:quietInterval:handler:)``; returns at once.
    package init(url: PostgresURL, policy: PostgresReconnectPolicy = .standard) {
        shared = Shared()
        let thread = Thread { [shared] in Self.run(url: url, policy: policy, shared: shared) }
        thread.name = "quotebook.listen"
        thread.start()
    }

    deinit {
        shared.stop()
    }

    /// Adds a follower of `channel` and returns once its `handler` has heard its first event:
    /// ``Event/listening`` (from then on it hears every notification sent to `channel`) or, with
    /// the server away, ``Event/interrupted``. With `quietInterval`, the handler also hears
    /// ``Event/quiet`` after every such interval without an event of its own.
    @discardableResult
    package func follow(
        _ channel: String, quietInterval: Duration? = nil, handler: @escaping @Sendable (Event) -> Void
    ) async -> Follower {
        let follower = Follower(id: shared.nextID())
        await withCheckedContinuation { continuation in
            let subscriber = Subscriber(channel: channel, quietInterval: quietInterval, handler: handler)
            if !shared.add(subscriber, as: follower, waiting: continuation) { continuation.resume() }
        }
        return follower
    }

    /// ``follow(_:quietInterval:handler:)``, returning at once: the handler hears
    /// ``Event/listening`` once the thread LISTENs (within ``pollInterval``).
    @discardableResult
    package func startFollowing(
        _ channel: String, quietInterval: Duration? = nil, handler: @escaping @Sendable (Event) -> Void
    ) -> Follower {
        let follower = Follower(id: shared.nextID())
        _ = shared.add(Subscriber(channel: channel, quietInterval: quietInterval, handler: handler), as: follower, waiting: nil)
        return follower
    }

    /// Removes `follower`: its handler hears nothing after the event being delivered, and the
    /// thread UNLISTENs its channel once no one else follows it.
    package func unfollow(_ follower: Follower) {
        shared.remove(follower)
    }

    /// Ends the thread (within ``pollInterval`` while connected) and its connection; no event
    /// comes after the ones being delivered.
    package func stop() {
        shared.stop()
    }
}

extension PostgresListener {
    /// One follower, as its owner gave it: read by the thread, which keeps its progress apart.
    struct Subscriber: Sendable {
        let channel: String
        let quietInterval: Duration?
        let handler: @Sendable (Event) -> Void
    }

    /// The followers and the stop flag, shared by the listener and its thread.
    final class Shared: Sendable {
        private struct State {
            var subscribers: [Follower: Subscriber] = [:]
            /// Each ``PostgresListener/follow(_:quietInterval:handler:)`` waiting for its first
            /// event; taken out to be resumed, so each is resumed exactly once.
            var waiting: [Follower: CheckedContinuation<Void, Never>] = [:]
            var lastID = 0
            var isStopped = false
        }

        private let state = Mutex(State())

        var isStopped: Bool { state.withLock { $0.isStopped } }
        var subscribers: [Follower: Subscriber] { state.withLock { $0.subscribers } }

        func nextID() -> Int {
            state.withLock { state in
                state.lastID += 1
                return state.lastID
            }
        }

        /// Adds `subscriber` as `follower`, with the continuation to resume after its first
        /// event; false (nothing added) when stopped already.
        func add(_ subscriber: Subscriber, as follower: Follower, waiting: CheckedContinuation<Void, Never>?) -> Bool {
            state.withLock { state in
                guard !state.isStopped else { return false }
                state.subscribers[follower] = subscriber
                state.waiting[follower] = waiting
                return true
            }
        }

        /// The continuation waiting for `follower`'s first event, taken out; nil when none.
        func takeWaiting(_ follower: Follower) -> CheckedContinuation<Void, Never>? {
            state.withLock { $0.waiting.removeValue(forKey: follower) }
        }

        func contains(_ follower: Follower) -> Bool {
            state.withLock { $0.subscribers[follower] != nil }
        }

        func remove(_ follower: Follower) {
            let waiting = state.withLock { state in
                state.subscribers[follower] = nil
                return state.waiting.removeValue(forKey: follower)
            }
            waiting?.resume()
        }

        /// Sets the flag and lets go of every waiting ``PostgresListener/follow(_:quietInterval:handler:)``.
        func stop() {
            let waiting = state.withLock { state in
                state.isStopped = true
                state.subscribers.removeAll()
                defer { state.waiting.removeAll() }
                return state.waiting.values
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// What the thread knows of one follower: whether it was told ``Event/listening`` on the
    /// current connection, and when it last heard anything (for ``Event/quiet``).
    private struct Progress {
        var isListening = false
        var isInterrupted = false
        var lastEvent: ContinuousClock.Instant
    }

    /// The thread's one loop: connects (through the connection's own reconnect policy), LISTENs
    /// to the followers' channels and waits for notifications, until stopped. A failure is
    /// ``Event/interrupted`` (once, until listening again) and a short pause, then the loop goes on.
    private static func run(url: PostgresURL, policy: PostgresReconnectPolicy, shared: Shared) {
        let clock = ContinuousClock()
        var connection: PostgresConnection?
        var progress: [Follower: Progress] = [:]
        var reconnections = 0
        defer { connection?.close() }
        while !shared.isStopped {
            let subscribers = shared.subscribers
            for follower in progress.keys where subscribers[follower] == nil { progress[follower] = nil }
            for follower in subscribers.keys where progress[follower] == nil { progress[follower] = Progress(lastEvent: clock.now) }
            func tell(_ follower: Follower, _ event: Event) {
                guard let subscriber = subscribers[follower], shared.contains(follower) else { return }
                subscriber.handler(event)
                progress[follower]?.lastEvent = clock.now
                shared.takeWaiting(follower)?.resume()
            }
            do throws(StoreError) {
                let current: PostgresConnection
                if let connection {
                    current = connection
                } else {
                    current = try PostgresConnection(url: url, policy: policy)
                    connection = current
                }
                let channels = Set(subscribers.values.map(\.channel))
                for channel in current.channels where !channels.contains(channel) { try current.unlisten(from: channel) }
                for channel in channels where !current.channels.contains(channel) { try current.listen(to: channel) }
                let wait = subscribers.compactMap { follower, subscriber in
                    subscriber.quietInterval.flatMap { interval in
                        progress[follower].map { clock.now.duration(to: $0.lastEvent + interval) }
                    }
                }.min().map { min(pollInterval, max(.zero, $0)) }
                let received = try current.notifications(waitingUpTo: wait ?? pollInterval)
                guard !shared.isStopped else { return }
                let reconnected = current.reconnections != reconnections
                reconnections = current.reconnections
                for follower in subscribers.keys.sorted(by: { $0.id < $1.id }) {
                    if reconnected, progress[follower]?.isListening == true {
                        tell(follower, .interrupted(reason: "the connection was lost and made again"))
                        progress[follower]?.isListening = false
                    }
                    if progress[follower]?.isListening == false {
                        progress[follower]?.isListening = true
                        progress[follower]?.isInterrupted = false
                        tell(follower, .listening)
                    }
                }
                for notification in received {
                    for (follower, subscriber) in subscribers where subscriber.channel == notification.channel {
                        tell(follower, .notification(notification))
                    }
                }
                for (follower, subscriber) in subscribers {
                    guard let interval = subscriber.quietInterval, let last = progress[follower]?.lastEvent else { continue }
                    if clock.now >= last + interval { tell(follower, .quiet) }
                }
            } catch {
                for follower in subscribers.keys.sorted(by: { $0.id < $1.id }) where progress[follower]?.isInterrupted == false {
                    progress[follower]?.isListening = false
                    progress[follower]?.isInterrupted = true
                    tell(follower, .interrupted(reason: "\(error)"))
                }
                // A refused connection or LISTEN fails at once, so pause rather than spin.
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }
}
