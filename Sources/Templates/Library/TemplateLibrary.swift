package import Foundation

/// A set of compiled templates by name; immutable, Sendable, shared across threads.
///
/// A final class: a page takes the library it renders with by reference, one retain, where a
/// struct of its four parts took four, each on an object both event loops share (refcounts.sh).
///
/// Every template is parsed when the library is built, so a broken template fails startup, not a
/// request. Partials (`{{>name}}`) and parents (`{{<name}}`) resolve by name within the same
/// library; a missing one renders as the empty string (Mustache spec, `partials`). Rendering
/// allocates its output buffer and context stack; the only shared mutable state it touches is
/// the library's ``FragmentCache`` of section bodies rendered for keyed objects
/// (``TemplateObject/fragmentKey``), behind its own lock.
///
/// Implements the Mustache spec (mustache/spec v1.4.2+) modules comments, delimiters,
/// interpolation, inverted, partials, sections, and the optional `~inheritance` and
/// `~dynamic-names`; not `~lambdas`.
package final class TemplateLibrary: Sendable {
    private let programs: [Program]
    private let programIndexes: [String: Int]
    /// Output buffer size to reserve per program: twice its static text plus that of the
    /// templates it names statically, so a typical page renders without regrowing.
    private let capacities: [Int]
    private let fragments: FragmentCache

    /// Compiles `sources` (template name → template text).
    /// - Throws: ``TemplateError`` for the first template, in name order, that does not parse;
    ///   its `file` is the template's name.
    package convenience init(sources: [String: String]) throws(TemplateError) {
        try self.init(sources: sources, files: [:])
    }

    /// Loads and compiles every `NAME.mustache` file directly in `directory` (not in
    /// subdirectories); each template's name is its file name without the extension.
    /// - Throws: ``TemplateError`` when the directory cannot be read, or for the first template,
    ///   in name order, that does not parse (with its file path, line and column).
    package convenience init(directory: URL) throws(TemplateError) {
        let files = try TemplateDirectory(url: directory).templateFiles()
        var sources: [String: String] = [:]
        var paths: [String: String] = [:]
        for file in files {
            sources[file.name] = try file.read()
            paths[file.name] = file.path
        }
        try self.init(sources: sources, files: paths)
    }

    /// Compiles `sources`, naming template `name` as `files[name]` (or `name`) in errors.
    init(sources: [String: String], files: [String: String]) throws(TemplateError) {
        let names = sources.keys.sorted()
        var indexes: [String: Int] = [:]
        for (index, name) in names.enumerated() { indexes[name] = index }
        var programs: [Program] = []
        programs.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            programs.append(
                try Compiler.compile(
                    source: sources[name] ?? "", name: name, file: files[name] ?? name, index: index,
                    library: indexes))
        }
        self.programs = programs
        self.programIndexes = indexes
        fragments = FragmentCache()
        capacities = programs.map { program in
            let called = program.calls.reduce(0) { total, call in
                if case .resolved(let index) = call.target { return total + programs[index].text.count }
                return total
            }
            return max(1024, (program.text.count + called) * 2)
        }
    }

    /// Every static partial or parent tag naming a template this library does not hold, with
    /// its file, line and column. The spec renders such a tag as nothing, so this is not an
    /// error here; an application whose templates must all resolve checks it at start-up.
    package var unresolvedReferences: [TemplateError] {
        programs.flatMap(\.unresolved)
    }

    /// The templates' names, sorted.
    package var names: [String] { programs.map(\.name) }

    /// Whether the library holds a template called `name`.
    package func contains(_ name: String) -> Bool {
        programIndexes[name] != nil
    }

    /// Renders template `name` with `context` as the bottom of the context stack.
    /// - Throws: ``TemplateError`` when there is no such template, or partials nest more than
    ///   100 deep.
    package func render(_ name: String, context: TemplateValue) throws(TemplateError) -> String {
        String(decoding: try renderBytes(name, context: context), as: UTF8.self)
    }

    /// Renders template `name` with `context` to UTF-8 bytes, skipping the `String` conversion
    /// (for writing straight into a response body).
    /// - Throws: as ``render(_:context:)``.
    package func renderBytes(_ name: String, context: TemplateValue) throws(TemplateError) -> [UInt8] {
        guard let index = programIndexes[name] else {
            throw TemplateError(file: nil, line: 0, column: 0, message: "no template named '\(name)'")
        }
        let program = programs[index]
        var renderer = Renderer(
            programs: programs, programIndexes: programIndexes, fragments: fragments, context: context,
            capacity: capacities[index])
        try renderer.render(program)
        return renderer.output
    }
}
