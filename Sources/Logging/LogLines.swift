import Basics

/// Lines at one level from one component, formatted straight into bytes and handed to the sink
/// together: an event loop's access lines, written once per turn of the loop (one `write(2)` for
/// every request the turn answered) rather than once per request, with no `String` per line.
///
/// The bytes are complete lines in the format ``StandardErrorLogSink`` writes
/// (`level [label] message\n`), so that sink writes them as they are; any other sink gets them
/// back as records (``messages``).
package struct LogLines: Sendable {
    package let level: LogLevel
    package let label: String
    /// `level [label] `, the start of every line.
    private let prefix: [UInt8]
    /// Complete lines, each ending in a newline (a line being built has no newline yet).
    package private(set) var bytes: [UInt8] = []

    package init(level: LogLevel, label: String) {
        self.level = level
        self.label = label
        prefix = Array(LogRecord.linePrefix(level: level, label: label).utf8)
        bytes.reserveCapacity(4096)
    }

    package var isEmpty: Bool { bytes.isEmpty }

    /// Starts a line: ``append(_:)-(String)`` and the other appends then add its message, and
    /// ``endLine()`` ends it.
    package mutating func startLine() {
        prefix.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    package mutating func endLine() { bytes.append(UInt8(ascii: "\n")) }

    /// The text's UTF-8, read in place (appending `text.utf8` as a sequence retained and
    /// released the string twice an append: about 40 calls an access line, counted).
    package mutating func append(_ text: String) {
        text.withUTF8InPlace { bytes.append(contentsOf: $0) }
    }

    /// A piece of the line's own wording (`" "`, `"ms"`): bytes from the binary, no string.
    package mutating func append(literal text: StaticString) {
        bytes.append(literal: text)
    }

    /// A non-negative number in decimal (a negative one as 0: nothing logged is below zero).
    package mutating func append(_ number: Int) {
        DecimalDigits.append(number, to: &bytes)
    }

    /// `number` with at least `width` digits, zeros in front (`7` at width 3 is `007`).
    package mutating func append(_ number: Int, width: Int) {
        var digits = 1
        var rest = max(0, number) / 10
        while rest > 0 { digits += 1; rest /= 10 }
        for _ in digits..<max(digits, width) { bytes.append(UInt8(ascii: "0")) }
        append(number)
    }

    /// Forgets every line, keeping the storage.
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Each line's message (what follows the prefix), for sinks that keep records.
    package var messages: [String] {
        bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0.dropFirst(prefix.count), as: UTF8.self) }
    }
}
