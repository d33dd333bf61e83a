private import CVips

/// One libvips image (`VipsImage *`, https://www.libvips.org/API/8.14/VipsImage.html), owned:
/// its reference is released exactly once, in `deinit`, on every path.
///
/// A libvips image is a lazy pipeline: making one from another records the operation, and pixels
/// are computed only when something needs them (``inMemory()``, ``webP(quality:)``,
/// ``srgbBytes()``), by reading the source file top to bottom. So failures of the decoder show
/// up there, not where the operation was asked for.
///
/// Not Sendable: a reference is used by the one call that made it. libvips itself is thread-safe,
/// so different threads may each work on their own references at the same time.
final class VipsImageRef {
    private let image: UnsafeMutablePointer<VipsImage>

    private init(_ image: UnsafeMutablePointer<VipsImage>) {
        self.image = image
    }

    deinit {
        cvips_unref(image)
    }

    /// Width in pixels, as the header says.
    var width: Int { Int(cvips_image_get_width(image)) }

    /// Height in pixels, as the header says (for a GIF, of its first frame).
    var height: Int { Int(cvips_image_get_height(image)) }

    /// Bands per pixel: 1 grey, 2 grey and alpha, 3 RGB, 4 RGBA.
    var bands: Int { Int(cvips_image_get_bands(image)) }

    /// Opens the file at `path` with the loader for `format` alone (never libvips' own sniffing)
    /// and reads its header; no pixel is decoded yet. `reduction` asks the decoder for a smaller
    /// image where the format can do it cheaply: `shrink` for JPEG, `scale` for WebP.
    ///
    /// - Throws: the loader's message when the file cannot be opened or its header read.
    static func load(_ format: PhotoFormat, fromFileAt path: String, reduction: DecoderReduction) throws(VipsFailure)
        -> VipsImageRef
    {
        guard let source = cvips_source_new_from_file(path) else { throw VipsFailure.takeMessage() }
        defer { cvips_unref(source) }
        let loaded: UnsafeMutablePointer<VipsImage>? =
            switch format {
            case .jpeg: cvips_load_jpeg(source, Int32(reduction.jpegShrink))
            case .png: cvips_load_png(source)
            case .webp: cvips_load_webp(source, reduction.webPScale)
            case .gif: cvips_load_gif(source)
            case .heif: cvips_load_heif(source)
            }
        guard let loaded else { throw VipsFailure.takeMessage() }
        return VipsImageRef(loaded)
    }

