package import Foundation
internal import Synchronization

/// For `--dev`: hands out a ``TemplateLibrary`` that follows the template directory, re-reading
/// templates whose files changed (size or modification time), appeared or disappeared since the
/// last call.
///
/// State ownership: the last good library, the sources it was built from and their files'
/// fingerprints live in one `Mutex`; ``library()`` holds it while it lists the directory and,
/// when something changed, rebuilds. A broken template is reported as an error on every call
/// until it is fixed; the state is only replaced by a library that compiled.
package final class TemplateReloader: Sendable {
    private struct State {
        var files: [TemplateDirectory.File]
        var sources: [String: String]
        var library: TemplateLibrary
    }

    private let directory: TemplateDirectory
    private let state: Mutex<State>

    /// Loads every template in `directory` now, as ``TemplateLibrary/init(directory:)`` does.
    /// - Throws: ``TemplateError`` when the directory cannot be read or a template does not parse.
    package init(directory: URL) throws(TemplateError) {
        self.directory = TemplateDirectory(url: directory)
        let files = try self.directory.templateFiles()
        var sources: [String: String] = [:]
        for file in files { sources[file.name] = try file.read() }
        let library = try TemplateLibrary(sources: sources, files: Self.paths(files))
        state = Mutex(State(files: files, sources: sources, library: library))
    }

    /// The library for the templates as they are on disk now.
    /// - Throws: ``TemplateError`` when the directory cannot be read or a changed template does
    ///   not parse (with its file, line and column).
    package func library() throws(TemplateError) -> TemplateLibrary {
        let files = try directory.templateFiles()
        return try state.withLock { state throws(TemplateError) -> TemplateLibrary in
            guard files != state.files else { return state.library }
            let previous = Dictionary(state.files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var sources: [String: String] = [:]
            for file in files {
                if previous[file.name] == file, let unchanged = state.sources[file.name] {
                    sources[file.name] = unchanged
                } else {
                    sources[file.name] = try file.read()
                }
            }
            let library = try TemplateLibrary(sources: sources, files: Self.paths(files))
            state = State(files: files, sources: sources, library: library)
            return library
        }
    }

    /// The newest library that compiled, without looking at the files: what an error page can
    /// still be rendered with while a changed template is broken.
    package var lastCompiled: TemplateLibrary {
        state.withLock { $0.library }
    }

    private static func paths(_ files: [TemplateDirectory.File]) -> [String: String] {
        Dictionary(files.map { ($0.name, $0.path) }, uniquingKeysWith: { first, _ in first })
    }
}
