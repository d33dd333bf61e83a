import Foundation
import Images
import TestSupport
import Testing

/// The committed photo fixtures (Tests/Support/Photos) are what manifest.json says they are: the
/// same bytes (SHA-256), no file more or less, the format their name gives, within the budget.
/// And the check that guards them can fail: a copy with one byte changed, or a file added, is refused.
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
        let copy = try copyOfFixtures()
        defer { try? FileManager.default.removeItem(at: copy) }
        let victim = copy.appendingPathComponent("oriented.jpg")
        var bytes = try Data(contentsOf: victim)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: victim)
        #expect(throws: FixtureError.self) { try PhotoFixtures.read(copy) }
        do {
            _ = try PhotoFixtures.read(copy)
        } catch {
            #expect(error.message.hasPrefix("oriented.jpg: SHA-256"), "\(error.message)")
        }
    }

    @Test func anUnlistedFileIsCaught() throws {
        let copy = try copyOfFixtures()
        defer { try? FileManager.default.removeItem(at: copy) }
        try Data("extra".utf8).write(to: copy.appendingPathComponent("extra.png"))
        #expect(throws: FixtureError.self) { try PhotoFixtures.read(copy) }
        try FileManager.default.removeItem(at: copy.appendingPathComponent("extra.png"))
        #expect(throws: Never.self) { try PhotoFixtures.read(copy) }
        try FileManager.default.removeItem(at: copy.appendingPathComponent("tiny.png"))
        #expect(throws: FixtureError.self) { try PhotoFixtures.read(copy) }
    }

    private func copyOfFixtures() throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("quotebook-fixtures-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: try PhotoFixtures.shared().directory, to: copy)
        return copy
    }
}
