import App
import Testing

/// Image formats are recognised from magic bytes only (WHATWG MIME Sniffing §6.1).
@Suite struct ImageFormatTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D] + Array("IHDR".utf8)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBPVP8 ".utf8)

    static let signatures: [([UInt8], ImageFormat)] = [
        (png, .png),
        (jpeg, .jpeg),
        ([0xFF, 0xD8, 0xFF], .jpeg),
        (Array("GIF87a".utf8) + [1, 0, 1, 0], .gif),
        (Array("GIF89a".utf8), .gif),
        (webp, .webp),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), .webp),
    ]

    static let truncated: [[UInt8]] = [
        [], [0x89], Array(png.prefix(7)), [0xFF, 0xD8], Array("GIF8".utf8), Array("GIF89".utf8),
        Array("RIFF".utf8), Array("RIFF\0\0\0\0WEB".utf8),
    ]

    @Test(arguments: signatures)
    func detectsFormatFromSignature(_ bytes: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat.detect(bytes) == expected)
    }

    @Test func detectsFromAnySliceOrCollection() {
        let padded = [0, 0] + Self.png
        #expect(ImageFormat.detect(padded[2...]) == .png)
        #expect(ImageFormat.detect(padded) == nil)
        #expect(ImageFormat.detect(Self.jpeg[...]) == .jpeg)
    }

    @Test(arguments: truncated)
    func rejectsInputShorterThanASignature(_ bytes: [UInt8]) {
        #expect(ImageFormat.detect(bytes) == nil)
    }

    @Test(arguments: [
        "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"><rect width=\"1\" height=\"1\"/></svg>",
        "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "cat.png",
        "PNG image, honest",
        "GIF88a not a real version",
        "RIFF\0\0\0\0WAVEfmt ",
        "\u{FEFF}GIF89a behind a byte-order mark",
    ])
    func rejectsTextMarkupAndLookalikes(_ text: String) {
        #expect(ImageFormat.detect(Array(text.utf8)) == nil)
    }

    /// A file called `photo.png` is whatever its bytes say.
    @Test func ignoresTheFileName() {
        let upload: (filename: String, bytes: [UInt8]) = ("photo.png", Self.jpeg)
        #expect(ImageFormat.detect(upload.bytes) == .jpeg)
        let disguised: (filename: String, bytes: [UInt8]) = ("photo.png", Array("<svg/>".utf8))
        #expect(ImageFormat.detect(disguised.bytes) == nil)
    }

    @Test func namesMediaTypes() {
        #expect(ImageFormat.allCases.map(\.mediaType) == ["image/png", "image/jpeg", "image/gif", "image/webp"])
        #expect(ImageFormat.allCases.map(\.rawValue) == ["png", "jpeg", "gif", "webp"])
    }
}
