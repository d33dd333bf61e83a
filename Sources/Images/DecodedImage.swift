/// The pixels of a WebP image this app made, decoded by libvips: for checks of what
/// ``PhotoProcessor`` produced (its tests, the fuzzer), not for serving.
package struct DecodedImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// Bytes per pixel: 3 for RGB, 4 for RGB with alpha.
    package let bands: Int
    /// 8-bit sRGB samples, row after row, ``bands`` per pixel.
    package let samples: [UInt8]

    /// Decodes `webP`.
    ///
    /// - Throws: ``PhotoProcessingError/damaged(_:detail:)`` when libvips cannot decode it.
    package static func decodeWebP(_ webP: [UInt8]) throws(PhotoProcessingError) -> DecodedImage {
        if case .failure(let failure) = VipsImageRef.library {
            throw .processingFailed(operation: "starting libvips", detail: failure.message)
        }
        do throws(VipsFailure) {
            let decoded = try VipsImageRef.decodeWebP(webP)
            return DecodedImage(width: decoded.width, height: decoded.height, bands: decoded.bands, samples: decoded.pixels)
        } catch {
            throw .damaged(.webp, detail: error.message)
        }
    }

    /// The samples of the pixel at column `x`, row `y` (from the top left).
    package func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        precondition((0..<width).contains(x) && (0..<height).contains(y))
        let start = (y * width + x) * bands
        return samples[start..<(start + bands)]
    }
}
