/// How long the server waits on a client before it gives up on the connection.
package struct HTTPTimeouts: Sendable, Equatable {
    /// From the first byte of a request to the end of its header section (slowloris).
    package var header: Duration = .seconds(10)
    /// Longest wait for the next bytes of a body that has started.
    package var bodyRead: Duration = .seconds(10)
    /// Longest wait between requests on a persistent connection.
    package var idle: Duration = .seconds(60)
    /// Longest wait for a client to accept more response bytes (a client that never reads).
    package var write: Duration = .seconds(30)
    /// How long a graceful shutdown lets requests in flight finish.
    package var shutdownGrace: Duration = .seconds(10)

    /// The defaults of SPEC.md: 10 s header, 10 s body read, 60 s idle, 30 s write, 10 s grace.
    package init() {}
}
