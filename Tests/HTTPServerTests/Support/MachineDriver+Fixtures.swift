@testable import HTTPServer

extension MachineDriver {
    /// When every fixture connection is accepted and brought to its phase.
    static let start: UInt64 = .seconds(1)

    /// A connection accepted at ``start`` and brought to `phase` at that instant:
    /// `head` holds a partial `GET /`; `waitingForBudget` a `POST /upload` head with
    /// `Content-Length: 5` (not granted); `body` the same granted with `he` received;
    /// `responding` has dispatched `GET /`; `streaming` has sent a streamed answer's head;
    /// `closing` holds an unsent `Connection: close` answer; `lingering` has sent it; `closed`
    /// saw the client's FIN while idle.
    static func started(in phase: Machine.Phase, rules: Machine.Rules = .testing()) -> MachineDriver {
        var driver = MachineDriver(rules: rules, now: start)
        switch phase {
        case .idle:
            break
        case .head:
            _ = driver.received("GET / HTTP/1.1\r\nHo", at: start)
        case .waitingForBudget:
            _ = driver.received(Wire.postHead("/upload", length: 5), at: start)
        case .body:
            _ = driver.received(Wire.postHead("/upload", length: 5), at: start)
            _ = driver.bodyGranted(at: start)
            _ = driver.received("he", at: start)
        case .responding:
            _ = driver.received(Wire.get("/"), at: start)
        case .streaming:
            _ = driver.received(Wire.get("/"), at: start)
            _ = driver.respond(.streamed(), at: start)
            _ = driver.flush(at: start)
        case .closing:
            _ = driver.received(Wire.get("/", "Connection: close"), at: start)
            _ = driver.respond(.bytes("a"), at: start)
        case .lingering:
            driver = started(in: .closing, rules: rules)
            _ = driver.flush(at: start)
        case .closed:
            _ = driver.endOfInput(at: start)
        }
        return driver
    }
}

/// Request bytes as a client sends them.
enum Wire {
    /// `GET path HTTP/1.1` with `Host` and `fields`.
    static func get(_ path: String, _ fields: String...) -> String {
        message("GET \(path) HTTP/1.1", ["Host: x"] + fields)
    }

    /// `HEAD path HTTP/1.1` with `Host`.
    static func head(_ path: String) -> String {
        message("HEAD \(path) HTTP/1.1", ["Host: x"])
    }

    /// A `POST` head announcing `length` body bytes, with `Host` and `fields`.
    static func postHead(_ path: String, length: Int, _ fields: String...) -> String {
        message("POST \(path) HTTP/1.1", ["Host: x", "Content-Length: \(length)"] + fields)
    }

    /// A whole `POST` with `body`.
    static func post(_ path: String, body: String) -> String {
        message("POST \(path) HTTP/1.1", ["Host: x", "Content-Length: \(body.utf8.count)"]) + body
    }

    /// `requestLine`, then `fields`, then the empty line.
    static func message(_ requestLine: String, _ fields: [String]) -> String {
        ([requestLine] + fields).map { $0 + "\r\n" }.joined() + "\r\n"
    }
}

extension HTTPResponse {
    /// A response with `body` and no fields of its own.
    static func bytes(_ body: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    /// A response whose body is streamed (the producer never runs in these tests).
    static func streamed(status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, stream: HTTPBodyStream { _ in })
    }
}

extension HTTPConnectionMachine.Rules {
    /// Header 10 s, body read 10 s, idle 60 s, write 30 s, shutdown grace 10 s, the default
    /// lingers (2 s, 50 ms during shutdown), and buffers small enough for short tests. The
    /// body's minimum rate is off unless given (bytes per second, after a 5 s grace), and its
    /// overall deadline is 120 s, so that tests of the other timeouts see only those.
    static func testing(
        limits: HTTPLimits = HTTPLimits(), outputHighWater: Int = 100, inputHighWater: Int = 64,
        streamBufferLimit: Int = 200, bodyMinimumRate: Int = 0
    ) -> HTTPConnectionMachine.Rules {
        var timeouts = HTTPTimeouts()
        timeouts.header = .seconds(10)
        timeouts.bodyRead = .seconds(10)
        timeouts.bodyDeadline = .seconds(120)
        timeouts.bodyMinimumRate = bodyMinimumRate
        timeouts.bodyRateGrace = .seconds(5)
        timeouts.idle = .seconds(60)
        timeouts.write = .seconds(30)
        timeouts.shutdownGrace = .seconds(10)
        return HTTPConnectionMachine.Rules(
            limits: limits, timeouts: timeouts, streamBufferLimit: streamBufferLimit,
            outputHighWater: outputHighWater, inputHighWater: inputHighWater)
    }
}

extension UInt64 {
    /// `count` seconds in nanoseconds, the machine's unit of time.
    static func seconds(_ count: UInt64) -> UInt64 { count * 1_000_000_000 }

    /// `count` milliseconds in nanoseconds.
    static func milliseconds(_ count: UInt64) -> UInt64 { count * 1_000_000 }
}
