// libFuzzer entry for the photo pipeline (Sources/Images): format detection, the header check,
// libvips decoding, squaring, resizing and WebP encoding, and the WebP metadata stripper.
// Built by run.sh with `swiftc -sanitize=fuzzer,address` together with those sources and the
// CVips bridge, which loads Debian's libvips at the first input.
//
// libvips is not instrumented, so libFuzzer's coverage guides it only through the Swift code;
// inside libvips it mutates blindly from the seed images (Fuzz/corpus-photo/). What it does
// catch there is any crash, hang or memory blow-up of the loaders this app enables.
//
// Each input is written to a file (the processor reads uploads from files) and processed with
// small output sides and limits, so that an execution takes milliseconds. Checks beyond "does
// not crash":
// - the outcome agrees with PhotoFormat.detect: an unsupported format exactly when it says nil
//   (or it says HEIF and HEIFPrimaryImage finds no HEVC primary image), and a damaged image is
//   damaged in the format it said;
// - no input makes a server fault (unreadable file, failed resize or encoding);
// - every photo made is two squares of the asked sides, which decode again, with no metadata
//   chunk left (WebPMetadata.stripped changes nothing);
// - WebPMetadata.stripped on the raw input, when it accepts it, gives a file it accepts again
//   unchanged.

import Glibc

let limits = PhotoLimits(maxPixels: 2_000_000, maxSide: 4096)
let largeSide = 48
let smallSide = 16
let processor = PhotoProcessor(limits: limits, largeSide: largeSide, smallSide: smallSide)
let inputPath = "/tmp/quotebook-fuzz-photo-\(getpid())"

/// Writes `bytes` to `inputPath`, replacing what was there.
func writeInput(_ bytes: UnsafeBufferPointer<UInt8>) {
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "open \(inputPath): errno \(errno)")
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        precondition(written > 0, "write \(inputPath): errno \(errno)")
        offset += written
    }
}

func checkProcessing(_ bytes: UnsafeBufferPointer<UInt8>) {
    let format = PhotoFormat.detect(bytes)
    writeInput(bytes)
    let photo: ProcessedPhoto
    do throws(PhotoProcessingError) {
        photo = try processor.process(fileAt: inputPath)
    } catch .unsupportedFormat {
        precondition(
            format == nil || (format == .heif && !HEIFPrimaryImage.isHEVC(Array(bytes.prefix(HEIFPrimaryImage.headLength)))),
            "refused as unsupported, detected as \(String(describing: format))")
        return
    } catch .tooLarge(let width, let height) {
        precondition(format != nil && !limits.admits(width: width, height: height), "refused \(width) x \(height)")
        return
    } catch .damaged(let damaged, _) {
        precondition(damaged == format, "damaged \(damaged), detected \(String(describing: format))")
        return
    } catch {
        preconditionFailure("a server fault from client bytes: \(error)")
    }
    precondition(photo.sourceFormat == format)
    for (version, side) in [(photo.large, largeSide), (photo.small, smallSide)] {
        precondition(version.width == side && version.height == side)
        precondition(WebPMetadata.stripped(version.bytes) == version.bytes, "a metadata chunk left")
        do {
            let decoded = try DecodedImage.decodeWebP(version.bytes)
            precondition(decoded.width == side && decoded.height == side, "decodes to \(decoded.width) x \(decoded.height)")
        } catch {
            preconditionFailure("made a WebP that does not decode: \(error)")
        }
    }
}

func checkStripper(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let stripped = WebPMetadata.stripped(Array(bytes)) else { return }
    precondition(stripped.count <= bytes.count)
    precondition(WebPMetadata.stripped(stripped) == stripped, "stripping twice changed it")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    checkProcessing(bytes)
    checkStripper(bytes)
    return 0
}
