package import Foundation

/// Folders of this repository, found from this file's location so tests run from any directory.
package enum RepositoryPaths {
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    package static let templates = root.appendingPathComponent("Templates", isDirectory: true)
    package static let publicFiles = root.appendingPathComponent("Public", isDirectory: true)
}
