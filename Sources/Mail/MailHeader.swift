import Foundation

/// Header lines from untrusted text: control characters removed, non-ASCII as RFC 2047 encoded
/// words, folded (RFC 5322 §2.2.3) so no line passes 78 characters.
///
/// Text comes in as whitespace-separated tokens that are never split; folding puts a CRLF and
/// a space between two of them, which unfolding turns back into the one space that was there.
enum MailHeader {
    /// The most characters on a header line, CRLF not counted (RFC 5322 §2.1.1's SHOULD).
    static let lineLimit = 78

    /// `Name: token token…`, folded before a token that would pass ``lineLimit``. A token
    /// longer than a line (a long address) gets a line of its own.
    static func folded(name: String, tokens: [String]) -> String {
        var lines = [name + ":"]
        for token in tokens {
            let current = lines[lines.count - 1]
            let fits = current.utf8.count + 1 + token.utf8.count <= lineLimit
            // A token too long for any line goes on the first one rather than leave it empty.
            let fitsNowhere = lines.count == 1 && current == name + ":" && token.utf8.count > lineLimit - 1
            if fits || fitsNowhere {
                lines[lines.count - 1] = current + " " + token
            } else {
                lines.append(" " + token)
            }
        }
        return lines.joined(separator: "\r\n")
    }

    /// RFC 5322 §3.2.5 `unstructured` text (a subject): its words, or encoded words when it is
    /// not plain printable ASCII, holds something that looks like an encoded word (which a
    /// reader would decode), or has a word too long to fold.
    static func unstructuredTokens(_ text: String) -> [String] {
        let words = sanitized(text)
        if words.allSatisfy({ isPlain($0) && $0.utf8.count <= lineLimit - 1 && !$0.contains("=?") }) { return words }
        return encodedWords(words.joined(separator: " "))
    }

    /// RFC 5322 §3.2.5 `phrase` (a display name): its words when they are all `atext`, one
    /// quoted string when it is other printable ASCII that fits a line, else encoded words.
    static func phraseTokens(_ text: String) -> [String] {
        let words = sanitized(text)
        guard !words.isEmpty else { return [] }
        if words.allSatisfy({ $0.utf8.allSatisfy(isAtext) && $0.utf8.count <= lineLimit - 1 && !$0.contains("=?") }) {
            return words
        }
        let joined = words.joined(separator: " ")
        if isPlain(joined) && !joined.contains("=?") {
            let quoted = "\"" + joined.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            if quoted.utf8.count <= lineLimit - 1 { return [quoted] }
        }
        return encodedWords(joined)
    }

    /// RFC 2047 §4.1 "B" encoded words of the UTF-8 of `text`, each whole characters (never a
    /// split UTF-8 sequence, §5 (3)) and at most 68 characters, so that even the first one fits
    /// after `Subject: ` within ``lineLimit`` (the limit per word is 75, §2). A reader joins
    /// adjacent encoded words and drops the white space between them (§6.2).
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > maximumBytesPerWord {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(encodedWord(chunk)) }
        return words
    }

    /// 42 bytes are 56 base64 characters, a 68-character word with `=?utf-8?B?` and `?=`.
    private static let maximumBytesPerWord = 42

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?utf-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// The words of `text` once every control character (C0, DEL, C1) and every other kind of
    /// white space (tabs, Unicode line and paragraph separators, no-break spaces) is a space:
    /// split on spaces, so runs of them become one and nothing leads or trails.
    static func sanitized(_ text: String) -> [String] {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
        return cleaned.split(whereSeparator: { $0 == " " }).map(String.init)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
            || scalar.properties.isWhitespace
    }

    /// Printable ASCII (space through tilde).
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// RFC 5322 §3.2.3 `atext`.
    private static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            atextSymbols.contains(byte)
        }
    }

    private static let atextSymbols = Array("!#$%&'*+-/=?^_`{|}~".utf8)
}
