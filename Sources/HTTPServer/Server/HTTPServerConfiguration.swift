import Foundation

/// Everything that tunes the server, with the defaults of SPEC.md's "HTTP" section.
package struct HTTPServerConfiguration: Sendable {
    /// Address to bind, numeric IPv4 or IPv6, or `localhost`.
    package var host: String
    /// Port to bind; 0 asks the kernel for a free one (the bound port is reported when listening).
    package var port: Int
    /// Sizes past which requests are refused (413, 414, 431).
    package var limits: HTTPLimits
    /// How long the server waits on clients.
    package var timeouts: HTTPTimeouts
    /// Event-loop threads, each with its own `epoll` instance; default one per core.
    package var eventLoopCount: Int
    /// Where the responder's task runs; see ``ResponderExecution``.
    package var responderExecution: ResponderExecution = .cooperativePool
    /// Pending connections the kernel queues before `accept` (`listen(2)` backlog).
    package var backlog: Int = 4096
    /// Bytes a streamed response (server-sent events) may hold unsent, once in the loop's inbox
    /// and once in the connection's output, before its client is dropped as too slow; see
    /// ``HTTPBodyWriter``.
    package var streamBufferLimit: Int = 256 * 1024
    /// Bytes of request bodies the server holds at once, shared equally by its loops (each
    /// gets at least the largest body limit). A body reserves its declared size before it is
    /// read; one that does not fit waits, unread, and gets 503 with `Retry-After` after the
    /// body-read timeout. The default keeps 200 simultaneous 3 MiB uploads under 150 MB of RSS.
    package var bodyMemoryBudget: Int = 32 * 1024 * 1024
    /// Open connections at once; past it a new connection is accepted and closed at once, so
    /// the listener never backs up and the loops never spin on it. nil (the default): the
    /// process's descriptor limit less ``reservedDescriptors`` (see ``connectionLimit(fileLimit:)``).
    package var maxConnections: Int?
    /// Open connections one client address may hold (trusted proxies excepted).
    package var maxConnectionsPerClient = 256
    /// Event streams open at once; nil (the default): half of the connection limit. Past it, or
    /// past ``maxStreamsPerClient`` for the request's client, a stream is answered 503 with
    /// `Retry-After`.
    package var maxStreams: Int?
    /// Event streams one client address may hold (behind a trusted proxy: the forwarded client).
    package var maxStreamsPerClient = 32
    /// Bytes of its loop's body budget one client address may hold at once; nil (the default):
    /// a quarter of the loop's budget, and at least the largest body limit. Bodies of a client
    /// over its share wait while other clients' bodies go ahead of them.
    package var bodyBudgetPerClient: Int?
    /// Where large uploads are written as they arrive instead of being held in memory; nil
    /// (the default): every body is held in memory, within ``bodyMemoryBudget``.
    package var bodySpool: BodySpool?
    /// Peers whose `X-Forwarded-For` names the client in the access log (a load balancer in
    /// front); from anyone else the header is ignored. Empty by default.
    package var trustedProxies = TrustedProxies()
    /// Where the loops read the time; tests use a ``ManualServerClock``.
    package var clock = HTTPServerClock.monotonic

    /// A configuration with SPEC.md defaults for anything not given.
    package init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        limits: HTTPLimits = HTTPLimits(),
        timeouts: HTTPTimeouts = HTTPTimeouts(),
        eventLoopCount: Int = HTTPServerConfiguration.defaultEventLoopCount
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.timeouts = timeouts
        self.eventLoopCount = max(1, eventLoopCount)
    }

    /// Descriptors kept free of connections for everything else the process opens: the
    /// database and its journal, files, the loops' own. Used when ``maxConnections`` is nil.
    package static func reservedDescriptors(fileLimit: Int) -> Int { min(256, max(16, fileLimit / 8)) }

    /// The connection limit in force with `fileLimit` descriptors (`RLIMIT_NOFILE`).
    package func connectionLimit(fileLimit: Int) -> Int {
        maxConnections ?? max(1, fileLimit - Self.reservedDescriptors(fileLimit: fileLimit))
    }

    /// One loop per online core.
    package static var defaultEventLoopCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
