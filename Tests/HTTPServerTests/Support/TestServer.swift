import Foundation
import HTTPServer
import Logging
import Synchronization
import Testing

/// The real server on a loopback port (by default a free one, port 0), with an in-memory log,
/// for one test.
struct TestServer {
    let server: HTTPServer
    let port: Int
    let log: InMemoryLogSink
    /// The loops' clock when the test moves time itself.
    let clock: ManualServerClock?
    private let running: Task<Void, Never>

    init(
        responder: any HTTPResponder = EchoResponder(),
        port: Int = 0,
        limits: HTTPLimits = HTTPLimits(),
        timeouts: HTTPTimeouts = HTTPTimeouts(),
        eventLoops: Int = 2,
        execution: ResponderExecution = TestServer.defaultExecution,
        streamBufferLimit: Int = HTTPServerConfiguration().streamBufferLimit,
        bodyMemoryBudget: Int = HTTPServerConfiguration().bodyMemoryBudget,
        clock: ManualServerClock? = nil,
        trustedProxies: TrustedProxies = TrustedProxies(),
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = HTTPServerConfiguration(
            host: "127.0.0.1", port: port, limits: limits, timeouts: timeouts, eventLoopCount: eventLoops)
        configuration.responderExecution = execution
        configuration.streamBufferLimit = streamBufferLimit
        configuration.bodyMemoryBudget = bodyMemoryBudget
        configuration.trustedProxies = trustedProxies
        if let clock { configuration.clock = .manual(clock) }
        configure(&configuration)
        let log = InMemoryLogSink()
        let server = HTTPServer(
            configuration: configuration, responder: responder, logger: Logger(label: "http", level: .debug, sink: log))
        self.port = try server.start()
        self.server = server
        self.log = log
        self.clock = clock
        running = Task { await server.run() }
    }

    /// `HTTP_TEST_RESPONDER_EXECUTION=eventLoop` runs every live test with the responder on the
    /// loop threads instead of the cooperative pool.
    static var defaultExecution: ResponderExecution {
        ProcessInfo.processInfo.environment["HTTP_TEST_RESPONDER_EXECUTION"] == "eventLoop" ? .eventLoop : .cooperativePool
    }

    func connect() throws -> RawClient {
        try RawClient(port: port)
    }

    /// Shuts down gracefully and waits for `run()` to return. With a manual clock, time moves
    /// on a second at a time until it has, so lingering closes and the grace period can end.
    func stop() async {
        guard let clock else {
            await server.shutdown()
            await running.value
            return
        }
        let isStopped = Mutex(false)
        let stopping = Task { [server] in
            await server.shutdown()
            isStopped.withLock { $0 = true }
        }
        for _ in 0..<60 where !isStopped.withLock({ $0 }) {
            await clock.advance(by: .seconds(1))
        }
        await stopping.value
        await running.value
    }

    /// Starts a graceful shutdown and returns it once the loop has begun it, which `probe`
    /// (an idle keep-alive connection) shows by being closed. Only for a one-loop server
    /// (`eventLoops: 1`), where the probe's loop is every connection's: with a manual clock
    /// that has not moved since, the grace period then ends exactly `shutdownGrace` from now.
    func beginShutdown(probe: RawClient) async -> ShutdownInProgress {
        let shutdown = ShutdownInProgress(server)
        #expect(await probe.isClosedByServer(), "the loop has not begun the shutdown")
        return shutdown
    }
}

/// A graceful ``HTTPServer/shutdown()`` running in a task.
struct ShutdownInProgress {
    private let returned = Counter()

    init(_ server: HTTPServer) {
        Task { [returned] in
            await server.shutdown()
            returned.increment()
        }
    }

    /// Whether `shutdown()`, which returns when `run()` does, has returned.
    var hasReturned: Bool { returned.current > 0 }

    /// Whether `shutdown()` returns within `limit` of real time: a bound, so a failing test
    /// ends instead of hanging, not a measurement.
    func returns(within limit: Duration = RawClient.patience) async throws -> Bool {
        try await returned.wait(until: 1, limit: limit)
        return hasReturned
    }
}

/// Answers with a text description of the request it received.
struct EchoResponder: HTTPResponder {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        return .text(
            "\(request.method) \(request.path) query=\(request.query ?? "-") version=\(request.version) "
                + "host=\(request.headers["Host"] ?? "-") body=\(body)")
    }
}

/// Answers with whatever its closure returns.
struct ClosureResponder: HTTPResponder {
    let body: @Sendable (HTTPRequest) async -> HTTPResponse

    init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.body = body
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await body(request)
    }
}

extension HTTPTimeouts {
    /// The defaults with no minimum body rate: for tests of the pause between body bytes and of
    /// the body budget, which trickle on purpose.
    static var withoutBodyMinimumRate: HTTPTimeouts {
        var timeouts = HTTPTimeouts()
        timeouts.bodyMinimumRate = 0
        return timeouts
    }
}
