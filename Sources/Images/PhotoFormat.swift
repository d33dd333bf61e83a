/// An image format accepted for photos, told from the file's first bytes alone.
///
/// Neither the file name nor the client's `Content-Type` is trusted: both come from the client.
/// Signatures as in the WHATWG MIME Sniffing standard §6.1, and for HEIF the ISO base media file
/// format's `ftyp` box (ISO/IEC 14496-12 §4.3) with a HEVC brand (ISO/IEC 23008-12 Annex B).
package enum PhotoFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, heif

    /// How many bytes ``detect(_:)`` may read; a caller reading a file reads this many.
    package static let signatureLength = 64

    /// HEIF brands of HEVC-coded images and sequences: what phones write (`heic`; `heix` for
    /// 10-bit; `hevc`/`hevx` for bursts and live photos; `heim`/`heis` for multi-layer). Plain
    /// `mif1`/`msf1` say only "a HEIF", whatever codec is inside (AVIF is one), so they are not
    /// enough alone.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]

    /// The format whose signature starts `bytes`, or nil (TIFF, SVG, HTML, text, AVIF, anything
    /// shorter than a signature):
    /// - JPEG: `FF D8 FF`, the SOI marker and the start of the next marker;
    /// - PNG: `89 50 4E 47 0D 0A 1A 0A` (PNG specification §5.2);
    /// - GIF: `GIF87a` or `GIF89a`;
    /// - WebP: `RIFF`, a 4-byte size, `WEBP` (RFC 9649 §2);
    /// - HEIF: a first box of type `ftyp` whose major brand or one of whose compatible brands (as
    ///   far as they lie within the first ``signatureLength`` bytes) is in ``heifBrands``.
    ///
    /// Reads at most the first ``signatureLength`` bytes.
    package static func detect(_ bytes: some Collection<UInt8>) -> PhotoFormat? {
        let head = Array(bytes.prefix(signatureLength))
        func starts(with signature: some Collection<UInt8>, at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && head[offset..<(offset + signature.count)].elementsEqual(signature)
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: "GIF87a".utf8) || starts(with: "GIF89a".utf8) { return .gif }
        if starts(with: "RIFF".utf8) && starts(with: "WEBP".utf8, at: 8) { return .webp }
        if isHEIF(head) { return .heif }
        return nil
    }

    /// Whether `head` starts with an `ftyp` box naming a HEVC HEIF brand: size (4 bytes, big
    /// endian), `ftyp`, major brand, minor version (4 bytes), then compatible brands to the box's end.
    private static func isHEIF(_ head: [UInt8]) -> Bool {
        guard head.count >= 16, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let boxSize = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard boxSize >= 16, boxSize % 4 == 0 else { return false }
        func brand(at offset: Int) -> String { String(decoding: head[offset..<(offset + 4)], as: UTF8.self) }
        if heifBrands.contains(brand(at: 8)) { return true }
        let end = min(boxSize, head.count)
        return stride(from: 16, to: end - 3, by: 4).contains { heifBrands.contains(brand(at: $0)) }
    }
}
