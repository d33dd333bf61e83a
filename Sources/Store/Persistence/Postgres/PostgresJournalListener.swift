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
/// stop flag is all it shares. ``stop()`` returns at once; the thread ends within `pollInterval`
/// (or a reconnection's budget), closes its connection and finishes `wake`.
final class PostgresJournalListener: Sendable {
    private let isStopped = Atomic<Bool>(false)

    init(url: PostgresURL, channel: String, pollInterval: Duration, wake: AsyncStream<Void>.Continuation, logger: Logger) {
        let thread = Thread { [self] in
            listen(url: url, channel: channel, pollInterval: pollInterval, wake: wake, logger: logger)
        }
        thread.name = "quotebook.listen"
        thread.start()
    }

    /// Asks the thread to end; it does within `pollInterval`.
    func stop() {
        isStopped.store(true, ordering: .relaxed)
    }

    /// The thread's loop: blocking waits on its own connection, never on the cooperative pool.
    private func listen(
        url: PostgresURL, channel: String, pollInterval: Duration, wake: AsyncStream<Void>.Continuation, logger: Logger
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
                if let connection {
                    listening = connection
                } else {
                    listening = try PostgresConnection(url: url)
                    try listening.listen(to: channel)
                    connection = listening
                    wake.yield()
                }
                // A lost connection throws here, and the next call reconnects and LISTENs again.
                _ = try listening.notifications(waitingUpTo: pollInterval)
                if isFailing {
                    logger.notice("listening to the journal's notifications again")
                    isFailing = false
                }
                wake.yield()
            } catch {
                if !isFailing {
                    logger.warning("not receiving the journal's notifications, retrying: \(error)")
                    isFailing = true
                }
                wake.yield()
                let pause = min(pollInterval, .milliseconds(100)).components
                Thread.sleep(forTimeInterval: Double(pause.seconds) + Double(pause.attoseconds) / 1e18)
            }
        }
    }
}
