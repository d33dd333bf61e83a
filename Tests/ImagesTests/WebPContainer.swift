/// The chunks of a WebP file (RFC 9649 §2.5-2.7), read here independently of libvips so the tests
/// can say what the served bytes hold.
struct WebPContainer {
    /// The chunks' FourCCs, in order ("VP8 ", "VP8L", "VP8X", "ALPH", "ICCP", "EXIF", "XMP ", …).
    let chunks: [String]
    /// The flags byte of the VP8X chunk, when there is one.
    let extendedFlags: UInt8?

    /// VP8X flag bits (RFC 9649 §2.7): ICC profile, EXIF, XMP.
    static let iccFlag: UInt8 = 0x20
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    /// Parses `bytes`; nil unless they are exactly one RIFF/WEBP file whose chunks fill it.
    init?(_ bytes: [UInt8]) {
        func fourCC(at offset: Int) -> String { String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self) }
        func littleEndian32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        guard bytes.count >= 12, fourCC(at: 0) == "RIFF", fourCC(at: 8) == "WEBP",
            littleEndian32(at: 4) == bytes.count - 8
        else { return nil }
        var chunks: [String] = []
        var flags: UInt8?
        var offset = 12
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else { return nil }
            let name = fourCC(at: offset)
            let size = littleEndian32(at: offset + 4)
            let end = offset + 8 + size + size % 2
            guard end <= bytes.count else { return nil }
            if name == "VP8X" {
                guard size >= 10 else { return nil }
                flags = bytes[offset + 8]
            }
            chunks.append(name)
            offset = end
        }
        self.chunks = chunks
        self.extendedFlags = flags
    }
}
