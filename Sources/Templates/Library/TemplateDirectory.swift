internal import Foundation

/// The `*.mustache` files directly inside one directory, with their sizes and modification
/// times so ``TemplateReloader`` can tell when one changed.
struct TemplateDirectory {
    /// One template file.
    struct File: Equatable {
        /// Template name: the file name without `.mustache`.
        var name: String
        /// Path for reading and for error messages.
        var path: String
        /// Size in bytes when listed.
        var size: Int
        /// Modification time when listed.
        var modified: Date

        /// The file's text.
        func read() throws(TemplateError) -> String {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                return String(decoding: data, as: UTF8.self)
            } catch {
                throw TemplateError(file: path, line: 0, column: 0, message: "cannot read template: \(error)")
            }
        }
    }

    /// The file extension that marks a template.
    static let fileExtension = "mustache"

    let url: URL

    /// The directory's template files, sorted by name.
    func templateFiles() throws(TemplateError) -> [File] {
        let manager = FileManager.default
        let entries: [String]
        do {
            entries = try manager.contentsOfDirectory(atPath: url.path)
        } catch {
            throw TemplateError(
                file: url.relativePath, line: 0, column: 0, message: "cannot read template directory: \(error)")
        }
        var files: [File] = []
        for entry in entries.sorted() where entry.hasSuffix("." + Self.fileExtension) {
            let name = String(entry.dropLast(Self.fileExtension.count + 1))
            guard !name.isEmpty else { continue }
            let path = url.appendingPathComponent(entry).relativePath
            guard let attributes = try? manager.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType != .typeDirectory
            else { continue }
            files.append(
                File(
                    name: name, path: path, size: (attributes[.size] as? NSNumber)?.intValue ?? -1,
                    modified: attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return files
    }
}
