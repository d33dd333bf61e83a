import Foundation
import Mail

/// The relay `.ci/smtp.sh start DIR` started, from the environment: `QUOTEBOOK_TEST_SMTP`
/// (`smtp://USER:PASSWORD@127.0.0.1:PORT CAFILE`) and `QUOTEBOOK_TEST_SMTP_MAILDIR` (DIR, where
/// it keeps each message as NNNN.eml and a line per message in index.jsonl).
struct RealSMTPServer: Sendable {
    let relay: SMTPRelay
    let caFile: String
    let maildir: URL

    /// The relay of this test run, or nil when the environment names none (or names it badly).
    static let current: RealSMTPServer? = {
        let environment = ProcessInfo.processInfo.environment
        guard let line = environment["QUOTEBOOK_TEST_SMTP"], let maildir = environment["QUOTEBOOK_TEST_SMTP_MAILDIR"] else {
            return nil
        }
        let parts = line.split(separator: " ")
        guard parts.count == 2, let relay = try? SMTPRelay(parsing: String(parts[0])) else { return nil }
        return RealSMTPServer(relay: relay, caFile: String(parts[1]), maildir: URL(fileURLWithPath: maildir))
    }()

    /// The stored message whose Message-ID is `id`: its file name and bytes.
    func storedMessage(withID id: String) throws -> (name: String, contents: Data)? {
        let names = try FileManager.default.contentsOfDirectory(atPath: maildir.path).filter { $0.hasSuffix(".eml") && !$0.hasPrefix(".") }
        let header = Data("Message-ID: <\(id)>\r\n".utf8)
        for name in names.sorted() {
            let contents = try Data(contentsOf: maildir.appendingPathComponent(name))
            if contents.range(of: header) != nil { return (name, contents) }
        }
        return nil
    }

    /// What index.jsonl says about the message in `file`.
    func indexEntry(forFile file: String) throws -> IndexEntry? {
        let index = try String(contentsOf: maildir.appendingPathComponent("index.jsonl"), encoding: .utf8)
        return try index.split(separator: "\n").map { try JSONDecoder().decode(IndexEntry.self, from: Data($0.utf8)) }
            .first { $0.file == file }
    }

    struct IndexEntry: Decodable, Equatable {
        let file: String
        let mailFrom: String
        let rcptTos: [String]

        enum CodingKeys: String, CodingKey {
            case file
            case mailFrom = "mail_from"
            case rcptTos = "rcpt_tos"
        }
    }
}
