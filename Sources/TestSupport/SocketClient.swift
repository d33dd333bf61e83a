import Foundation
import Synchronization

/// A TCP client on loopback for live tests: raw bytes in, parsed responses out.
///
/// Its socket calls block, so the async methods run them through ``offPool(_:)`` rather than
/// on the cooperative pool, where they could starve the in-process server the test talks to.
/// The socket and read buffer sit in a `Mutex`, one call at a time.
package final class SocketClient: Sendable {
    private let connection: Mutex<BlockingConnection>

    /// Why a client call failed.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Connects to `127.0.0.1:port`; reads time out after `timeout` seconds.
    package init(port: Int, timeout: Int = defaultTimeout) throws {
        connection = Mutex(try BlockingConnection(port: port, timeout: timeout))
    }

    /// How long a read waits by default: 10 s, or 30 s under ThreadSanitizer, whose runtime
    /// slows every instrumented process several times over (the whole suite, the quotebook
    /// processes some tests start, and password hashes all share two cores there). It bounds a
    /// wait for an answer, not how fast the answer must be: no test asserts speed through it.
    package static let defaultTimeout = Sanitizers.isThreadSanitizerActive ? 30 : 10

    /// Writes all of `bytes`.
    package func send(_ bytes: [UInt8]) async throws {
        try await withConnection { try $0.send(bytes) }
    }

    package func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Reads one response; `isHead` says the request was HEAD, so no body follows.
    package func readResponse(isHead: Bool = false) async throws -> ClientResponse {
        try await withConnection { try $0.readResponse(isHead: isHead) }
    }

    /// Sends `request` text and reads its response.
    package func exchange(_ request: String) async throws -> ClientResponse {
        try await send(request)
        return try await readResponse(isHead: request.hasPrefix("HEAD "))
    }

    /// True when the server has closed the connection (reads end of stream) and nothing is left.
    package func isClosedByPeer() async throws -> Bool {
        try await withConnection { try $0.isClosedByPeer() }
    }

    package func close() {
        connection.withLock { $0.close() }
    }

    /// Sends `request` on a new connection to `port`, reads one response and closes.
    package static func exchangeOnce(port: Int, _ request: [UInt8]) async throws -> ClientResponse {
        let client = try SocketClient(port: port)
        defer { client.close() }
        try await client.send(request)
        return try await client.readResponse()
    }

    /// Sends each of `requests` at once, each on a connection of its own (``exchangeOnce``), and
    /// returns their statuses in the order they answered.
    package static func statusesAtOnce(port: Int, _ requests: [[UInt8]]) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for request in requests { group.addTask { try await exchangeOnce(port: port, request).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
    }

    private func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (inout BlockingConnection) throws -> T
    ) async throws -> T {
        try await offPool { try self.connection.withLock { try body(&$0) } }
    }
}

/// The blocking socket under ``SocketClient``.
struct BlockingConnection: ~Copyable {
    private var fd: Int32
    private let timeoutMilliseconds: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Int) throws {
        do {
            fd = try TestSocket.connect(port: port)
        } catch {
            throw SocketClient.Failure(description: "\(error)")
        }
        timeoutMilliseconds = Int32(clamping: timeout * 1000)
    }

    deinit {
        if fd >= 0 { TestSocket.close(fd) }
    }

    mutating func close() {
        if fd >= 0 { TestSocket.close(fd) }
        fd = -1
    }

    func send(_ bytes: [UInt8]) throws {
        guard TestSocket.send(fd, bytes) else { throw SocketClient.Failure(description: "send: the peer is gone") }
    }

    mutating func readResponse(isHead: Bool) throws -> ClientResponse {
        let headEnd = try readUntilHeadEnd()
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw SocketClient.Failure(description: "bad status line \(statusLine)") }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = ClientResponse(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length { guard try fill() else { throw SocketClient.Failure(description: "closed mid-body") } }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer.removeAll()
        }
        return response
    }

    mutating func isClosedByPeer() throws -> Bool {
        guard buffer.isEmpty else { return false }
        return try !fill()
    }

    private mutating func readUntilHeadEnd() throws -> Int {
        while true {
            if let end = findHeadEnd() { return end }
            guard try fill() else { throw SocketClient.Failure(description: "connection closed before a response") }
        }
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Reads more bytes; false at end of stream (or a reset).
    private mutating func fill() throws -> Bool {
        guard let bytes = try TestSocket.receive(fd, milliseconds: timeoutMilliseconds) else { return false }
        buffer.append(contentsOf: bytes)
        return true
    }
}

extension TestSocket {
    /// One read by a client that expects more: the bytes, or nil at end of stream (or a reset).
    /// - Throws: when nothing arrives within `milliseconds`, or `recv` fails.
    static func receive(_ fd: Int32, milliseconds: Int32) throws(SocketClient.Failure) -> [UInt8]? {
        switch read(fd, milliseconds: milliseconds) {
        case .data(let bytes): return bytes
        case .endOfStream, .reset: return nil
        case .timedOut: throw SocketClient.Failure(description: "no answer within \(milliseconds) ms")
        case .failed(let code): throw SocketClient.Failure(description: "recv: errno \(code)")
        }
    }
}

/// A response as a test client read it.
package struct ClientResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: [UInt8]

    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    package var text: String { String(decoding: body, as: UTF8.self) }
}
