package import Foundation
import App

/// The image files committed in Tests/Support/Photos/ for the photo pipeline's tests
/// (ImagesTests) and real photos for the app's uploads (`variant-N.png`). They were made with
/// Pillow and pillow-heif by Tests/Support/photo_fixtures.py, which remakes them; the tests need
/// no Python. manifest.json says what each file holds and its SHA-256, checked before use.
package struct PhotoFixtures: Sendable {
    package let directory: URL
    package let manifest: [String: JSONValue]

    /// The committed set's size limit in bytes (photo_fixtures.py's BUDGET): every clone carries it.
    package static let budget = 4 * 1024 * 1024

    /// The fixtures, read and checked on first use. A file whose SHA-256 is not the manifest's,
    /// or a file the manifest does not list, fails every test that needs them, naming the file.
    package static func shared() throws -> PhotoFixtures {
        try checked.get()
    }

    private static let checked: Result<PhotoFixtures, FixtureError> = {
        do throws(FixtureError) {
            return .success(try read(RepositoryPaths.root.appendingPathComponent("Tests/Support/Photos", isDirectory: true)))
        } catch {
            return .failure(error)
        }
    }()

    /// The path of the file `name` among the fixtures.
    package func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The bytes of the file `name`.
    package func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The numbers the manifest lists under `key` for the file `name`, such as its "stored" size.
    package func numbers(_ name: String, _ key: String) throws -> [Int] {
        guard case .object(let entry)? = manifest[name], case .array(let values)? = entry[key] else {
            throw FixtureError(message: "manifest.json has no \(key) for \(name)")
        }
        return try values.map { value in
            guard case .number(let number) = value else { throw FixtureError(message: "\(name).\(key): not numbers") }
            return Int(number)
        }
    }

    /// The number the manifest lists under `key` for the file `name`, such as its size in "bytes".
    package func number(_ name: String, _ key: String) throws -> Int {
        guard case .object(let entry)? = manifest[name], case .number(let value)? = entry[key] else {
            throw FixtureError(message: "manifest.json has no \(key) for \(name)")
        }
        return Int(value)
    }

    /// The manifest's text under `key`.
    package func text(_ key: String) throws -> String {
        guard case .string(let text)? = manifest[key] else { throw FixtureError(message: "manifest.json has no \(key)") }
        return text
    }

    /// The file names the manifest lists, each with the SHA-256 it gives, in hex.
    package var listedHashes: [String: String] {
        manifest.reduce(into: [:]) { hashes, item in
            if case .object(let entry) = item.value, case .string(let hash)? = entry["sha256"] {
                hashes[item.key] = hash
            }
        }
    }

    /// Reads manifest.json in `directory`, then checks that the directory holds exactly the
    /// files it lists, each with the SHA-256 it gives, and no more than `budget` bytes in all.
    package static func read(_ directory: URL) throws(FixtureError) -> PhotoFixtures {
        let fixtures: PhotoFixtures
        let names: [String]
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
            guard case .object(let manifest) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                throw FixtureError(message: "manifest.json is not an object")
            }
            fixtures = PhotoFixtures(directory: directory, manifest: manifest)
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "manifest.json" }
        } catch let error as FixtureError {
            throw error
        } catch {
            throw FixtureError(message: "\(directory.path)/manifest.json: \(error)")
        }
        let listed = fixtures.listedHashes
        let unlisted = Set(names).subtracting(listed.keys).sorted()
        let missing = Set(listed.keys).subtracting(names).sorted()
        guard unlisted.isEmpty, missing.isEmpty else {
            throw FixtureError(message: "Tests/Support/Photos: not in manifest.json \(unlisted), missing \(missing)")
        }
        var total = 0
        for name in names.sorted() {
            guard let bytes = try? fixtures.bytes(name) else { throw FixtureError(message: "\(name): unreadable") }
            total += bytes.count
            let hash = SHA256.hexDigest(bytes)
            guard hash == listed[name] else {
                throw FixtureError(message: "\(name): SHA-256 \(hash), but manifest.json says \(listed[name] ?? "")")
            }
        }
        guard total <= budget else {
            throw FixtureError(message: "Tests/Support/Photos holds \(total) bytes, over its budget of \(budget)")
        }
        return fixtures
    }
}

/// The fixtures could not be read, or are not what manifest.json says; `message` says which and why.
package struct FixtureError: Error, CustomStringConvertible {
    package let message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}

/// Just enough JSON for manifest.json.
package enum JSONValue: Decodable, Sendable {
    case number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// Real photos for upload tests (Tests/Support/Photos), read on a thread of their own.
package enum TestPhotos {
    /// A 40 x 30 PNG of a colour unlike every other `variant` (0 to 47).
    package static func png(_ variant: Int) async throws -> [UInt8] {
        try await file("variant-\(variant).png")
    }

    /// The fixture `name`, such as `oriented.jpg` (EXIF orientation 6 and a GPS position) or `bomb.png`.
    package static func file(_ name: String) async throws -> [UInt8] {
        try await offPool { try PhotoFixtures.shared().bytes(name) }
    }
}
