extension Array where Element == UInt8 {
    /// Appends the UTF-8 of a literal, read from the binary: no array or string to look up,
    /// retain and release (a static `[UInt8]` appended with `append(contentsOf:)` was both, on
    /// an object every thread shares, for each piece of every response head).
    @inlinable
    package mutating func append(literal text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
