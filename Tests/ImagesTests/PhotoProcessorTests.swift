import Foundation
import Images
import TestSupport
import Testing

/// PhotoProcessor on real files made by Pillow and pillow-heif (PhotoFixtures, committed), checked
/// by decoding what it made (DecodedImage) and by reading the WebP container (WebPContainer).
///
/// Processing blocks for tens of milliseconds and checking the fixtures' hashes for a few, so
/// both run on threads of their own (`offPool`), never on a cooperative-pool thread, which the
/// live-server suites running beside these need. One test at a time (`.serialized`): under
/// ThreadSanitizer several at once starve each other. No test asserts how fast anything is.
@Suite(.serialized) struct PhotoProcessorTests {
    /// Files with metadata of every kind: EXIF with a GPS position, XMP, IPTC, comments, ICC.
    static let withMetadata = ["oriented.jpg", "adobe-rgb.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp"]

    @Test func turnsJPEGUprightByItsEXIFOrientation() async throws {
        let fixtures = try await sharedFixtures()
        #expect(try fixtures.numbers("oriented.jpg", "stored") == [300, 200] as [Int])
        let made = try await processed(fixtures.path("oriented.jpg"))

        for (version, image) in [(made.photo.large, made.large), (made.photo.small, made.small)] {
            #expect(image.width == version.width && image.height == version.height)
            // The marker is at x 150-189, y 10-49 of the 200 px square a person sees (photo_fixtures.py).
            let scale = Double(image.width) / 200
            func at(_ x: Double, _ y: Double) -> ArraySlice<UInt8> { image.pixel(x: Int(x * scale), y: Int(y * scale)) }
            #expect(isClose(at(170, 30), to: [230, 20, 20], within: 40), "top right: the marker, turned upright")
            #expect(isClose(at(30, 30), to: [128, 128, 128], within: 20), "top left: where it is when not turned")
            #expect(isClose(at(30, 170), to: [128, 128, 128], within: 20))
            #expect(isClose(at(170, 170), to: [128, 128, 128], within: 20))
        }
        let sizes = [made.photo.large.width, made.photo.large.height, made.photo.small.width, made.photo.small.height]
        #expect(sizes == [512, 512, 96, 96] as [Int])
    }

    @Test(arguments: withMetadata)
    func keepsNoMetadata(_ name: String) async throws {
        let fixtures = try await sharedFixtures()
        let secret = Array(try fixtures.text("secret").utf8)
        let input = try fixtures.bytes(name)
        #expect(contains(input, secret) || name == "adobe-rgb.jpg", "the input carries the secret in its metadata")

        let photo = try await processed(fixtures.path(name)).photo
        for version in [photo.large, photo.small] {
            let container = try #require(WebPContainer(version.bytes), "a well-formed RIFF/WEBP file")
            #expect(Set(container.chunks).isSubset(of: ["VP8 ", "VP8L", "VP8X", "ALPH"]), "chunks: \(container.chunks)")
            #expect(!container.chunks.contains { ["EXIF", "XMP ", "ICCP"].contains($0) })
            let flags = container.extendedFlags ?? 0
            #expect(flags & (WebPContainer.iccFlag | WebPContainer.exifFlag | WebPContainer.xmpFlag) == 0)
            #expect(!contains(version.bytes, secret))
            #expect(!contains(version.bytes, Array("Exif".utf8)) && !contains(version.bytes, Array("GPS".utf8)))
        }
    }

    @Test(arguments: [
        ("oriented.jpg", PhotoFormat.jpeg), ("cmyk.jpg", .jpeg), ("adobe-rgb.jpg", .jpeg), ("photo.heic", .heif),
        ("alpha.png", .png), ("odd.png", .png), ("tiny.png", .png), ("grey16.png", .png), ("animated.gif", .gif),
        ("photo.webp", .webp),
    ])
    func makesTwoSquaresOfEveryAcceptedFormat(_ name: String, format: PhotoFormat) async throws {
        let made = try await processed(sharedFixtures().path(name))
        let (photo, large, small) = (made.photo, made.large, made.small)
        #expect(photo.sourceFormat == format)
        #expect([large.width, large.height, photo.large.width, photo.large.height] == [512, 512, 512, 512] as [Int])
        #expect([small.width, small.height, photo.small.width, photo.small.height] == [96, 96, 96, 96] as [Int])
        #expect(photo.small.bytes.count < photo.large.bytes.count)
        // The small one is the large one made smaller: the same colour in the middle.
        let middle = large.pixel(x: 256, y: 256)
        #expect(isClose(small.pixel(x: 48, y: 48), to: middle.prefix(3).map(Int.init), within: 12))
    }

