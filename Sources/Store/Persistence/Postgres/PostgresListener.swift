import Foundation
import Synchronization

/// Follows NOTIFY channels (https://www.postgresql.org/docs/15/sql-listen.html) on a connection
/// and a thread of its own, and hands each notification to a handler, with word of every lost
/// connection: notifications sent while it was down are gone, so whoever follows must reload
/// (or forget) what it mirrors. Both followers of the database use it: the account storage
/// (session deletions) and the journal (appends by other instances, with ``Event/quiet`` as the
/// cue to poll).
///
/// Ownership: the thread creates, uses and closes the ``PostgresConnection``; nothing else
/// touches it. The thread waits in `poll` for at most ``pollInterval`` at a time, so it never
/// holds a cooperative-pool thread, and notices ``stop()`` (or the listener's release) within
/// that interval, or, while the server is away, after the reconnection budget.
package final class PostgresListener: Sendable {
    /// What the handler hears, in order, on the listener's thread.
    package enum Event: Sendable, Equatable {
        /// LISTENing, at the start or again after ``interrupted``, on a new connection:
        /// notifications arrive from now on; any sent in between were lost.
        case listening
        /// The connection was lost (or could not be made), for `reason`: notifications go
        /// unheard until ``listening``.
        case interrupted(reason: String)
        case notification(PostgresNotification)
        /// No event for the listener's quiet interval: a follower that cannot afford to miss
        /// anything reads what it follows anyway.
        case quiet
    }

    /// How long one wait for notifications lasts before the thread checks whether to stop.
    package static let pollInterval: Duration = .milliseconds(100)

    private let stopFlag: StopFlag

    private init(stopFlag: StopFlag) {
        self.stopFlag = stopFlag
    }

    deinit {
        stopFlag.stop()
    }

    /// Starts a thread that connects to `url`, LISTENs to `channels` and then calls `handler`
    /// with every ``Event``; returns once it listens.
    ///
    /// - Throws: what connecting or the first LISTEN threw (the thread has ended then).
    package static func start(
        url: PostgresURL, channels: [String], policy: PostgresReconnectPolicy = .standard, quietInterval: Duration? = nil,
        handler: @escaping @Sendable (Event) -> Void
    ) async throws(StoreError) -> PostgresListener {
        let stopFlag = StopFlag()
        let started: Result<Void, StoreError> = await withCheckedContinuation { continuation in
            Thread {
                let connection: PostgresConnection
                do throws(StoreError) {
                    connection = try listeningConnection(url: url, channels: channels, policy: policy)
                } catch {
                    continuation.resume(returning: .failure(error))
                    return
                }
                continuation.resume(returning: .success(()))
                follow(connection, until: stopFlag, quietInterval: quietInterval, handler: handler)
                connection.close()
            }.start()
        }
        try started.get()
        return PostgresListener(stopFlag: stopFlag)
    }

    /// Starts a thread that keeps trying to connect to `url` and LISTEN to `channels` (each
    /// failure is an ``Event/interrupted``, the success ``Event/listening``), then calls `handler`
    /// with every event, as ``start(url:channels:policy:quietInterval:handler:)`` does; returns
    /// at once. For a follower that must start while the database is away.
    package static func begin(
        url: PostgresURL, channels: [String], policy: PostgresReconnectPolicy = .standard, quietInterval: Duration? = nil,
        handler: @escaping @Sendable (Event) -> Void
    ) -> PostgresListener {
        let stopFlag = StopFlag()
        let thread = Thread {
            var isInterrupted = false
            while !stopFlag.isStopped {
                do throws(StoreError) {
                    let connection = try listeningConnection(url: url, channels: channels, policy: policy)
                    handler(.listening)
                    follow(connection, until: stopFlag, quietInterval: quietInterval, handler: handler)
                    connection.close()
                    return
                } catch {
                    if !isInterrupted, !stopFlag.isStopped { handler(.interrupted(reason: "\(error)")) }
                    isInterrupted = true
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
        }
        thread.name = "quotebook.listen"
        thread.start()
        return PostgresListener(stopFlag: stopFlag)
    }

    /// Ends the thread (within ``pollInterval`` while connected) and its connection; no event
    /// comes after the one being delivered.
    package func stop() {
        stopFlag.stop()
    }

    private static func listeningConnection(
        url: PostgresURL, channels: [String], policy: PostgresReconnectPolicy
    ) throws(StoreError) -> PostgresConnection {
        let connection = try PostgresConnection(url: url, policy: policy)
        do {
            for channel in channels { try connection.listen(to: channel) }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// The thread's loop: waits for notifications, reconnecting (through the connection's own
    /// policy) after losing the server, until stopped; says ``Event/quiet`` after every
    /// `quietInterval` without an event, when one is given.
    private static func follow(
        _ connection: PostgresConnection, until stopFlag: StopFlag, quietInterval: Duration?, handler: (Event) -> Void
    ) {
        let clock = ContinuousClock()
        var lastEvent = clock.now
        var isListening = true
        while !stopFlag.isStopped {
            let reconnections = connection.reconnections
            do throws(StoreError) {
                let wait = quietInterval.map { min(pollInterval, max(.zero, clock.now.duration(to: lastEvent + $0))) }
                let received = try connection.notifications(waitingUpTo: wait ?? pollInterval)
                guard !stopFlag.isStopped else { return }
                if connection.reconnections != reconnections || !isListening {
                    if isListening { handler(.interrupted(reason: "the connection was lost and made again")) }
                    isListening = true
                    handler(.listening)
                    lastEvent = clock.now
                }
                for notification in received { handler(.notification(notification)) }
                if !received.isEmpty { lastEvent = clock.now }
                if let quietInterval, clock.now >= lastEvent + quietInterval {
                    handler(.quiet)
                    lastEvent = clock.now
                }
            } catch {
                if isListening, !stopFlag.isStopped { handler(.interrupted(reason: "\(error)")) }
                isListening = false
                lastEvent = clock.now
                // A refused LISTEN fails at once, so pause rather than spin.
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }
}

/// Set once to end a listener's thread; shared by the listener and its thread.
private final class StopFlag: Sendable {
    private let value = Atomic(false)

    var isStopped: Bool { value.load(ordering: .acquiring) }

    func stop() {
        value.store(true, ordering: .releasing)
    }
}
