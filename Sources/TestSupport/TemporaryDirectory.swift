package import Foundation

/// A fresh directory under the system's temporary folder, removed by ``remove()``.
package struct TemporaryDirectory: Sendable {
    package let url: URL

    package init(prefix: String = "quotebook-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to the file `name` in this directory.
    package func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    /// Deletes the file `name` in this directory.
    package func delete(_ name: String) throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent(name))
    }

    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
