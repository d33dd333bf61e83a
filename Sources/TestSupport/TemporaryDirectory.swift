package import Foundation

/// A fresh directory under the system's temporary folder, removed by ``remove()``.
package struct TemporaryDirectory: Sendable {
    package let url: URL

    package init(prefix: String = "quotebook-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
