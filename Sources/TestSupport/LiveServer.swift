package import HTTPServer
import Logging

/// The real HTTP server bound to a free loopback port in the test process, serving `responder`.
package struct LiveServer: Sendable {
    package let server: HTTPServer
    package let port: Int
    private let running: Task<Void, Never>

    package init(responder: any HTTPResponder, configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0)) throws {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, responder: responder, logger: .discarding())
        port = try server.start()
        self.server = server
        running = Task { await server.run() }
    }

    /// A new connection to the server.
    package func connect() throws -> SocketClient {
        try SocketClient(port: port)
    }

    /// Stops gracefully and waits until the server has finished.
    package func stop() async {
        await server.shutdown()
        await running.value
    }
}
