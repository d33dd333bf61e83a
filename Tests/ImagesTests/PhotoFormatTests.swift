import Images
import Testing

@Suite struct PhotoFormatTests {
    /// An ISO-BMFF `ftyp` box: size, "ftyp", major brand, minor version 0, compatible brands.
    static func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            + compatible.flatMap { Array($0.utf8) } + Array("\0\0\0\u{8}meta".utf8)
    }

    static let signatures: [([UInt8], PhotoFormat?)] = [
        ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
        ([0xFF, 0xD8, 0xFF], .jpeg),
        ([0xFF, 0xD8], nil),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A], nil),
        (Array("GIF89a".utf8), .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("GIF88a".utf8), nil),
        (Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8), .webp),
        (Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WAVEfmt ".utf8), nil),
        (ftyp("heic", ["mif1", "heic"]), .heif),  // what phones write
        (ftyp("heix"), .heif),
        (ftyp("mif1", ["heic"]), .heif),
        (ftyp("msf1", ["hevc"]), .heif),
        (ftyp("mif1"), nil),  // a HEIF, but not said to be HEVC
        (ftyp("avif", ["mif1", "miaf"]), nil),
        (ftyp("isom", ["mp41"]), nil),  // MP4 video
        (Array(ftyp("heic").prefix(15)), nil),
        ([0, 0, 0, 17] + Array(ftyp("heic").dropFirst(4)), nil),  // box size not a whole number of brands
        (Array("II*\0".utf8), nil),  // TIFF
        (Array("<svg xmlns=".utf8), nil),
        (Array("%PDF-1.7".utf8), nil),
        ([], nil),
    ]

    @Test(arguments: signatures)
    func detectsFormatFromSignature(_ bytes: [UInt8], expected: PhotoFormat?) {
        #expect(PhotoFormat.detect(bytes) == expected)
    }

    @Test func readsOnlyTheSignatureLength() {
        // A HEVC brand beyond the first 64 bytes does not count.
        let late = Self.ftyp("mif1", Array(repeating: "mif1", count: 12) + ["heic"])
        #expect(late.count > PhotoFormat.signatureLength)
        #expect(PhotoFormat.detect(late) == nil)
        #expect(PhotoFormat.detect(Self.ftyp("mif1", Array(repeating: "mif1", count: 11) + ["heic"])) == .heif)
    }

    @Test(arguments: [
        "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>",
        "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "cat.png",
        "PNG image, honest",
        "\u{FEFF}GIF89a behind a byte-order mark",
    ])
    func refusesTextMarkupAndLookalikes(_ text: String) {
        #expect(PhotoFormat.detect(Array(text.utf8)) == nil)
    }

    @Test func detectsFromAnySliceAtItsStart() {
        let padded: [UInt8] = [0, 0, 0xFF, 0xD8, 0xFF, 0xE0]
        #expect(PhotoFormat.detect(padded[2...]) == .jpeg)
        #expect(PhotoFormat.detect(padded) == nil)
    }
}