    /// Decodes WebP `bytes` (for checks of what this app made: tests and the fuzzer).
    static func decodeWebP(_ bytes: [UInt8]) throws(VipsFailure) -> (width: Int, height: Int, bands: Int, pixels: [UInt8]) {
        // The loader reads `bytes` in place, so everything that reads pixels happens inside this scope.
        let result: Result<(Int, Int, Int, [UInt8]), VipsFailure> = bytes.withUnsafeBytes { buffer in
            guard let loaded = cvips_load_webp_buffer(buffer.baseAddress, buffer.count) else {
                return .failure(VipsFailure.takeMessage())
            }
            let image = VipsImageRef(loaded)
            do throws(VipsFailure) {
                let converted = try image.srgbBytes()
                return .success((converted.width, converted.height, converted.bands, try converted.pixelBytes()))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A `side` x `side` square: the centred square of the image, resized to `side` (down or up),
    /// turned upright by the EXIF orientation, converted to sRGB by its ICC profile (cvips.h,
    /// `cvips_centre_square`, `cvips_square_thumbnail`). Cropped first, so that the work and
    /// memory grow with the square, not with the image's longer side. Lazy, except that an image
    /// that needs turning is computed here.
    func squareThumbnail(side: Int) throws(VipsFailure) -> VipsImageRef {
        guard let square = cvips_centre_square(image) else { throw VipsFailure.takeMessage() }
        defer { cvips_unref(square) }
        guard let out = cvips_square_thumbnail(square, Int32(side)) else { throw VipsFailure.takeMessage() }
        return VipsImageRef(out)
    }

    /// Computes every pixel into memory: where decoding happens, so where a damaged file fails.
    func inMemory() throws(VipsFailure) -> VipsImageRef {
        guard let out = cvips_image_copy_memory(image) else { throw VipsFailure.takeMessage() }
        return VipsImageRef(out)
    }

    /// The same pixels with no metadata: no EXIF, XMP, IPTC or ICC profile, no orientation.
    func withoutMetadata() throws(VipsFailure) -> VipsImageRef {
        guard let out = cvips_without_metadata(image) else { throw VipsFailure.takeMessage() }
        return VipsImageRef(out)
    }

    /// The image as 8-bit sRGB, for reading pixel values.
    func srgbBytes() throws(VipsFailure) -> VipsImageRef {
        guard let out = cvips_srgb_bytes(image) else { throw VipsFailure.takeMessage() }
        return VipsImageRef(out)
    }

    /// Every pixel, row after row, `bands` bytes each; call on an 8-bit image (``srgbBytes()``).
    func pixelBytes() throws(VipsFailure) -> [UInt8] {
        var size = 0
        guard let memory = cvips_image_write_to_memory(image, &size) else { throw VipsFailure.takeMessage() }
        defer { cvips_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// The image encoded as lossy WebP, by libvips' webpsave. Call it on an image from
    /// ``withoutMetadata()``, and pass the result through ``WebPMetadata/stripped(_:)``: libvips
    /// 8.14.1 adds an EXIF chunk whatever it is asked (Sources/CVips/include/cvips.h, `cvips_save_webp`).
    func webP(quality: Int) throws(VipsFailure) -> [UInt8] {
        var length = 0
        guard let buffer = cvips_save_webp(image, Int32(quality), &length) else { throw VipsFailure.takeMessage() }
        defer { cvips_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}

extension VipsImageRef {
    /// Sets libvips up for this process, once: the first use of any ``VipsImageRef`` or
    /// ``PhotoProcessor`` runs it (a Swift `static let` is initialised once, thread-safely).
    ///
    /// - `cvips_open` loads libvips (dlopen): a server that is not sent a photo never maps it and
    ///   the hundred libraries it brings (Sources/CVips/include/cvips.h). Without libvips, every
    ///   photo fails with its message and nothing else is touched.
    /// - `vips_init` sets libvips up and loads its format modules (HEIF is one).
    /// - `vips_block_untrusted_set(TRUE)`: the loaders libvips does not consider fuzzed and safe
    ///   for untrusted input (ImageMagick, PDF, SVG, FITS, MAT, …) are refused. Then every loader is
    ///   blocked but the five this app uses (JPEG, PNG, WebP, GIF, HEIF), so even a file that a
    ///   trusted loader such as TIFF would read is never decoded.
    /// - The operation cache is off (`vips_cache_set_max(0)` and its memory and file limits): it
    ///   would keep decoded uploads alive after their call, and no upload is loaded twice.
    /// - One worker thread per pipeline (`vips_concurrency_set(1)`): callers run many pipelines on
    ///   their own blocking pool, so each stays on about one core.
    /// - libvips' warnings are discarded (`cvips_silence_warnings`).
    /// - glibc's mmap threshold is fixed at 128 KiB, so large decoded buffers go back to the system
    ///   when freed (`cvips_return_large_buffers`).
    static let library: Result<Void, VipsFailure> = {
        var message = [CChar](repeating: 0, count: 256)
        guard cvips_open(&message, message.count) == 0 else {
            return .failure(VipsFailure(message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        guard cvips_init("quotebook") == 0 else { return .failure(VipsFailure.takeMessage()) }
        cvips_block_untrusted(1)
        cvips_block_operation("VipsForeignLoad", 1)
        for loader in ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadNsgif", "VipsForeignLoadHeif"] {
            cvips_block_operation(loader, 0)
        }
        cvips_cache_off()
        cvips_set_concurrency(1)
        cvips_silence_warnings()
        cvips_return_large_buffers()
        return .success(())
    }()
}
