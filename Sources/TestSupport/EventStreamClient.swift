import Foundation
import Synchronization

/// A `text/event-stream` client over a real socket for live tests: it sends one GET, reads the
/// response head, then decodes the chunked body into events (WHATWG HTML §9.2.5) as they arrive.
///
/// Reads block, so they run through ``offPool(_:)``; the socket and buffers sit in a `Mutex`,
/// one call at a time.
package final class EventStreamClient: Sendable {
    /// One event, or one comment block (a heartbeat).
    package struct Event: Sendable, Equatable {
        /// The `event:` field; nil for the default type and for comments.
        package var name: String?
        package var id: String?
        /// The `data:` lines joined with line feeds; for a comment, its text.
        package var data: String
        package var isComment: Bool

        /// The data parsed as a JSON object (nil when it is not one).
        package var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any]
        }
    }

    /// How the body ended, as far as the client has read.
    package enum End: Sendable, Equatable {
        /// The last chunk (`0\r\n\r\n`): the server ended the stream in order.
        case lastChunk
        /// The connection closed (or was reset) without a last chunk.
        case closed
    }

    package let status: Int
    package let headers: [(String, String)]
    private let reader: Mutex<EventStreamReader>

    /// Connects to `127.0.0.1:port` and sends `GET target` (or `method`) with `headers`; returns
    /// once the response head has arrived.
    package init(port: Int, target: String, method: String = "GET", headers: [(String, String)] = []) async throws {
        let connected = try EventStreamReader(port: port)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        let (reader, status, fields) = try await offPool {
            var reader = connected
            do {
                guard TestSocket.send(reader.fd, bytes) else {
                    throw SocketClient.Failure(description: "send: the server is gone")
                }
                let (status, fields) = try reader.readHead()
                return (reader, status, fields)
            } catch {
                reader.close()
                throw error
            }
        }
        self.status = status
        self.headers = fields
        self.reader = Mutex(reader)
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The next event or comment, waiting up to `timeout`; nil once the body has ended (see
    /// ``end``). Throws when nothing arrives in time.
    package func next(timeout: Duration = .seconds(10)) async throws -> Event? {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return try await offPool { try self.reader.withLock { try $0.nextEvent(milliseconds: milliseconds) } }
    }

    /// The next event that is not a comment (heartbeats are skipped).
    package func nextEvent(timeout: Duration = .seconds(10)) async throws -> Event? {
        while let event = try await next(timeout: timeout) {
            if !event.isComment { return event }
        }
        return nil
    }

    /// How the body ended; nil while it goes on.
    package var end: End? {
        reader.withLock { $0.end }
    }

    /// Every byte of the body received so far (after de-chunking).
    package var bodyByteCount: Int {
        reader.withLock { $0.bodyBytes }
    }

    /// Reads and drops everything until the body ends or the connection closes; how it ended.
    package func readToEnd(timeout: Duration = .seconds(10)) async throws -> End {
        while try await next(timeout: timeout) != nil {}
        return end ?? .closed
    }

    package func close() {
        reader.withLock { $0.close() }
    }
}

/// The blocking socket and the decoding state under ``EventStreamClient``.
struct EventStreamReader: Sendable {
    private(set) var fd: Int32
    private var raw: [UInt8] = []
    /// De-chunked body text not yet split into events.
    private var text: [UInt8] = []
    private var isChunked = true
    /// Body bytes still expected in the current chunk (nil: a size line comes next).
    private var chunkRemaining: Int?
    private(set) var end: EventStreamClient.End?
    private(set) var bodyBytes = 0

    init(port: Int) throws {
        fd = try TestSocket.connect(port: port)
    }

    mutating func close() {
        if fd >= 0 { TestSocket.close(fd) }
        fd = -1
    }

    /// Reads the status line and fields.
    mutating func readHead() throws -> (Int, [(String, String)]) {
        while true {
            if let end = Self.find([13, 10, 13, 10], in: raw) {
                let head = String(decoding: raw[..<end], as: UTF8.self)
                raw.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, let status = Int(parts[1]) else {
                    throw SocketClient.Failure(description: "bad status line \(statusLine)")
                }
                let fields: [(String, String)] = lines.compactMap { line in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                isChunked = fields.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
                return (status, fields)
            }
            guard try fill(milliseconds: 10_000) else { throw SocketClient.Failure(description: "closed before a response head") }
        }
    }

    /// The next complete event or comment block; nil once the body has ended.
    mutating func nextEvent(milliseconds: Int32) throws -> EventStreamClient.Event? {
        while true {
            decodeBody()
            if let block = Self.find([10, 10], in: text) {
                let lines = String(decoding: text[..<block], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                text.removeFirst(block + 2)
                return Self.event(from: lines)
            }
            if end != nil { return nil }
            guard try fill(milliseconds: milliseconds) else {
                end = .closed
                return nil
            }
        }
    }

    private static func event(from lines: [Substring]) -> EventStreamClient.Event {
        var event = EventStreamClient.Event(name: nil, id: nil, data: "", isComment: true)
        var data: [Substring] = []
        for line in lines {
            if line.hasPrefix(":") {
                if event.isComment { event.data = String(line.dropFirst()).trimmingCharacters(in: .whitespaces) }
                continue
            }
            event.isComment = false
            let (name, value) = line.firstIndex(of: ":").map { colon -> (Substring, Substring) in
                let value = line[line.index(after: colon)...]
                return (line[..<colon], value.hasPrefix(" ") ? value.dropFirst() : value)
            } ?? (line, "")
            switch name {
            case "event": event.name = String(value)
            case "id": event.id = String(value)
            case "data": data.append(value)
            default: break
            }
        }
        if !event.isComment { event.data = data.joined(separator: "\n") }
        return event
    }

    /// Moves what arrived from the chunked framing into ``text``.
    private mutating func decodeBody() {
        guard isChunked else {
            text += raw
            bodyBytes += raw.count
            raw.removeAll()
            return
        }
        while end == nil {
            if let remaining = chunkRemaining {
                guard raw.count >= remaining + 2 else { return }
                text += raw[..<remaining]
                bodyBytes += remaining
                raw.removeFirst(remaining + 2)
                chunkRemaining = nil
            } else {
                guard let lineEnd = Self.find([13, 10], in: raw) else { return }
                let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                raw.removeFirst(lineEnd + 2)
                if size == 0 {
                    end = .lastChunk
                } else {
                    chunkRemaining = size
                }
            }
        }
    }

    /// Reads more bytes; false at end of stream or a reset.
    private mutating func fill(milliseconds: Int32) throws -> Bool {
        guard let bytes = try TestSocket.receive(fd, milliseconds: milliseconds) else { return false }
        raw += bytes
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for index in 0...(bytes.count - needle.count) where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
