/// The photo made from one upload: two square WebP images and nothing else of the upload.
package struct ProcessedPhoto: Sendable, Equatable {
    /// The large version (512 x 512 px by default), for `GET /users/{username}/photo`.
    package let large: EncodedPhoto
    /// The small version (96 x 96 px by default), for `GET /users/{username}/photo/small`.
    package let small: EncodedPhoto
    /// What the upload was, by its bytes.
    package let sourceFormat: PhotoFormat
}

/// One encoded WebP image and its size in pixels.
package struct EncodedPhoto: Sendable, Equatable {
    /// The WebP file (RFC 9649), without EXIF, XMP or ICC chunks.
    package let bytes: [UInt8]
    package let width: Int
    package let height: Int

    /// What to serve it as.
    package static let mediaType = "image/webp"
}
