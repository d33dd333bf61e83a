import Basics

/// The quoted-printable content transfer encoding (RFC 2045 §6.7) of a text body, as 7-bit
/// lines of at most 76 characters ending in CRLF.
///
/// Printable ASCII but `=` stays as it is; `=`, control characters and every byte of a non-ASCII
/// character become `=XX` (rule 1); a space or tab ending a line is encoded too (rule 3), so a
/// relay that strips trailing white space changes nothing; longer lines are broken with a soft
/// line break, `=` at the end of a line (rule 5). Defensively, a `.` that starts a line is
/// written `=2E` (some relays mishandle dot-stuffing, RFC 5321 §4.5.2) and the `F` of a line
/// starting `From ` is written `=46` (mbox readers would take it for a new message).
///
/// The text's line breaks (LF, CRLF or a lone CR) become CRLF. A text that does not end with a
/// line break ends with a soft line break, so decoding gives back exactly the text (with LF
/// line breaks), and the message still ends with the CRLF SMTP needs before its final dot.
enum QuotedPrintable {
    /// The encoded body of `text`; empty for an empty text.
    static func encode(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        let bytes = Array(text.utf8)
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == carriageReturn || byte == lineFeed else {
                index += 1
                continue
            }
            encodeLine(bytes[lineStart..<index], endsText: false, into: &output)
            index += byte == carriageReturn && index + 1 < bytes.count && bytes[index + 1] == lineFeed ? 2 : 1
            lineStart = index
        }
        if lineStart < bytes.count { encodeLine(bytes[lineStart...], endsText: true, into: &output) }
        return output
    }

    /// One line of the text, as one or more encoded lines; with `endsText` its last encoded
    /// line ends with a soft break, since the text has no line break there.
    private static func encodeLine(_ line: ArraySlice<UInt8>, endsText: Bool, into output: inout [UInt8]) {
        var current: [UInt8] = []
        var index = line.startIndex
        while index < line.endIndex {
            let isLastByte = index == line.endIndex - 1
            // Room for the soft break's `=` unless this is the line's last byte (and the line
            // ends with a hard break).
            let room = isLastByte && !endsText ? maximumLineLength : maximumLineLength - 1
            var token = encoded(line, at: index, atLineStart: current.isEmpty)
            if current.count + token.count > room {
                output += current + softBreak
                current = []
                token = encoded(line, at: index, atLineStart: true)
            }
            current += token
            index += 1
        }
        output += current + (endsText ? softBreak : hardBreak)
    }

    /// The byte of `line` at `index` as it is written, literally or as `=XX`.
    private static func encoded(_ line: ArraySlice<UInt8>, at index: Int, atLineStart: Bool) -> [UInt8] {
        let byte = line[index]
        let isLastByte = index == line.endIndex - 1
        switch byte {
        case UInt8(ascii: ".") where atLineStart,
            UInt8(ascii: "F") where atLineStart && line[index...].starts(with: fromSpace),
            UInt8(ascii: " ") where isLastByte,
            UInt8(ascii: "\t") where isLastByte:
            return escaped(byte)
        case UInt8(ascii: " "), UInt8(ascii: "\t"):
            return [byte]
        case UInt8(ascii: "="):
            return escaped(byte)
        case 0x21...0x7E:
            return [byte]
        default:
            return escaped(byte)
        }
    }

    private static func escaped(_ byte: UInt8) -> [UInt8] {
        [UInt8(ascii: "="), Hex.uppercase[Int(byte >> 4)], Hex.uppercase[Int(byte & 0x0F)]]
    }

    /// RFC 2045 §6.7 (5): encoded lines are at most 76 characters, not counting CRLF.
    static let maximumLineLength = 76
    private static let softBreak: [UInt8] = Array("=\r\n".utf8)
    private static let hardBreak: [UInt8] = Array("\r\n".utf8)
    private static let fromSpace: [UInt8] = Array("From ".utf8)
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")
}
