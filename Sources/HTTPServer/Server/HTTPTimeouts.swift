/// How long the server waits on a client before it gives up on the connection.
package struct HTTPTimeouts: Sendable, Equatable {
    /// From the first byte of a request to the end of its header section (slowloris).
    package var header: Duration = .seconds(10)
    /// Longest wait for the next bytes of a body that has started.
    package var bodyRead: Duration = .seconds(10)
    /// Longest a whole body may take to arrive once the server starts reading it (Go's
    /// `ReadTimeout`, HAProxy's `timeout http-request` for the body): else 408.
    package var bodyDeadline: Duration = .seconds(120)
    /// Bytes per second a body must average after ``bodyRateGrace`` (Apache's `mod_reqtimeout`
    /// `MinRate`): a client that trickles is cut off with 408. 0 turns the minimum off.
    package var bodyMinimumRate = 1024
    /// How long a body may start slowly before ``bodyMinimumRate`` applies: as long as the
    /// pause ``bodyRead`` allows, so that the rate is never stricter than the pause at the start.
    package var bodyRateGrace: Duration = .seconds(10)
    /// Longest wait between requests on a persistent connection.
    package var idle: Duration = .seconds(60)
    /// Longest wait for a client to accept more response bytes (a client that never reads).
    package var write: Duration = .seconds(30)
    /// How long a graceful shutdown lets requests in flight finish.
    package var shutdownGrace: Duration = .seconds(10)

    /// The defaults of SPEC.md: 10 s header, 10 s body read, 60 s idle, 30 s write, 10 s grace;
    /// a body within 120 s at 1 KiB/s on average after its first 10 s.
    package init() {}
}
