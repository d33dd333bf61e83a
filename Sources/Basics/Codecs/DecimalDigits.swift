/// A number's decimal digits appended as ASCII, with no `String` in between: status codes and
/// `Content-Length` in responses, numbers in access lines.
package enum DecimalDigits {
    /// Appends `number` in decimal; a negative number as 0 (nothing written this way is below zero).
    package static func append(_ number: Int, to bytes: inout [UInt8]) {
        var value = UInt(max(0, number))
        // Twenty digits hold any UInt; filled from the end, then appended in one go.
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            bytes.append(contentsOf: buffer[start...])
        }
    }
}
