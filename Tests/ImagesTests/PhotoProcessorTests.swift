import Foundation
import Images
import Synchronization
import Testing

/// PhotoProcessor on real files made by Pillow and pillow-heif (PhotoFixtures), checked by
/// decoding what it made (DecodedImage) and by reading the WebP container (WebPContainer).
@Suite struct PhotoProcessorTests {
    /// Files with metadata of every kind: EXIF with a GPS position, XMP, IPTC, comments, ICC.
    static let withMetadata = ["oriented.jpg", "adobe-rgb.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp"]

    @Test func turnsJPEGUprightByItsEXIFOrientation() throws {
        let fixtures = try PhotoFixtures.shared()
        let photo = try PhotoProcessor().process(fileAt: fixtures.path("oriented.jpg"))
        #expect(try fixtures.numbers("oriented.jpg", "stored") == [300, 200] as [Int])

        for version in [photo.large, photo.small] {
            let image = try DecodedImage.decodeWebP(version.bytes)
            #expect(image.width == version.width && image.height == version.height)
            // The marker is at x 150-189, y 10-49 of the 200 px square a person sees (photo_fixtures.py).
            let scale = Double(image.width) / 200
            func at(_ x: Double, _ y: Double) -> ArraySlice<UInt8> { image.pixel(x: Int(x * scale), y: Int(y * scale)) }
            #expect(isClose(at(170, 30), to: [230, 20, 20], within: 40), "top right: the marker, turned upright")
            #expect(isClose(at(30, 30), to: [128, 128, 128], within: 20), "top left: where it is when not turned")
            #expect(isClose(at(30, 170), to: [128, 128, 128], within: 20))
            #expect(isClose(at(170, 170), to: [128, 128, 128], within: 20))
        }
        #expect([photo.large.width, photo.large.height, photo.small.width, photo.small.height] == [512, 512, 96, 96] as [Int])
    }

    @Test(arguments: withMetadata)
    func keepsNoMetadata(_ name: String) throws {
        let fixtures = try PhotoFixtures.shared()
        let secret = Array(try fixtures.text("secret").utf8)
        let input = try fixtures.bytes(name)
        #expect(contains(input, secret) || name == "adobe-rgb.jpg", "the input carries the secret in its metadata")

        let photo = try PhotoProcessor().process(fileAt: fixtures.path(name))
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
    func makesTwoSquaresOfEveryAcceptedFormat(_ name: String, format: PhotoFormat) throws {
        let fixtures = try PhotoFixtures.shared()
        let photo = try PhotoProcessor().process(fileAt: fixtures.path(name))
        #expect(photo.sourceFormat == format)
        let large = try DecodedImage.decodeWebP(photo.large.bytes)
        let small = try DecodedImage.decodeWebP(photo.small.bytes)
        #expect([large.width, large.height, photo.large.width, photo.large.height] == [512, 512, 512, 512] as [Int])
        #expect([small.width, small.height, photo.small.width, photo.small.height] == [96, 96, 96, 96] as [Int])
        #expect(photo.small.bytes.count < photo.large.bytes.count)
        // The small one is the large one made smaller: the same colour in the middle.
        let middle = large.pixel(x: 256, y: 256)
        #expect(isClose(small.pixel(x: 48, y: 48), to: middle.prefix(3).map(Int.init), within: 12))
    }

    /// Squared before resizing: resizing first would make the 10,000 x 1 PNG 5,120,000 x 512 px
    /// (7.8 GB, minutes) on the way to a 512 px square.
    @Test(arguments: ["wide.png", "tall.jpg"])
    func squaresAVeryLongImageInItsOwnSize(_ name: String) throws {
        let fixtures = try PhotoFixtures.shared()
        let processor = try PhotoProcessor()
        let clock = ContinuousClock()
        let start = clock.now
        let photo = try processor.process(fileAt: fixtures.path(name))
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(2), "took \(elapsed)")
        let image = try DecodedImage.decodeWebP(photo.large.bytes)
        #expect([image.width, image.height] == [512, 512] as [Int])
        #expect(isClose(image.pixel(x: 256, y: 256), to: [10, 200, 30], within: 12))
    }

