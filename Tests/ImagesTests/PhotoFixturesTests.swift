import Foundation
import Images
import TestSupport
import Testing

/// The committed photo fixtures (Tests/Support/Photos) are what manifest.json says they are: the
/// same bytes (SHA-256), no file more or less, the format their name gives, within the budget.
/// And the check that guards them can fail: a set with one byte changed, a file added or one
/// missing is refused.
@Suite struct PhotoFixturesTests {
    @Test func theCommittedFilesAreTheOnesTheManifestHashes() throws {
        let fixtures = try PhotoFixtures.shared()
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.directory.path)
        #expect(Set(fixtures.listedHashes.keys) == Set(names).subtracting(["manifest.json"]))
        #expect(fixtures.listedHashes.count >= 70, "the pipeline's fixtures and 48 upload variants")
        let total = try names.reduce(0) { $0 + (try fixtures.bytes($1)).count }
        #expect(total <= PhotoFixtures.budget)
    }

    @Test func eachImageIsInTheFormatItsNameGives() throws {
        let fixtures = try PhotoFixtures.shared()
        let expected: [String: PhotoFormat] = ["jpg": .jpeg, "png": .png, "gif": .gif, "webp": .webp, "heic": .heif]
        let notImages: Set<String> = ["text.jpg", "empty.jpg", "drawing.svg", "image.tiff"]
        for name in fixtures.listedHashes.keys.sorted() {
            let format = PhotoFormat.detect(try fixtures.bytes(name).prefix(PhotoFormat.signatureLength))
            if notImages.contains(name) {
                #expect(format == nil, "\(name) is not an accepted image")
            } else {
                let suffix = String(name.split(separator: ".").last ?? "")
                #expect(format == expected[suffix], "\(name)")
            }
        }
    }

    @Test func aChangedByteIsCaught() throws {
        let set = try smallSet()
        defer { try? FileManager.default.removeItem(at: set) }
        #expect(throws: Never.self) { try PhotoFixtures.read(set) }
        let victim = set.appendingPathComponent("one.png")
        var bytes = try Data(contentsOf: victim)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: victim)
        do {
            _ = try PhotoFixtures.read(set)
            Issue.record("a changed byte went unnoticed")
        } catch {
            #expect(error.message.hasPrefix("one.png: SHA-256"), "\(error.message)")
        }
    }

    @Test func anUnlistedOrMissingFileIsCaught() throws {
        let set = try smallSet()
        defer { try? FileManager.default.removeItem(at: set) }
        try Data("extra".utf8).write(to: set.appendingPathComponent("extra.png"))
        #expect(throws: FixtureError.self) { try PhotoFixtures.read(set) }
        try FileManager.default.removeItem(at: set.appendingPathComponent("extra.png"))
        #expect(throws: Never.self) { try PhotoFixtures.read(set) }
        try FileManager.default.removeItem(at: set.appendingPathComponent("two.jpg"))
        #expect(throws: FixtureError.self) { try PhotoFixtures.read(set) }
    }

    /// Two of the committed files and a manifest listing them, in a directory of its own: the
    /// check's own logic, without hashing the whole set again (pure-Swift SHA-256 in a debug build).
    private func smallSet() throws -> URL {
        let fixtures = try PhotoFixtures.shared()
        let set = FileManager.default.temporaryDirectory.appendingPathComponent("quotebook-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        var manifest: [String: [String: String]] = [:]
        for (name, source) in [("one.png", "tiny.png"), ("two.jpg", "cmyk.jpg")] {
            try FileManager.default.copyItem(atPath: fixtures.path(source), toPath: set.appendingPathComponent(name).path)
            manifest[name] = ["sha256": try #require(fixtures.listedHashes[source])]
        }
        try JSONEncoder().encode(manifest).write(to: set.appendingPathComponent("manifest.json"))
        return set
    }
}
