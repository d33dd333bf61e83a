import Images
import Testing

/// WebPMetadata.stripped on WebP files assembled here chunk by chunk (RFC 9649).
@Suite struct WebPMetadataTests {
    static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count)
        return Array(name.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + payload
            + (payload.count % 2 == 1 ? [0] : [])
    }

    static func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = chunks.flatMap { $0 }
        let size = UInt32(4 + body.count)
        return Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array("WEBP".utf8) + body
    }

    /// VP8X with flags ICC (0x20), alpha (0x10), EXIF (0x08), XMP (0x04), a 1 x 1 canvas.
    static let extended = chunk("VP8X", [0x20 | 0x10 | 0x08 | 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    static let bitstream = chunk("VP8 ", [1, 2, 3, 4, 5])  // odd: padded
    static let alpha = chunk("ALPH", [9, 9])

    @Test func removesMetadataChunksAndClearsTheirFlags() throws {
        let input = Self.riff([
            Self.extended, Self.chunk("ICCP", [7, 7, 7]), Self.alpha, Self.bitstream, Self.chunk("EXIF", Array("Exif GPS".utf8)),
            Self.chunk("XMP ", Array("<x:xmpmeta/>".utf8)), Self.chunk("ZZZZ", [1]),
        ])
        let output = try #require(WebPMetadata.stripped(input))
        var flags = Self.extended
        flags[8] = 0x10
        #expect(output == Self.riff([flags, Self.alpha, Self.bitstream]))
    }

    @Test func leavesASimpleFileAsItIs() {
        let input = Self.riff([Self.chunk("VP8L", [1, 2, 3, 4])])
        #expect(WebPMetadata.stripped(input) == input)
    }

    @Test(arguments: [
        ("no bitstream", riff([extended, alpha])),
        ("two bitstreams", riff([bitstream, chunk("VP8L", [1, 2])])),
        ("animation", riff([extended, chunk("ANIM", [0, 0, 0, 0, 0, 0]), bitstream])),
        ("chunk past the end", Array(riff([bitstream]).dropLast())),
        ("RIFF size wrong", riff([bitstream]) + [0, 0]),
        ("not RIFF", Array("RIFX".utf8) + Array(riff([bitstream]).dropFirst(4))),
        ("empty", []),
    ])
    func refusesWhatIsNotOneStillWebP(_ name: String, _ input: [UInt8]) {
        #expect(WebPMetadata.stripped(input) == nil, "\(name)")
    }
}