    @Test func decodesHEICPixels() throws {
        // 400 x 300 blue with a yellow square in the middle (photo_fixtures.py, heic).
        let photo = try PhotoProcessor().process(fileAt: try PhotoFixtures.shared().path("photo.heic"))
        let image = try DecodedImage.decodeWebP(photo.large.bytes)
        #expect(isClose(image.pixel(x: 256, y: 256), to: [250, 220, 30], within: 30))
        #expect(isClose(image.pixel(x: 20, y: 20), to: [30, 60, 200], within: 30))
    }

    @Test func convertsEmbeddedICCProfileToSRGB() throws {
        let fixtures = try PhotoFixtures.shared()
        guard case .object(let entry)? = fixtures.manifest["adobe-rgb.jpg"] else { throw FixtureError(message: "no adobe-rgb.jpg") }
        let tagged = try fixtures.numbers("adobe-rgb.jpg", "tagged")
        let expected = try fixtures.numbers("adobe-rgb.jpg", "srgb")
        #expect(entry.count >= 3)
        // LittleCMS (through Pillow) says how Adobe RGB (40, 200, 60) looks in sRGB: far enough from
        // the numbers themselves that keeping them unconverted fails this test.
        #expect(zip(tagged, expected).contains { abs($0 - $1) > 15 })

        let photo = try PhotoProcessor().process(fileAt: fixtures.path("adobe-rgb.jpg"))
        let image = try DecodedImage.decodeWebP(photo.large.bytes)
        let centre = image.pixel(x: 256, y: 256)
        #expect(isClose(centre, to: expected, within: 6), "got \(Array(centre)), want \(expected)")
    }

    @Test func keepsOnlyTheFirstGIFFrame() throws {
        let photo = try PhotoProcessor().process(fileAt: try PhotoFixtures.shared().path("animated.gif"))
        let image = try DecodedImage.decodeWebP(photo.large.bytes)
        #expect(isClose(image.pixel(x: 256, y: 256), to: [220, 0, 0], within: 25))
        #expect(WebPContainer(photo.large.bytes).map { !$0.chunks.contains("ANIM") } == true)
    }

