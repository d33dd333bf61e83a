package import Foundation
import Synchronization

/// Image files made for the tests by Tests/Support/photo_fixtures.py with Pillow and
/// pillow-heif, once per test process, in a temporary directory removed at exit: the photo
/// pipeline's (ImagesTests) and real photos for the app's uploads (`variant-N.png`).
package struct PhotoFixtures: Sendable {
    package let directory: URL
    package let manifest: [String: JSONValue]

    /// The fixtures, made on first use. A missing Python, Pillow or pillow-heif fails every test
    /// that needs them, with the script's message saying what to install; nothing is skipped.
    package static func shared() throws -> PhotoFixtures {
        try made.get()
    }

    /// A 12-megapixel JPEG (large.jpg) in a directory of its own, which the caller removes.
    package static func makeLarge() throws -> PhotoFixtures {
        try make(arguments: ["--large"])
    }

    private static let made: Result<PhotoFixtures, FixtureError> = {
        do throws(FixtureError) {
            let fixtures = try make(arguments: [])
            madeDirectory.withLock { $0 = fixtures.directory.path }
            atexit { madeDirectory.withLock { path in if let path { try? FileManager.default.removeItem(atPath: path) } } }
            return .success(fixtures)
        } catch {
            return .failure(error)
        }
    }()

    private static let madeDirectory = Mutex<String?>(nil)

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

    private static func make(arguments: [String]) throws(FixtureError) -> PhotoFixtures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quotebook-photos-\(UUID().uuidString)")
        let script = RepositoryPaths.root.appendingPathComponent("Tests/Support/photo_fixtures.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, directory.path] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw FixtureError(message: "could not run python3 \(script.path): \(error)")
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "python3 \(script.lastPathComponent) failed (exit \(process.terminationStatus)):\n\(message)")
        }
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
            guard case .object(let manifest) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                throw FixtureError(message: "manifest.json is not an object")
            }
            return PhotoFixtures(directory: directory, manifest: manifest)
        } catch let error as FixtureError {
            throw error
        } catch {
            throw FixtureError(message: "manifest.json: \(error)")
        }
    }
}

/// The fixtures could not be made; `message` says why and what to install.
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

/// Real photos for upload tests, made by Pillow (photo_fixtures.py) on a thread of its own.
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
