import Basics

/// HTML escaping for `{{name}}` interpolation: exactly `&` `<` `>` `"` `'` become `&amp;` `&lt;`
/// `&gt;` `&quot;` `&#39;`, and the control characters a document may not hold (the WHATWG HTML
/// parse error "control-character-in-input-stream": C0 but tab, LF, FF and CR; DEL; C1 U+0080–U+009F)
/// become U+FFFD REPLACEMENT CHARACTER, visible where they stood, so no text — typed into a form
/// shown again, or stored before such characters were refused — makes a page invalid HTML.
/// Every other byte, including non-ASCII UTF-8, is copied unchanged.
package enum HTMLEscaping {
    /// Bit `n` is set when byte `n` (below 64) must be escaped: `"` 0x22, `&` 0x26, `'` 0x27,
    /// `<` 0x3C, `>` 0x3E, and the C0 controls but tab 0x09, LF 0x0A, FF 0x0C and CR 0x0D.
    private static let specialMask: UInt64 = 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3E | 0xFFFF_C9FF
    /// DEL, a control on its own.
    private static let delete: UInt8 = 0x7F
    /// The first byte of U+0080–U+00BF in UTF-8; U+0080–U+009F (C1) when the second is below 0xA0.
    private static let latin1Lead: UInt8 = 0xC2
    /// U+FFFD in UTF-8.
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends `string` to `output`, escaped. Runs of bytes that need no escaping are copied in
    /// bulk; the scan costs a compare and a shift and mask per byte below 64, two compares per
    /// other ASCII byte (about 1.7% more instructions per render of the benchmark page than
    /// escaping the five characters alone).
    package static func append(_ string: String, to output: inout [UInt8]) {
        string.withUTF8InPlace { append($0, to: &output) }
    }

    /// Appends UTF-8 `bytes` to `output`, escaped.
    static func append(_ bytes: [UInt8], to output: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0, to: &output) }
    }

    /// Appends UTF-8 `bytes` to `output`, escaped.
    package static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let count = bytes.count
        var runStart = 0
        while true {
            let special = firstSpecial(in: bytes, from: runStart)
            if special > runStart {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<special]))
            }
            guard special < count else { return }
            let byte = bytes[special]
            runStart = special + 1
            if byte == latin1Lead {
                if special + 1 < count, bytes[special + 1] < 0xA0 {
                    output.append(contentsOf: replacement)
                    runStart = special + 2
                } else {
                    output.append(byte)  // U+00A0–U+00BF: copied like any other letter
                }
            } else if byte < 0x20 || byte == delete {
                output.append(contentsOf: replacement)
            } else {
                appendEntity(for: byte, to: &output)
            }
        }
    }

    /// The index of the first byte at or after `start` that needs escaping, or `bytes.count`.
    static func firstSpecial(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count, !isSpecial(bytes[index]) { index += 1 }
        return index
    }

    /// Letters and the rest of ASCII from 64 to 126 answer after two compares; only DEL and
    /// non-ASCII bytes go on to the last two.
    private static func isSpecial(_ byte: UInt8) -> Bool {
        if byte < 64 { return specialMask & (1 << UInt64(byte)) != 0 }
        return byte >= delete && (byte == delete || byte == latin1Lead)
    }

    private static func appendEntity(for byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "&"): output.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B])  // &amp;
        case UInt8(ascii: "<"): output.append(contentsOf: [0x26, 0x6C, 0x74, 0x3B])  // &lt;
        case UInt8(ascii: ">"): output.append(contentsOf: [0x26, 0x67, 0x74, 0x3B])  // &gt;
        case UInt8(ascii: "\""): output.append(contentsOf: [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B])  // &quot;
        default: output.append(contentsOf: [0x26, 0x23, 0x33, 0x39, 0x3B])  // &#39;
        }
    }
}
