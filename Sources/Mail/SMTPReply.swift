/// One SMTP reply (RFC 5321 §4.2): a three-digit code and the text of each of its lines.
struct SMTPReply: Equatable {
    /// 200–599; the first digit says success (2), go on (3), try later (4) or give up (5).
    let code: Int
    /// Each line's text after the code and its separator, as ASCII (other bytes replaced).
    let lines: [String]

    /// RFC 5321 §4.5.3.1.5 allows 512 bytes per reply line; relays write longer EHLO lines, so
    /// this allows the 1000 of a text line (§4.5.3.1.6) before calling it a protocol error.
    static let maximumLineLength = 1000
    /// More lines than any relay's EHLO reply; a reply that goes on is a protocol error.
    static let maximumLineCount = 100

    var isSuccess: Bool { (200...299).contains(code) }
    var isTransient: Bool { (400...499).contains(code) }
    var isPermanent: Bool { (500...599).contains(code) }

    /// The code and the text of the first lines, for an error message: printable ASCII only,
    /// at most 300 characters.
    var summary: String {
        let text = ([String(code)] + lines.prefix(3)).joined(separator: " ")
        let printable = String(text.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? Character($0) : "?" })
        return printable.count > 300 ? String(printable.prefix(300)) + "…" : printable
    }

    /// Collects the lines of one reply: `250-first`, `250-second`, `250 last` (or `250` alone).
    struct Parser {
        private var code: Int?
        private var lines: [String] = []

        enum Step: Equatable {
            case needMore
            case reply(SMTPReply)
            case invalid(String)
        }

        /// Adds one line (without CRLF).
        mutating func add(_ line: [UInt8]) -> Step {
            guard line.count >= 3, line.prefix(3).allSatisfy({ (48...57).contains($0) }) else {
                return .invalid("a line that does not start with a three-digit code")
            }
            let lineCode = line.prefix(3).reduce(0) { $0 * 10 + Int($1 - 48) }
            guard (200...599).contains(lineCode), code == nil || code == lineCode else {
                return .invalid("reply code \(lineCode) where \(code.map(String.init) ?? "200–599") was expected")
            }
            code = lineCode
            let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
            guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
                return .invalid("no space or hyphen after the reply code")
            }
            lines.append(String(decoding: line.dropFirst(4).map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self))
            if separator == UInt8(ascii: " ") { return .reply(SMTPReply(code: lineCode, lines: lines)) }
            return lines.count < SMTPReply.maximumLineCount ? .needMore : .invalid("more than \(SMTPReply.maximumLineCount) lines")
        }
    }
}
