/// The largest image ``PhotoProcessor`` decodes, checked against the file's header before any
/// pixel is decoded (SPEC.md, "Photo"; issue 19).
///
/// Why these numbers: a phone's photo is 12 to 50 megapixels and under 9,000 px a side; decoding
/// costs memory in proportion to the pixels for the formats that cannot decode in strips (up to
/// 4 bytes a pixel for GIF, WebP and HEIF, 8 for an interlaced 16-bit PNG), so 50 million pixels
/// is the most one call may hold at once: docs/photos.md has the figures.
package struct PhotoLimits: Sendable, Equatable {
    /// Most pixels (width x height): more is refused.
    package var maxPixels: Int
    /// Longest side in pixels: a longer one is refused, whatever the pixel count.
    package var maxSide: Int

    package init(maxPixels: Int, maxSide: Int) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
    }

    /// 50 million pixels, 10,000 px a side.
    package static let standard = PhotoLimits(maxPixels: 50_000_000, maxSide: 10_000)

    /// Whether an image of `width` x `height` px may be decoded.
    package func admits(width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && width <= maxSide && height <= maxSide && width * height <= maxPixels
    }
}
