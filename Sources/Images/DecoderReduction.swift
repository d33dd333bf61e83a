/// How much smaller than its full size the decoder itself should make an image ("shrink on
/// load"): a 12-megapixel JPEG decoded at half size is four times less work and memory.
struct DecoderReduction: Equatable {
    /// JPEG's DCT scaling: 1, 2, 4 or 8.
    var jpegShrink = 1
    /// libwebp's scaling, 0 < scale <= 1.
    var webPScale = 1.0

    static let none = DecoderReduction()

    /// The reduction for making a `side` px square from a `width` x `height` image in `format`.
    /// The decoder stops while the shorter side is still at least twice `side`, so the final
    /// (Lanczos) resize does real work and the square stays sharp, as `vips_thumbnail` does for
    /// JPEG. PNG and GIF cannot decode smaller, and HEIF only by its embedded thumbnail, which is
    /// never used (cvips.h, `cvips_load_heif`).
    static func forSquare(side: Int, format: PhotoFormat, width: Int, height: Int) -> DecoderReduction {
        let shorter = min(width, height)
        switch format {
        case .jpeg:
            // libjpeg makes ceil(size / shrink); floor here keeps the rule on the safe side.
            for shrink in [8, 4, 2] where shorter / shrink >= 2 * side {
                return DecoderReduction(jpegShrink: shrink)
            }
            return .none
        case .webp:
            guard shorter > 2 * side else { return .none }
            return DecoderReduction(webPScale: Double(2 * side) / Double(shorter))
        case .png, .gif, .heif:
            return .none
        }
    }
}
