package import Foundation

/// Folders of this repository, found from this file's location so tests run from any directory.
package enum RepositoryPaths {
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    package static let templates = root.appendingPathComponent("Templates", isDirectory: true)
    package static let publicFiles = root.appendingPathComponent("Public", isDirectory: true)

    /// Copies the repository's `Templates/` into `directory` (as `Templates/`, so `directory`
    /// can be a `--root`) and returns the copy, for tests that break or edit a template.
    package static func copyTemplates(into directory: URL) throws -> URL {
        let copy = directory.appendingPathComponent("Templates", isDirectory: true)
        try FileManager.default.copyItem(at: templates, to: copy)
        return copy
    }
}
