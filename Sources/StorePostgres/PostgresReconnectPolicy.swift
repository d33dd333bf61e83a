
/// How long a ``PostgresConnection`` keeps trying to (re)connect: attempts separated by pauses
/// that start at ``firstDelay`` and double up to ``maximumDelay``, until the next pause would end
/// past ``budget`` after the first attempt. Then it gives up and throws.
///
/// One attempt can itself take up to libpq's `connect_timeout` (``PostgresConnection`` sets
/// 5 s), so the whole wait is bounded by `budget` plus one attempt.
package struct PostgresReconnectPolicy: Sendable, Equatable {
    package var firstDelay: Duration
    package var maximumDelay: Duration
    package var budget: Duration

    package init(firstDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(2), budget: Duration = .seconds(10)) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.budget = budget
    }

    /// 50 ms doubling to 2 s, for up to 10 s: rides out a database restart or a failover without
    /// holding a request much longer than a load balancer would.
    package static let standard = PostgresReconnectPolicy()

    /// The pause after failed attempt number `attempt` (1 for the first).
    package func delay(afterAttempt attempt: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(1, attempt) {
            guard delay < maximumDelay else { break }
            delay *= 2
        }
        return min(delay, maximumDelay)
    }
}
