import Foundation
import TestSupport

/// A raw TCP test client: bytes in, bytes (or parsed responses) out.
///
/// Blocking reads run on a thread of their own, never on the cooperative pool, so a test waiting
/// for the server cannot starve the server's responder tasks (the pool has one thread per
/// core). One client is used by one test task at a time.
final class RawClient {
    let fd: Int32
    var buffer: [UInt8] = []
    private var isOpen = true

    init(port: Int) throws {
        fd = try TestSocket.connect(port: port)
    }

    deinit {
        if isOpen { TestSocket.close(fd) }
    }

    func close() {
        if isOpen { TestSocket.close(fd) }
        isOpen = false
    }

    /// Aborts the connection: the server sees a reset (RST), not an orderly close.
    func reset() {
        if isOpen { TestSocket.resetAndClose(fd) }
        isOpen = false
    }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        _ = TestSocket.send(fd, bytes)
    }

    func shutdownWrite() {
        TestSocket.shutdownWrite(fd)
    }

    /// How long a read waits by default. Generous on purpose: it bounds a test that would
    /// otherwise hang, and proves nothing about speed. Heavy synchronous suites running in
    /// parallel (and ThreadSanitizer) can hold the cooperative pool, where responders run, for
    /// several seconds; 5 s was not always enough there, and under ThreadSanitizer in CI a
    /// whole pass of the server's suites once stood still for over 20 s (33 reads timed out).
    static let patience = Duration.seconds(60)

    /// One read, off the cooperative pool.
    func read(timeout: Duration = RawClient.patience) async -> TestSocket.ReadResult {
        let fd = self.fd
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result = await offPool { TestSocket.read(fd, milliseconds: milliseconds) }
        if case .data(let bytes) = result { buffer.append(contentsOf: bytes) }
        return result
    }

    /// Reads one response; `isHead` says the request was HEAD, so no body follows.
    func readResponse(isHead: Bool = false, timeout: Duration = RawClient.patience) async throws -> RawResponse {
        while true {
            if let response = try RawResponse.parse(&buffer, isHead: isHead) { return response }
            switch await read(timeout: timeout) {
            case .data: continue
            case let other: throw TestSocket.Failure(description: "no complete response: \(other), have \(text(of: buffer))")
            }
        }
    }

    /// Sends `request` and reads its response.
    func exchange(_ request: String) async throws -> RawResponse {
        send(request)
        return try await readResponse(isHead: request.hasPrefix("HEAD "))
    }

    /// Reads until the server closes; returns what arrived (including earlier unread bytes).
    func readToEnd(timeout: Duration = RawClient.patience) async -> (bytes: [UInt8], closed: Bool) {
        while true {
            switch await read(timeout: timeout) {
            case .data: continue
            case .endOfStream, .reset: return (buffer, true)
            case .timedOut, .failed: return (buffer, false)
            }
        }
    }

    /// Whether nothing has arrived (no bytes, no close) at this moment; does not wait.
    func hasNothingToRead() async -> Bool {
        await read(timeout: .zero) == .timedOut
    }

    /// Whether the server closes the connection within `timeout` (no more bytes expected).
    func isClosedByServer(within timeout: Duration = RawClient.patience) async -> Bool {
        await readToEnd(timeout: timeout).closed
    }

    private func text(of bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
    }
}

/// A response as the raw client parsed it.
struct RawResponse: Sendable {
    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func headerCount(_ name: String) -> Int {
        headers.filter { $0.name.lowercased() == name.lowercased() }.count
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// Removes one complete response from the front of `buffer`, or returns nil if incomplete.
    static func parse(_ buffer: inout [UInt8], isHead: Bool) throws -> RawResponse? {
        guard let end = headEnd(in: buffer) else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestSocket.Failure(description: "bad status line \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw TestSocket.Failure(description: "bad field \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
        var length = 0
        if !isHead, status >= 200, status != 204, status != 304 {
            guard let declared = response.header("Content-Length").flatMap(Int.init) else {
                throw TestSocket.Failure(description: "no Content-Length")
            }
            length = declared
        }
        guard buffer.count >= end + 4 + length else { return nil }
        response.body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return response
    }

    private static func headEnd(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        // Heads are short: looking further would make reading a large body quadratic.
        for index in 0...min(buffer.count - 4, 32 * 1024)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