    @Test(arguments: ["bomb.png", "bomb-small.png"])
    func refusesDecompressionBombFromItsHeaderAlone(_ name: String) throws {
        let fixtures = try PhotoFixtures.shared()
        #expect(try fixtures.numbers(name, "stored") == [60000, 60000] as [Int])
        let processor = try PhotoProcessor()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: PhotoProcessingError.tooLarge(width: 60000, height: 60000)) {
            try processor.process(fileAt: fixtures.path(name))
        }
        let elapsed = clock.now - start
        print("PhotoProcessorTests: \(name) (\(try fixtures.number(name, "bytes")) bytes) refused in \(elapsed)")
        #expect(elapsed < .seconds(1), "refused in \(elapsed)")
    }

    /// In a process of its own, so that its peak memory (VmHWM, proc(5)) is the refusal's alone:
    /// the peak may not grow by 32 MiB while refusing an image that decoded would take 10.8 GB.
    /// (Issues recorded in the child are reported here, by Swift Testing's exit tests.)
    @Test func refusesDecompressionBombInBoundedMemory() async throws {
        let path = try PhotoFixtures.shared().path("bomb.png")
        await #expect(processExitsWith: .success) { [path = path as String] in
            let processor = try PhotoProcessor()
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
        let directory = try PhotoFixtures.shared().directory.path
        await #expect(processExitsWith: .success) { [directory = directory as String] in
            let processor = try PhotoProcessor()
            func round() {
                for name in ["oriented.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp", "adobe-rgb.jpg"] {
                    #expect(throws: Never.self) { try processor.process(fileAt: "\(directory)/\(name)") }
                }
                for name in ["truncated.jpg", "bomb.png", "text.jpg", "image.tiff"] {
                    #expect(throws: PhotoProcessingError.self) { try processor.process(fileAt: "\(directory)/\(name)") }
                }
            }
            let descriptors = try openDescriptorCount()
            for _ in 0..<2 { round() }  // warm-up: libvips' and malloc's own first allocations
            #expect(try openDescriptorCount() == descriptors)
            let resident = try residentKiB()
            for _ in 0..<6 { round() }
            let growth = try residentKiB() - resident
            #expect(growth < 16 * 1024, "resident memory grew by \(growth) KiB over 36 photos")
            #expect(try openDescriptorCount() == descriptors)
        }
    }

    @Test(arguments: ["text.jpg", "drawing.svg", "empty.jpg", "image.tiff"])
    func refusesWhatIsNotAnAcceptedImage(_ name: String) throws {
        let path = try PhotoFixtures.shared().path(name)
        #expect(throws: PhotoProcessingError.unsupportedFormat) { try PhotoProcessor().process(fileAt: path) }
    }

    @Test(arguments: ["truncated.jpg", "truncated-progressive.jpg"])
    func refusesTruncatedJPEGAsDamaged(_ name: String) throws {
        let path = try PhotoFixtures.shared().path(name)
        let error = #expect(throws: PhotoProcessingError.self) { try PhotoProcessor().process(fileAt: path) }
        guard case .damaged(let format, let detail)? = error else {
            Issue.record("expected .damaged, got \(String(describing: error))")
            return
        }
        #expect(format == .jpeg)
        #expect(!detail.isEmpty)
        #expect(error?.isUploadRefused == true)
    }

    @Test func reportsAMissingFileAsUnreadable() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-photo-\(UUID().uuidString)").path
        #expect(throws: PhotoProcessingError.unreadableFile(operation: "open", errno: ENOENT)) {
            try PhotoProcessor().process(fileAt: path)
        }
    }

    @Test func refusesAnImageOverCustomLimitsBeforeDecoding() throws {
        let path = try PhotoFixtures.shared().path("oriented.jpg")  // 300 x 200
        let narrow = try PhotoProcessor(limits: PhotoLimits(maxPixels: 1_000_000, maxSide: 299))
        #expect(throws: PhotoProcessingError.tooLarge(width: 300, height: 200)) { try narrow.process(fileAt: path) }
        let small = try PhotoProcessor(limits: PhotoLimits(maxPixels: 59_999, maxSide: 1000))
        #expect(throws: PhotoProcessingError.tooLarge(width: 300, height: 200)) { try small.process(fileAt: path) }
        let exact = try PhotoProcessor(limits: PhotoLimits(maxPixels: 60_000, maxSide: 300))
        #expect(try exact.process(fileAt: path).large.width == 512)
    }

    @Test func givesTheSameBytesFromSeveralThreadsAtOnce() throws {
        let fixtures = try PhotoFixtures.shared()
        let names = ["oriented.jpg", "photo.heic", "alpha.png", "animated.gif", "photo.webp", "adobe-rgb.jpg"]
        let processor = try PhotoProcessor()
        let expected = try names.map { try processor.process(fileAt: fixtures.path($0)) }
        let results = Mutex<[Int: Result<ProcessedPhoto, PhotoProcessingError>]>([:])
        let paths = names.map { fixtures.path($0) }
        DispatchQueue.concurrentPerform(iterations: names.count * 3) { index in
            let result = Result { () throws(PhotoProcessingError) in try processor.process(fileAt: paths[index % paths.count]) }
            results.withLock { $0[index] = result }
        }
        let all = results.withLock { $0 }
        #expect(all.count == names.count * 3)
        for (index, result) in all {
            #expect(try result.get() == expected[index % names.count], "\(names[index % names.count]) on thread \(index)")
        }
    }

    @Test func processesATwelveMegapixelPhoneJPEG() throws {
        let fixtures = try PhotoFixtures.makeLarge()
        defer { try? FileManager.default.removeItem(at: fixtures.directory) }
        #expect(try fixtures.numbers("large.jpg", "stored") == [4000, 3000] as [Int])
        let processor = try PhotoProcessor()
        let clock = ContinuousClock()
        let start = clock.now
        let photo = try processor.process(fileAt: fixtures.path("large.jpg"))
        let elapsed = clock.now - start
        print("PhotoProcessorTests: a 4000 x 3000 JPEG of \(try fixtures.number("large.jpg", "bytes")) bytes took \(elapsed)")
        #expect([photo.large.width, photo.small.width] == [512, 96] as [Int])
        #expect(elapsed < .seconds(10))
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
