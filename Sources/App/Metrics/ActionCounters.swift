import Synchronization

/// How many actions the store applied, by kind, and refused, by kind and reason: the counts
/// behind `quotebook_actions_total`, fed by ``MetricsMiddleware``.
///
/// Ownership: the counts sit in a `Mutex`. Actions arrive one at a time from the store's serial
/// executor and far more rarely than requests, so the lock is contended only by a scrape. A
/// dictionary keeps the set open to action kinds added later, and it stays bounded: kinds and
/// reasons are names of enum cases (`AppAction.kind`, `ActionRejection.kind`), never values.
package final class ActionCounters: Sendable {
    /// What became of an action.
    package enum Outcome: Hashable, Sendable {
        case applied
        /// Refused by the reducer for this reason; nothing was stored.
        case refused(reason: String)
    }

    /// One counter's labels.
    package struct Key: Hashable, Sendable {
        package var kind: String
        package var outcome: Outcome
    }

    private let counts = Mutex<[Key: UInt64]>([:])

    package init() {}

    /// Counts one action of `kind` that ended with `outcome`.
    package func count(_ kind: String, _ outcome: Outcome) {
        counts.withLock { $0[Key(kind: kind, outcome: outcome), default: 0] &+= 1 }
    }

    /// How many actions of `kind` ended with `outcome`.
    package func value(_ kind: String, _ outcome: Outcome) -> UInt64 {
        counts.withLock { $0[Key(kind: kind, outcome: outcome)] ?? 0 }
    }

    /// Every counter, by kind, then applied before refused, then by reason: the order the
    /// exposition prints them in.
    package func all() -> [(key: Key, count: UInt64)] {
        counts.withLock { Array($0) }.map { (key: $0.key, count: $0.value) }.sorted { Self.precedes($0.key, $1.key) }
    }

    private static func precedes(_ left: Key, _ right: Key) -> Bool {
        if left.kind != right.kind { return left.kind < right.kind }
        switch (left.outcome, right.outcome) {
        case (.applied, .applied): return false
        case (.applied, .refused): return true
        case (.refused, .applied): return false
        case (.refused(let a), .refused(let b)): return a < b
        }
    }
}
