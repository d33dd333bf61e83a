import Synchronization

/// What became of queued mail: the counts behind `quotebook_mail_total` (``MetricsRegistry``),
/// fed by the ``MailSender``. Atomics: each delivery counts once, from the one sender task.
package final class MailCounters: Sendable {
    /// Accepted by the relay (or written to the log without `--smtp`).
    private let sent = Atomic<UInt64>(0)
    /// Failed for now and queued again, with a longer pause.
    private let retried = Atomic<UInt64>(0)
    /// Given up: refused for good (5xx), undecodable, or still failing after ``MailRetryPolicy/giveUpAfter``.
    private let failed = Atomic<UInt64>(0)

    package init() {}

    package enum Outcome: String, Sendable, CaseIterable {
        case sent, retried, failed
    }

    package func count(_ outcome: MailCounters.Outcome) {
        switch outcome {
        case .sent: sent.add(1, ordering: .relaxed)
        case .retried: retried.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        }
    }

    package func value(_ outcome: MailCounters.Outcome) -> UInt64 {
        switch outcome {
        case .sent: sent.load(ordering: .relaxed)
        case .retried: retried.load(ordering: .relaxed)
        case .failed: failed.load(ordering: .relaxed)
        }
    }
}
