/// An image format the app accepts for photos, told from the file's first bytes alone.
///
/// Neither the file name nor the client's `Content-Type` is trusted: both come from the client,
/// and serving bytes under a type they do not have invites content sniffing (an "image" that is
/// HTML or SVG with script). Signatures as in the WHATWG MIME Sniffing standard §6.1.
package enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, gif, webp

    /// The IANA media type to serve it with, such as `image/png`.
    package var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }

    /// The format whose signature starts `bytes`, or nil (SVG, HTML, text, anything shorter than
    /// a signature):
    /// - PNG: `89 50 4E 47 0D 0A 1A 0A` (PNG specification §5.2);
    /// - JPEG: `FF D8 FF`, the SOI marker and the start of the next marker;
    /// - GIF: `GIF87a` or `GIF89a`;
    /// - WebP: `RIFF`, a 4-byte size, `WEBP` (RFC 9649 §2).
    ///
    /// Reads at most the first 12 bytes.
    package static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(12))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && head[offset..<(offset + signature.count)].elementsEqual(signature)
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        return nil
    }
}
