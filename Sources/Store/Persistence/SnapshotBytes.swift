import Foundation

/// Why snapshot bytes could not be read; the store then replays the whole journal.
package struct SnapshotFormatError: Error, CustomStringConvertible {
    /// What was wrong, and where.
    package let description: String
}

/// Writes the primitives of ``SnapshotFormat``: LEB128 variable-length integers (zig-zag for
/// signed ones), length-prefixed UTF-8, and dates as the exact bits of their `Double`.
struct SnapshotWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func count(_ value: Int) { unsigned(UInt64(value)) }

    mutating func signed(_ value: Int) {
        let wide = Int64(value)
        unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    /// A present flag, then the value: 0, or 1 and `value`.
    mutating func optional(_ value: Int?) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        signed(value)
    }

    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func date(_ value: Date) { fixed64(value.timeIntervalSinceReferenceDate.bitPattern) }

    mutating func string(_ value: String) {
        count(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func raw(_ value: [UInt8]) { bytes.append(contentsOf: value) }

    /// Where the lengths of the sections that follow go: ``reserveTable(_:)`` leaves room for
    /// them, and ``section(in:_:)`` fills them in one by one.
    struct SectionTable {
        fileprivate var next: Int
        fileprivate let end: Int
    }

    /// Room for `count` section lengths (8 bytes each), written as the sections are.
    mutating func reserveTable(_ count: Int) -> SectionTable {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 8 * count))
        return SectionTable(next: start, end: bytes.count)
    }

    /// Writes a section with `write`, and its length in the next entry of `table`.
    mutating func section(in table: inout SectionTable, _ write: (inout SnapshotWriter) -> Void) {
        precondition(table.next < table.end, "more sections than the table has room for")
        let start = bytes.count
        write(&self)
        withUnsafeBytes(of: UInt64(bytes.count - start).littleEndian) { length in
            bytes.replaceSubrange(table.next..<table.next + 8, with: length)
        }
        table.next += 8
    }

    mutating func fixed32(_ values: [UInt32]) {
        for value in values { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    }
}

/// Reads what ``SnapshotWriter`` wrote, checking every length against what is left, so damaged
/// bytes are an error, never a crash or a read past the end. Valid only inside the closure that
/// lent it the buffer.
struct SnapshotReader {
    private let buffer: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { position == buffer.count }

    /// How many bytes are left.
    var remaining: Int { buffer.count - position }

    /// Passes over `count` bytes.
    mutating func skip(_ count: Int) throws(SnapshotFormatError) {
        _ = try take(count)
    }

    mutating func unsigned() throws(SnapshotFormatError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < buffer.count, shift < 64 {
            let byte = buffer[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw SnapshotFormatError(description: "bad number at byte \(position)")
    }

    /// A count or length, which cannot exceed the bytes left (each item takes at least one).
    mutating func count() throws(SnapshotFormatError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(buffer.count - position) else {
            throw SnapshotFormatError(description: "count \(value) past the end at byte \(position)")
        }
        return Int(value)
    }

    mutating func signed() throws(SnapshotFormatError) -> Int {
        let raw = try unsigned()
        let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        guard let int = Int(exactly: value) else { throw SnapshotFormatError(description: "number too large") }
        return int
    }

    mutating func optional() throws(SnapshotFormatError) -> Int? {
        switch try byte() {
        case 0: return nil
        case 1: return try signed()
        case let flag: throw SnapshotFormatError(description: "bad presence flag \(flag) at byte \(position - 1)")
        }
    }

    mutating func byte() throws(SnapshotFormatError) -> UInt8 {
        guard position < buffer.count else { throw SnapshotFormatError(description: "ends early") }
        position += 1
        return buffer[position - 1]
    }

    mutating func fixed64() throws(SnapshotFormatError) -> UInt64 {
        let bytes = try take(8)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func date() throws(SnapshotFormatError) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed64()))
    }

    /// Length-prefixed UTF-8, which must be valid.
    ///
    /// Decoded with `String(decoding:as:)`, which replaces what is not UTF-8, and then compared
    /// with the bytes: a string that reads back as its bytes was valid. `String(validating:as:)`
    /// says so directly, but through a generic path of the standard library that looked up type
    /// metadata on every call: about a sixth of the start-up of a 100,000-quote book.
    mutating func string() throws(SnapshotFormatError) -> String {
        let start = position
        let bytes = UnsafeRawBufferPointer(rebasing: try take(try count())).assumingMemoryBound(to: UInt8.self)
        var string = String(decoding: bytes, as: UTF8.self)
        let unchanged = string.withUTF8 { decoded in
            decoded.count == bytes.count && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged else { throw SnapshotFormatError(description: "invalid UTF-8 at byte \(start)") }
        return string
    }

    mutating func raw(_ count: Int) throws(SnapshotFormatError) -> [UInt8] {
        Array(try take(count))
    }

    mutating func fixed32(_ count: Int) throws(SnapshotFormatError) -> [UInt32] {
        let bytes = try take(count * 4)
        var values = [UInt32](repeating: 0, count: count)
        for index in 0..<count {
            var value: UInt32 = 0
            for byte in bytes[(bytes.startIndex + index * 4)..<(bytes.startIndex + index * 4 + 4)].reversed() {
                value = value << 8 | UInt32(byte)
            }
            values[index] = value
        }
        return values
    }

    /// The next `count` bytes, as a view into the buffer.
    private mutating func take(_ count: Int) throws(SnapshotFormatError) -> UnsafeRawBufferPointer.SubSequence {
        guard count >= 0, count <= buffer.count - position else {
            throw SnapshotFormatError(description: "\(count) bytes past the end at byte \(position)")
        }
        defer { position += count }
        return buffer[position..<position + count]
    }
}
