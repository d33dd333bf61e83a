/// Turns an uploaded image file into the two square WebP images the app keeps of a photo
/// (issue 19, SPEC.md "Photo"), with libvips: format told from the bytes, size checked from the
/// header before decoding, turned upright by its EXIF orientation, cropped to a centred square,
/// resized to ``largeSide`` and ``smallSide`` px, converted to sRGB by its ICC profile, and encoded
/// as WebP with no metadata. Nothing else of the upload survives: EXIF (location, camera, time),
/// XMP, IPTC, comments, ICC profiles, other frames, embedded thumbnails and trailing data are
/// never copied. docs/photos.md tells the whole story.
///
/// **Blocking.** ``process(fileAt:)`` decodes and encodes on the calling thread (and one libvips
/// worker thread) for tens to hundreds of milliseconds: call it from a blocking thread pool, never
/// an event loop or Swift's cooperative pool.
///
/// **Threads.** A value with no mutable state: any number of threads may call
/// ``process(fileAt:)`` at once, each call owning every libvips object it makes. libvips' global
/// set-up (``VipsImageRef/library``) runs once per process, on first use.
package struct PhotoProcessor: Sendable {
    /// The largest image decoded.
    package let limits: PhotoLimits
    /// Side of the large square, in px.
    package let largeSide: Int
    /// Side of the small square, in px.
    package let smallSide: Int
    /// WebP quality, 1 to 100.
    package let quality: Int

    /// A processor making `largeSide` and `smallSide` px squares of images within `limits`.
    /// libvips is loaded and set up by the first ``process(fileAt:)`` of the process, not here,
    /// so that a server that is sent no photo never loads it (``VipsImageRef/library``).
    package init(limits: PhotoLimits = .standard, largeSide: Int = 512, smallSide: Int = 96, quality: Int = 80) {
        precondition(0 < smallSide && smallSide <= largeSide && (1...100).contains(quality))
        self.limits = limits
        self.largeSide = largeSide
        self.smallSide = smallSide
        self.quality = quality
    }

    /// Makes the photo from the image in the file at `path`, which is only read.
    ///
    /// - Throws: ``PhotoProcessingError/unsupportedFormat`` (415),
    ///   ``PhotoProcessingError/tooLarge(width:height:)`` or ``PhotoProcessingError/damaged(_:detail:)``
    ///   (422); ``PhotoProcessingError/unreadableFile(operation:errno:)`` or
    ///   ``PhotoProcessingError/processingFailed(operation:detail:)`` (500).
    package func process(fileAt path: String) throws(PhotoProcessingError) -> ProcessedPhoto {
        guard let format = PhotoFormat.detect(try Self.readHead(fileAt: path, count: PhotoFormat.signatureLength)) else {
            throw .unsupportedFormat
        }
        // A HEIF's brand names no codec: only an HEVC primary image reaches libheif.
        if format == .heif, !HEIFPrimaryImage.isHEVC(try Self.readHead(fileAt: path, count: HEIFPrimaryImage.headLength)) {
            throw .unsupportedFormat
        }
        // Only an image of a format it may decode loads libvips (once a process).
        try Self.startLibrary()
        let source = try openForDecoding(format, fileAt: path)
        let large: VipsImageRef
        do throws(VipsFailure) {
            // Everything up to here is lazy: this is where the file is decoded.
            large = try source.squareThumbnail(side: largeSide).inMemory().withoutMetadata()
        } catch {
            throw .damaged(format, detail: error.message)
        }
        let small: VipsImageRef
        do throws(VipsFailure) {
            small = try large.squareThumbnail(side: smallSide).inMemory()
        } catch {
            throw .processingFailed(operation: "resizing to \(smallSide) px", detail: error.message)
        }
        return ProcessedPhoto(large: try encode(large, side: largeSide), small: try encode(small, side: smallSide), sourceFormat: format)
    }

    /// Reads the header of the file at `path` with `format`'s loader, checks it against
    /// ``limits``, and returns the image to decode: the same one, or for a large JPEG or WebP one
    /// reopened to be decoded smaller (``DecoderReduction``).
    private func openForDecoding(_ format: PhotoFormat, fileAt path: String) throws(PhotoProcessingError) -> VipsImageRef {
        let header: VipsImageRef
        do throws(VipsFailure) {
            header = try VipsImageRef.load(format, fromFileAt: path, reduction: .none)
        } catch {
            throw .damaged(format, detail: error.message)
        }
        guard limits.admits(width: header.width, height: header.height) else {
            throw .tooLarge(width: header.width, height: header.height)
        }
        let reduction = DecoderReduction.forSquare(side: largeSide, format: format, width: header.width, height: header.height)
        if reduction == .none { return header }
        do throws(VipsFailure) {
            return try VipsImageRef.load(format, fromFileAt: path, reduction: reduction)
        } catch {
            throw .damaged(format, detail: error.message)
        }
    }

    /// `image` as WebP with no metadata chunk, after checking that it is the `side` px square
    /// asked for.
    private func encode(_ image: VipsImageRef, side: Int) throws(PhotoProcessingError) -> EncodedPhoto {
        guard image.width == side, image.height == side else {
            throw .processingFailed(operation: "resizing to \(side) px", detail: "made \(image.width) x \(image.height) px")
        }
        let encoded: [UInt8]
        do throws(VipsFailure) {
            encoded = try image.withoutMetadata().webP(quality: quality)
        } catch {
            throw .processingFailed(operation: "encoding WebP", detail: error.message)
        }
        guard let stripped = WebPMetadata.stripped(encoded) else {
            throw .processingFailed(operation: "encoding WebP", detail: "libvips made no well-formed still WebP file")
        }
        return EncodedPhoto(bytes: stripped, width: side, height: side)
    }

    /// Runs libvips' one-time set-up, or reports how it failed.
    private static func startLibrary() throws(PhotoProcessingError) {
        if case .failure(let failure) = VipsImageRef.library {
            throw .processingFailed(operation: "starting libvips", detail: failure.message)
        }
    }
}
