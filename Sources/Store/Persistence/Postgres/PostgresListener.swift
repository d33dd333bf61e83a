import Foundation
import Synchronization

/// Follows NOTIFY channels (https://www.postgresql.org/docs/15/sql-listen.html) on a connection
/// and a thread of its own, and hands each notification to a handler, with word of every lost
/// connection: notifications sent while it was down are gone, so whoever follows must reload
/// (or forget) what it mirrors.
///
/// Ownership: the thread creates, uses and closes the ``PostgresConnection``; nothing else
/// touches it. The thread waits in `poll` for at most ``pollInterval`` at a time, so it never
/// holds a cooperative-pool thread, and notices ``stop()`` (or the listener's release) within
/// that interval, or, while the server is away, after the reconnection budget.
package final class PostgresListener: Sendable {
    /// What the handler hears, in order, on the listener's thread.
    package enum Event: Sendable, Equatable {
        /// LISTENing again after ``interrupted``, on a new connection: notifications arrive from
        /// now on; any sent in between were lost.
        case listening
        /// The connection was lost: notifications go unheard until ``listening``.
        case interrupted
        case notification(PostgresNotification)
    }

    /// How long one wait for notifications lasts before the thread checks whether to stop.
    package static let pollInterval: Duration = .milliseconds(200)

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
        url: PostgresURL, channels: [String], policy: PostgresReconnectPolicy = .standard,
        handler: @escaping @Sendable (Event) -> Void
    ) async throws(StoreError) -> PostgresListener {
        let stopFlag = StopFlag()
        let started: Result<Void, StoreError> = await withCheckedContinuation { continuation in
            Thread {
                let connection: PostgresConnection
                do throws(StoreError) {
                    connection = try PostgresConnection(url: url, policy: policy)
                    for channel in channels { try connection.listen(to: channel) }
                } catch {
                    continuation.resume(returning: .failure(error))
                    return
                }
                continuation.resume(returning: .success(()))
                follow(connection, until: stopFlag, handler: handler)
                connection.close()
            }.start()
        }
        try started.get()
        return PostgresListener(stopFlag: stopFlag)
    }

    /// Ends the thread (within ``pollInterval`` while connected) and its connection; no event
    /// comes after the one being delivered.
    package func stop() {
        stopFlag.stop()
    }

    /// The thread's loop: waits for notifications, reconnecting (through the connection's own
    /// policy) after losing the server, until stopped.
    private static func follow(_ connection: PostgresConnection, until stopFlag: StopFlag, handler: (Event) -> Void) {
        var isListening = true
        while !stopFlag.isStopped {
            let reconnections = connection.reconnections
            do throws(StoreError) {
                let received = try connection.notifications(waitingUpTo: pollInterval)
                guard !stopFlag.isStopped else { return }
                if connection.reconnections != reconnections || !isListening {
                    if isListening { handler(.interrupted) }
                    isListening = true
                    handler(.listening)
                }
                for notification in received { handler(.notification(notification)) }
            } catch {
                if isListening, !stopFlag.isStopped { handler(.interrupted) }
                isListening = false
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
