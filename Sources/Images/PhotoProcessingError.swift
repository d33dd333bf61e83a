/// Why ``PhotoProcessor`` made no photo from an upload. The comment on each case says which
/// answer the app gives (SPEC.md, "Photo").
package enum PhotoProcessingError: Error, Equatable, CustomStringConvertible {
    /// The file's first bytes are none of the accepted formats (text, HTML, SVG, TIFF, AVIF, an
    /// empty file): **415**.
    case unsupportedFormat
    /// The header says the image is over ``PhotoLimits``; refused before a pixel was decoded, so a
    /// decompression bomb costs a header read: **422**, "too large to process".
    case tooLarge(width: Int, height: Int)
    /// The decoder for `format` failed: the file is truncated, damaged, or not what its signature
    /// says. `detail` is libvips' message, for the log only: **422**.
    case damaged(PhotoFormat, detail: String)
    /// The upload's file could not be opened or read (`errno` of the failed call): a server fault,
    /// **500**.
    case unreadableFile(operation: String, errno: Int32)
    /// libvips failed at something the input does not decide (starting up, encoding WebP) or made
    /// something other than asked: a server fault, **500**.
    case processingFailed(operation: String, detail: String)

    /// Whether the upload itself is at fault (415 or 422) rather than the server (500).
    package var isUploadRefused: Bool {
        switch self {
        case .unsupportedFormat, .tooLarge, .damaged: true
        case .unreadableFile, .processingFailed: false
        }
    }

    package var description: String {
        switch self {
        case .unsupportedFormat: "not a JPEG, PNG, WebP, GIF or HEIF image"
        case .tooLarge(let width, let height): "image too large to process: \(width) x \(height) px"
        case .damaged(let format, let detail): "damaged \(format.rawValue) image: \(detail)"
        case .unreadableFile(let operation, let errno): "\(operation) failed on the upload's file: errno \(errno)"
        case .processingFailed(let operation, let detail): "\(operation) failed: \(detail)"
        }
    }
}
