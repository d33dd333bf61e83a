import Foundation

/// A formatted message read back the way a mail reader would, written independently of the code
/// under test: the header block unfolded (RFC 5322 §2.2.3), encoded words decoded (RFC 2047),
/// the quoted-printable body decoded by the rules of Python's `quopri` (RFC 2045 §6.7).
struct ParsedMail {
    /// Each header's name and unfolded raw value, in order.
    let headers: [(name: String, value: String)]
    /// The header block's physical lines, before unfolding.
    let headerLines: [String]
    /// The body as sent (still encoded).
    let body: [UInt8]

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    init(_ bytes: [UInt8]) throws {
        let separator = Array("\r\n\r\n".utf8)
        guard let split = (0...(bytes.count - separator.count)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) }) else {
            throw Malformed(description: "no blank line after the headers")
        }
        headerLines = String(decoding: bytes[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        body = Array(bytes[(split + 4)...])
        var headers: [(name: String, value: String)] = []
        for line in headerLines {
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                guard !headers.isEmpty else { throw Malformed(description: "a continuation line first") }
                headers[headers.count - 1].value += line
            } else {
                guard let colon = line.firstIndex(of: ":") else { throw Malformed(description: "a header line without a colon: \(line)") }
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        self.headers = headers
    }

    /// The unfolded raw value of the one header called `name`; nil when absent.
    func value(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `name`'s value with its encoded words decoded.
    func decoded(_ name: String) -> String? {
        value(name).map(Self.decodeWords)
    }

    /// The body decoded from quoted-printable as UTF-8 text with LF line breaks.
    var text: String {
        String(decoding: Self.decodeQuotedPrintable(body), as: UTF8.self)
    }

    /// RFC 2047 §6.2: each `=?charset?B|Q?text?=` decoded; white space between two encoded
    /// words dropped, other white space kept.
    static func decodeWords(_ value: String) -> String {
        var output = ""
        var previousWasEncoded = false
        for (index, token) in value.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if let decoded = decodeWord(String(token)) {
                if index > 0 && !previousWasEncoded { output += " " }
                output += decoded
                previousWasEncoded = true
            } else {
                if index > 0 { output += " " }
                output += token
                previousWasEncoded = false
            }
        }
        return output
    }

    private static func decodeWord(_ token: String) -> String? {
        let parts = token.split(separator: "?", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "=", parts[4] == "=", parts[1].lowercased() == "utf-8" else { return nil }
        switch parts[2].uppercased() {
        case "B":
            guard let data = Data(base64Encoded: String(parts[3])) else { return nil }
            return String(decoding: data, as: UTF8.self)
        case "Q":
            let bytes = Array(parts[3].replacingOccurrences(of: "_", with: " ").utf8)
            return String(decoding: decodeEscapes(bytes[...]), as: UTF8.self)
        default:
            return nil
        }
    }

    /// Python's `quopri.decodestring`: per line, trailing white space dropped; a final `=` is a
    /// soft break (no line break); `=XX` is a byte; every other byte is itself.
    static func decodeQuotedPrintable(_ body: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for var line in lines {
            while let last = line.last, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(last) {
                line = line.dropLast()
            }
            if line.last == UInt8(ascii: "=") {
                output += decodeEscapes(line.dropLast())
            } else {
                output += decodeEscapes(line)
                output.append(UInt8(ascii: "\n"))
            }
        }
        return output
    }

    private static func decodeEscapes(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let digits = bytes[index...].dropFirst().prefix(2)
            if bytes[index] == UInt8(ascii: "="), digits.count == 2, digits.allSatisfy({ $0.isHexDigit }),
                let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16)
            {
                output.append(value)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}