    /// Squared before resizing: resizing first would make the 10,000 x 1 PNG 5,120,000 x 512 px
    /// (7.8 GB, minutes) on the way to a 512 px square. Its time is printed, not asserted.
    @Test(arguments: ["wide.png", "tall.jpg"])
    func squaresAVeryLongImageInItsOwnSize(_ name: String) async throws {
        let made = try await processed(sharedFixtures().path(name))
        print("PhotoProcessorTests: \(name) squared in \(made.elapsed)")
        #expect([made.large.width, made.large.height] == [512, 512] as [Int])
        #expect(isClose(made.large.pixel(x: 256, y: 256), to: [10, 200, 30], within: 12))
    }

    @Test func decodesHEICPixels() async throws {
        // 400 x 300 blue with a yellow square in the middle (photo_fixtures.py, heic).
        let image = try await processed(sharedFixtures().path("photo.heic")).large
        #expect(isClose(image.pixel(x: 256, y: 256), to: [250, 220, 30], within: 30))
        #expect(isClose(image.pixel(x: 20, y: 20), to: [30, 60, 200], within: 30))
    }

    @Test func convertsEmbeddedICCProfileToSRGB() async throws {
        let fixtures = try await sharedFixtures()
        let tagged = try fixtures.numbers("adobe-rgb.jpg", "tagged")
        let expected = try fixtures.numbers("adobe-rgb.jpg", "srgb")
        #expect(tagged.count == 3 && expected.count == 3)
        // LittleCMS (through Pillow) says how Adobe RGB (40, 200, 60) looks in sRGB: far enough from
        // the numbers themselves that keeping them unconverted fails this test.
        #expect(zip(tagged, expected).contains { abs($0 - $1) > 15 })

        let centre = try await processed(fixtures.path("adobe-rgb.jpg")).large.pixel(x: 256, y: 256)
        #expect(isClose(centre, to: expected, within: 6), "got \(Array(centre)), want \(expected)")
    }

    @Test func keepsOnlyTheFirstGIFFrame() async throws {
        let made = try await processed(sharedFixtures().path("animated.gif"))
        #expect(isClose(made.large.pixel(x: 256, y: 256), to: [220, 0, 0], within: 25))
        #expect(WebPContainer(made.photo.large.bytes).map { !$0.chunks.contains("ANIM") } == true)
    }

    @Test(arguments: ["bomb.png", "bomb-small.png"])
    func refusesDecompressionBombFromItsHeaderAlone(_ name: String) async throws {
        let fixtures = try await sharedFixtures()
        #expect(try fixtures.numbers(name, "stored") == [60000, 60000] as [Int])
        let (outcome, elapsed) = await processing(fixtures.path(name))
        #expect(throws: PhotoProcessingError.tooLarge(width: 60000, height: 60000)) { try outcome.get() }
        // Refused from the header, so in milliseconds; decoding 3.6 gigapixels would take minutes
        // and 10.8 GB (refusesDecompressionBombInBoundedMemory measures the memory). Printed, not asserted.
        print("PhotoProcessorTests: \(name) (\(try fixtures.number(name, "bytes")) bytes) refused in \(elapsed)")
    }

