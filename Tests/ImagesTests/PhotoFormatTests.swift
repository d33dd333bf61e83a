import Images
import Testing

@Suite struct PhotoFormatTests {
    static let signatures: [([UInt8], PhotoFormat)] = [
        ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        (Array("GIF89a".utf8), .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8), .webp),
    ]

    @Test(arguments: signatures)
    func detectsFormatFromSignature(_ bytes: [UInt8], expected: PhotoFormat) {
        #expect(PhotoFormat.detect(bytes) == expected)
    }
}
