import Foundation
import HTTPServer
import Logging

/// The real server on a loopback port (by default a free one, port 0), with an in-memory log,
/// for one test.
struct TestServer {
    let server: HTTPServer
    let port: Int
    let log: InMemoryLogSink
    private let running: Task<Void, Never>

    init(
        responder: any HTTPResponder = EchoResponder(),
        port: Int = 0,
        limits: HTTPLimits = HTTPLimits(),
        timeouts: HTTPTimeouts = HTTPTimeouts(),
        eventLoops: Int = 2,
        execution: ResponderExecution = TestServer.defaultExecution,
        streamBufferLimit: Int = HTTPServerConfiguration().streamBufferLimit
    ) throws {
        var configuration = HTTPServerConfiguration(
            host: "127.0.0.1", port: port, limits: limits, timeouts: timeouts, eventLoopCount: eventLoops)
        configuration.responderExecution = execution
        configuration.streamBufferLimit = streamBufferLimit
        let log = InMemoryLogSink()
        let server = HTTPServer(
            configuration: configuration, responder: responder, logger: Logger(label: "http", level: .debug, sink: log))
        self.port = try server.start()
        self.server = server
        self.log = log
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

    /// Shuts down gracefully and waits for `run()` to return.
    func stop() async {
        await server.shutdown()
        await running.value
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
