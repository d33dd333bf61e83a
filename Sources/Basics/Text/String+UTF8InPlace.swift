extension String {
    /// Calls `body` with this string's UTF-8, read in place from its storage when that is
    /// contiguous UTF-8 (every string Swift made), else from a copy that is (a string bridged
    /// from elsewhere). Unlike `withUTF8`, it needs no mutable copy: on the request path such a
    /// copy retained and released the string's storage for every call, often a string both
    /// event loops share (issue 32, counted).
    @inlinable
    package func withUTF8InPlace<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