    /// In a process of its own, so that its peak memory (VmHWM, proc(5)) is the refusal's alone:
    /// the peak may not grow by 32 MiB while refusing an image that decoded would take 10.8 GB.
    /// (Issues recorded in the child are reported here, by Swift Testing's exit tests.)
    @Test func refusesDecompressionBombInBoundedMemory() async throws {
        let path = try await sharedFixtures().path("bomb.png")
        await #expect(processExitsWith: .success) { [path = path as String] in
            let processor = PhotoProcessor()
            let before = try peakResidentKiB()
            #expect(throws: PhotoProcessingError.tooLarge(width: 60000, height: 60000)) {
                try processor.process(fileAt: path)
            }
            let growth = try peakResidentKiB() - before
            #expect(growth < 32 * 1024, "the peak resident set grew by \(growth) KiB")
        }
    }

    /// In a process of its own: every file descriptor libvips opened is closed again (an image
    /// still referenced would keep its file open), and resident memory stays flat over 36 more
    /// photos (a leaked 512 px image is 768 KiB at least) and 24 refusals.
    @Test func releasesEverythingItMakes() async throws {
        let directory = try await sharedFixtures().directory.path
        await #expect(processExitsWith: .success) { [directory = directory as String] in
            let processor = PhotoProcessor()
            func round() {
                for name in ["oriented.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp", "adobe-rgb.jpg"] {
                    #expect(throws: Never.self) { try processor.process(fileAt: "\(directory)/\(name)") }
                }
                for name in ["truncated.jpg", "bomb.png", "text.jpg", "image.tiff"] {
                    #expect(throws: PhotoProcessingError.self) { try processor.process(fileAt: "\(directory)/\(name)") }
                }
            }
            round()  // warm-up: the first photo loads libvips, which keeps descriptors of its own open
            let descriptors = try openDescriptorCount()
            round()  // and libvips' and malloc's own first allocations
            #expect(try openDescriptorCount() == descriptors)
            // Resident memory settles over the first rounds (malloc's arenas, libvips' caches and
            // threads, and under ThreadSanitizer its shadow memory: 8 to 11 MiB there, 1 to 2.5
            // MiB in a plain build), then stays level (under 4 MiB and 0.2 MiB over 36 more
            // photos). So the bound is on the 36 photos after 36 more to settle, where a leaked
            // 512 px image a photo (768 KiB) grows past it as it would in the first span.
            for _ in 0..<6 { round() }
            let resident = try residentKiB()
            for _ in 0..<6 { round() }
            let growth = try residentKiB() - resident
            #expect(growth < 16 * 1024, "resident memory grew by \(growth) KiB over 36 photos, after 36 to settle")
            #expect(try openDescriptorCount() == descriptors)
        }
    }

    @Test(arguments: ["text.jpg", "drawing.svg", "empty.jpg", "image.tiff"])
    func refusesWhatIsNotAnAcceptedImage(_ name: String) async throws {
        let (outcome, _) = await processing(try sharedFixtures().path(name))
        #expect(throws: PhotoProcessingError.unsupportedFormat) { try outcome.get() }
    }

    @Test(arguments: ["truncated.jpg", "truncated-progressive.jpg"])
    func refusesTruncatedJPEGAsDamaged(_ name: String) async throws {
        let (outcome, _) = await processing(try sharedFixtures().path(name))
        let error = #expect(throws: PhotoProcessingError.self) { try outcome.get() }
        guard case .damaged(let format, let detail)? = error else {
            Issue.record("expected .damaged, got \(String(describing: error))")
            return
        }
        #expect(format == .jpeg)
        #expect(!detail.isEmpty)
        #expect(error?.isUploadRefused == true)
    }

    @Test func reportsAMissingFileAsUnreadable() async {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-photo-\(UUID().uuidString)").path
        let (outcome, _) = await processing(path)
        #expect(throws: PhotoProcessingError.unreadableFile(operation: "open", errno: ENOENT)) { try outcome.get() }
    }

    @Test func refusesAnImageOverCustomLimitsBeforeDecoding() async throws {
        let path = try await sharedFixtures().path("oriented.jpg")  // 300 x 200
        let narrow = await processing(path, limits: PhotoLimits(maxPixels: 1_000_000, maxSide: 299)).result
        #expect(throws: PhotoProcessingError.tooLarge(width: 300, height: 200)) { try narrow.get() }
        let small = await processing(path, limits: PhotoLimits(maxPixels: 59_999, maxSide: 1000)).result
        #expect(throws: PhotoProcessingError.tooLarge(width: 300, height: 200)) { try small.get() }
        let exact = await processing(path, limits: PhotoLimits(maxPixels: 60_000, maxSide: 300)).result
        #expect(try exact.get().large.width == 512)
    }

    /// Eighteen calls at once, each on a thread of its own, give what one call gives.
    @Test func givesTheSameBytesFromSeveralThreadsAtOnce() async throws {
        let fixtures = try await sharedFixtures()
        let paths = ["oriented.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp", "adobe-rgb.jpg"].map(fixtures.path)
        var expected: [ProcessedPhoto] = []
        for path in paths { expected.append(try await processed(path).photo) }
        let all = await withTaskGroup(of: (Int, Result<ProcessedPhoto, PhotoProcessingError>).self) { group in
            for index in 0..<(paths.count * 3) {
                group.addTask { (index, await processing(paths[index % paths.count]).result) }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(all.count == paths.count * 3)
        for (index, result) in all {
            #expect(try result.get() == expected[index % paths.count], "\(paths[index % paths.count]), call \(index)")
        }
    }

    @Test func processesATwelveMegapixelPhoneJPEG() async throws {
        let fixtures = try await sharedFixtures()
        #expect(try fixtures.numbers("large.jpg", "stored") == [4000, 3000] as [Int])
        let (outcome, elapsed) = await processing(fixtures.path("large.jpg"))
        print("PhotoProcessorTests: a 4000 x 3000 JPEG of \(try fixtures.number("large.jpg", "bytes")) bytes took \(elapsed)")
        let photo = try outcome.get()
        #expect([photo.large.width, photo.small.width] == [512, 96] as [Int])
    }
}

/// The fixtures, read and checked on a thread of its own the first time.
func sharedFixtures() async throws -> PhotoFixtures {
    try await offPool { try PhotoFixtures.shared() }
}

/// A photo made by a standard PhotoProcessor, its two versions decoded, and how long the making took.
struct Made: Sendable {
    let photo: ProcessedPhoto
    let large: DecodedImage
    let small: DecodedImage
    let elapsed: Duration
}

/// Processes the file at `path` and decodes both versions, on a thread of its own.
func processed(_ path: String) async throws -> Made {
    try await offPool {
        let processor = PhotoProcessor()
        let clock = ContinuousClock()
        let start = clock.now
        let photo = try processor.process(fileAt: path)
        let elapsed = clock.now - start
        return Made(
            photo: photo, large: try DecodedImage.decodeWebP(photo.large.bytes), small: try DecodedImage.decodeWebP(photo.small.bytes),
            elapsed: elapsed)
    }
}

/// What processing the file at `path` within `limits` gives, and how long it took, on a thread of its own.
func processing(_ path: String, limits: PhotoLimits = .standard) async
    -> (result: Result<ProcessedPhoto, PhotoProcessingError>, elapsed: Duration)
{
    await offPool {
        let clock = ContinuousClock()
        let start = clock.now
        let result = Result { () throws(PhotoProcessingError) in try PhotoProcessor(limits: limits).process(fileAt: path) }
        return (result, clock.now - start)
    }
}

/// This process's peak resident set size so far, in KiB: VmHWM in /proc/self/status (proc(5)).
func peakResidentKiB() throws -> Int {
    try statusKiB("VmHWM")
}

/// This process's resident set size, in KiB: VmRSS in /proc/self/status (proc(5)).
func residentKiB() throws -> Int {
    try statusKiB("VmRSS")
}

func statusKiB(_ field: String) throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
        let kiB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { throw FixtureError(message: "no \(field) in /proc/self/status") }
    return kiB
}

/// How many file descriptors this process has open: the entries of /proc/self/fd.
func openDescriptorCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
}

/// Whether the first three samples of `pixel` are each within `tolerance` of `rgb`.
func isClose(_ pixel: ArraySlice<UInt8>, to rgb: [Int], within tolerance: Int) -> Bool {
    zip(pixel.prefix(3), rgb).allSatisfy { abs(Int($0) - $1) <= tolerance }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start..<(start + needle.count)].elementsEqual(needle)
    }
}
