/// Removes every metadata chunk from a WebP file (RFC 9649), keeping only the image.
///
/// Needed because Debian 12's libvips 8.14.1 writes an EXIF chunk whatever it is asked (Sources/CVips/include/cvips.h,
/// `cvips_save_webp`); done on every file libvips encodes, so a libvips that writes metadata for
/// any other reason cannot leak it either.
package enum WebPMetadata {
    /// The chunks that are the image: lossy (`VP8 `) or lossless (`VP8L`) bitstream and the
    /// alpha channel of a lossy one (`ALPH`). `VP8X` is kept too, with its metadata flags cleared.
    /// Everything else goes: `ICCP`, `EXIF`, `XMP `, and any unknown chunk. (Animation, `ANIM` and
    /// `ANMF`, is never made here: a file with it is refused.)
    static let imageChunks: Set<String> = ["VP8 ", "VP8L", "ALPH"]

    /// VP8X flag bits for an ICC profile, EXIF and XMP (RFC 9649 §2.7).
    static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// `webP` with only ``imageChunks`` and `VP8X` left, the `VP8X` metadata flags cleared and the
    /// RIFF size set to match; nil when `webP` is not one well-formed still WebP file (a chunk
    /// runs past the end, no bitstream or two, animation).
    package static func stripped(_ webP: [UInt8]) -> [UInt8]? {
        func fourCC(at offset: Int) -> String { String(decoding: webP[offset..<(offset + 4)], as: UTF8.self) }
        func littleEndian32(at offset: Int) -> Int { (0..<4).reduce(0) { $0 | Int(webP[offset + $1]) << (8 * $1) } }

        guard webP.count >= 12, fourCC(at: 0) == "RIFF", fourCC(at: 8) == "WEBP",
            littleEndian32(at: 4) == webP.count - 8
        else { return nil }
        var body: [UInt8] = []
        var bitstreams = 0
        var offset = 12
        while offset < webP.count {
            guard offset + 8 <= webP.count else { return nil }
            let name = fourCC(at: offset)
            let size = littleEndian32(at: offset + 4)
            let end = offset + 8 + size + size % 2  // chunks are padded to an even size
            guard end <= webP.count else { return nil }
            switch name {
            case "VP8X":
                guard size >= 10 else { return nil }
                var chunk = Array(webP[offset..<end])
                chunk[8] &= ~metadataFlags
                guard chunk[8] & 0x02 == 0 else { return nil }  // the animation flag
                body += chunk
            case "ANIM", "ANMF":
                return nil
            case _ where imageChunks.contains(name):
                if name != "ALPH" { bitstreams += 1 }
                body += webP[offset..<end]
            default:
                break
            }
            offset = end
        }
        guard bitstreams == 1 else { return nil }
        let riffSize = UInt32(4 + body.count)
        return Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: riffSize >> (8 * $0)) } + Array("WEBP".utf8) + body
    }
}
