import Foundation
import Synchronization

/// What the scripted relay does with one line the client sent.
enum ScriptedReply: Sendable {
    /// Sends these reply lines (each given without CRLF).
    case reply([String])
    /// Sends these lines, then closes the connection.
    case replyAndClose([String])
    /// Closes the connection without a word.
    case close

    static func reply(_ line: String) -> ScriptedReply { .reply([line]) }
}

/// An SMTP relay in the test process, on 127.0.0.1 and a free port, that serves one connection
/// by a script and records every byte the client sent: the protocol's edge cases (4xx, 5xx,
/// silence, a connection closed mid-DATA) without a real relay.
///
/// Its thread accepts one connection (waiting 10 s at most), sends `greeting` (nil: never says
/// anything), then hands each line the client sends to `respond`; after a 354 reply it collects
/// the data and hands `respond` the single line `.` at its end. It stops when the client closes
/// the connection, after a closing reply, or after 10 s of silence, so no test can leave it
/// running. Thread-safe: the recorded bytes are behind a `Mutex`.
final class ScriptedSMTPServer: Sendable {
    let port: Int
    private let state = Mutex(State())

    private struct State {
        var received: [UInt8] = []
        var isFinished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    init(greeting: String? = "220 scripted.test ESMTP", respond: @escaping @Sendable (String) -> ScriptedReply) throws {
        let (listener, port) = try TestListener.listen()
        self.port = port
        let thread = Thread { [self] in
            serve(listener: listener, greeting: greeting, respond: respond)
            TestListener.close(listener)
            let waiters = state.withLock { state in
                state.isFinished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.start()
    }

    /// Everything the client sent, once the session is over.
    func transcript() async -> String {
        await withCheckedContinuation { continuation in
            let isFinished = state.withLock { state in
                if !state.isFinished { state.waiters.append(continuation) }
                return state.isFinished
            }
            if isFinished { continuation.resume() }
        }
        return state.withLock { String(decoding: $0.received, as: UTF8.self) }
    }

    private func serve(listener: Int32, greeting: String?, respond: @Sendable (String) -> ScriptedReply) {
        guard let connection = TestListener.accept(listener, milliseconds: 10_000) else { return }
        defer { TestListener.close(connection) }
        if let greeting, !TestListener.send(connection, Array((greeting + "\r\n").utf8)) { return }
        var pending: [UInt8] = []
        var isInData = false
        while true {
            guard let bytes = TestListener.read(connection, milliseconds: 10_000) else { return }
            state.withLock { $0.received += bytes }
            pending += bytes
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self).trimmingCharacters(in: ["\r"])
                pending.removeFirst(end + 1)
                if isInData && line != "." { continue }
                isInData = false
                let action = respond(line)
                switch action {
                case .reply(let lines):
                    guard TestListener.send(connection, Self.wire(lines)) else { return }
                    isInData = line.uppercased() == "DATA" && lines.last?.hasPrefix("354") == true
                case .replyAndClose(let lines):
                    _ = TestListener.send(connection, Self.wire(lines))
                    return
                case .close:
                    return
                }
            }
        }
    }

    private static func wire(_ lines: [String]) -> [UInt8] {
        Array(lines.map { $0 + "\r\n" }.joined().utf8)
    }

    /// A well-behaved relay offering `extensions` in its EHLO reply, answering RCPT TO with
    /// `rcpt`, DATA with `data`, and the end of the data with `endOfData`.
    static func relay(
        extensions: [String] = ["8BITMIME"], mail: ScriptedReply = .reply("250 2.1.0 OK"), rcpt: ScriptedReply = .reply("250 2.1.5 OK"),
        data: ScriptedReply = .reply("354 go ahead"), endOfData: ScriptedReply = .reply("250 2.0.0 queued")
    ) -> @Sendable (String) -> ScriptedReply {
        { line in
            switch line.prefix(while: { $0 != " " && $0 != ":" }).uppercased() {
            case "EHLO":
                let lines = ["scripted.test"] + extensions
                return .reply(lines.enumerated().map { "250" + ($0.offset == lines.count - 1 ? " " : "-") + $0.element })
            case "HELO": return .reply("250 scripted.test")
            case "MAIL": return mail
            case "RCPT": return rcpt
            case "DATA": return data
            case ".": return endOfData
            case "QUIT": return .replyAndClose(["221 2.0.0 bye"])
            default: return .reply("502 5.5.2 not scripted")
            }
        }
    }
}
