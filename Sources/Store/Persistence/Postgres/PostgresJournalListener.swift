import Foundation
import Logging
import Synchronization

/// Wakes a store whenever another process may have appended to its ``PostgresJournal``: a
/// thread of its own holds a connection of its own that LISTENs to the journal's channel, and
/// yields to `wake` after every notification, after (re)connecting, after a failure and every
/// `pollInterval` without any of these. The store then reads every entry after its own newest, so
/// a lost notification (or one sent while the connection was down) costs at most `pollInterval`
/// of latency, never an entry.
///
/// Ownership: the connection is created, used and closed on the listener's thread only; the
/// stop flag is all it shares. ``stop()`` returns at once; the thread ends within
/// ``stopLatency`` (or a reconnection's budget), closes its connection and finishes `wake`.
final class PostgresJournalListener: Sendable {
    /// The longest single wait, so the thread notices ``stop()`` soon.
    private static let stopLatency = Duration.milliseconds(100)

    private let isStopped = Atomic<Bool>(false)

    init(url: PostgresURL, channel: String, pollInterval: Duration, wake: AsyncStream<Int64?>.Continuation, logger: Logger) {
        let thread = Thread { [self] in
            listen(url: url, channel: channel, pollInterval: pollInterval, wake: wake, logger: logger)
        }
        thread.name = "quotebook.listen"
        thread.start()
    }

    /// Asks the thread to end; it does within ``stopLatency``.
    func stop() {
        isStopped.store(true, ordering: .relaxed)
    }

    /// The thread's loop: blocking waits on its own connection, never on the cooperative pool.
    private func listen(
        url: PostgresURL, channel: String, pollInterval: Duration, wake: AsyncStream<Int64?>.Continuation, logger: Logger
    ) {
        var connection: PostgresConnection?
        var isFailing = false
        defer {
            connection?.close()
            wake.finish()
        }
        while !isStopped.load(ordering: .relaxed) {
            do throws(StoreError) {
                let listening: PostgresConnection
                let reconnections: Int
                if let connection {
                    listening = connection
                    reconnections = connection.reconnections
                } else {
                    listening = try PostgresConnection(url: url)
                    try listening.listen(to: channel)
                    connection = listening
                    reconnections = -1
                }
                // Without waiting: a lost connection is re-established here and LISTENs again,
                // and only then is the store woken to read what it may have missed meanwhile.
                var pending = try listening.notifications()
                if listening.reconnections != reconnections {
                    if isFailing { logger.notice("listening to the journal's notifications again") }
                    isFailing = false
                    wake.yield(nil)
                }
                if pending.isEmpty { pending = try waitForNotifications(on: listening, upTo: pollInterval) }
                // The newest head announced, or nil after a quiet poll interval: read anyway.
                wake.yield(pending.compactMap { Int64($0.payload) }.max())
            } catch {
                if !isFailing {
                    logger.warning("not receiving the journal's notifications, retrying: \(error)")
                    isFailing = true
                }
                wake.yield(nil)
                let pause = min(pollInterval, .milliseconds(100)).components
                Thread.sleep(forTimeInterval: Double(pause.seconds) + Double(pause.attoseconds) / 1e18)
            }
        }
    }

    /// Returns the notifications once some arrive, or none when `timeout` passes or ``stop()`` is
    /// called, waiting in slices of ``stopLatency``.
    ///
    /// - Throws: ``StoreError/postgresConnectionLost(operation:message:)`` when the connection
    ///   dropped; the next call on it reconnects.
    private func waitForNotifications(
        on connection: PostgresConnection, upTo timeout: Duration
    ) throws(StoreError) -> [PostgresNotification] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !isStopped.load(ordering: .relaxed) {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return [] }
            let arrived = try connection.notifications(waitingUpTo: min(remaining, Self.stopLatency))
            if !arrived.isEmpty { return arrived }
        }
        return []
    }
}
