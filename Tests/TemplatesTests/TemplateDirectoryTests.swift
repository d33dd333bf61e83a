import Foundation
import Templates
import TestSupport
import Testing

/// `TemplateLibrary(directory:)` and `TemplateReloader` on real files.
@Suite struct TemplateDirectoryTests {
    @Test func loadsEveryMustacheFileByName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("page.mustache", "{{<layout}}{{$body}}Hi {{name}}{{/body}}{{/layout}}")
        try directory.write("layout.mustache", "<main>{{$body}}{{/body}}</main>\n")
        try directory.write("notes.txt", "not a template {{")
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try directory.write("nested/skipped.mustache", "{{")
        let library = try TemplateLibrary(directory: directory.url)
        #expect(library.names == ["layout", "page"])
        #expect(try library.render("page", context: ["name": "Ada"]) == "<main>Hi Ada</main>\n")
    }

    @Test func reportsBrokenFileWithPathLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("good.mustache", "ok")
        try directory.write("quote.mustache", "<p>\n{{#quote}}\n  {{text}\n{{/quote}}\n")
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: directory.url) }
        #expect(error?.file == directory.url.appendingPathComponent("quote.mustache").relativePath)
        #expect(error?.line == 3)
        #expect(error?.column == 3)
        #expect(error?.description.hasSuffix("quote.mustache:3:3: expected '}}' to close tag") == true)
    }

    @Test func reportsMissingDirectory() {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        #expect(throws: TemplateError.self) { try TemplateLibrary(directory: missing) }
    }

    @Test func reloaderPicksUpChangedAddedAndRemovedFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.mustache", "A{{x}}")
        try directory.write("b.mustache", "B")
        let reloader = try TemplateReloader(directory: directory.url)
        #expect(try reloader.library().render("a", context: ["x": 1]) == "A1")

        try directory.write("a.mustache", "changed {{x}}!")
        #expect(try reloader.library().render("a", context: ["x": 2]) == "changed 2!")

        try directory.write("c.mustache", "C{{>b}}")
        try directory.delete("b.mustache")
        let library = try reloader.library()
        #expect(library.names == ["a", "c"])
        #expect(try library.render("c", context: [:]) == "C")
    }

    @Test func reloaderReportsBrokenTemplateUntilFixed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.mustache", "fine")
        let reloader = try TemplateReloader(directory: directory.url)
        _ = try reloader.library()

        try directory.write("a.mustache", "line one\n{{#open}} never closed")
        for _ in 0..<2 {
            let error = #expect(throws: TemplateError.self) { try reloader.library() }
            #expect(error?.line == 2)
            #expect(error?.column == 1)
            #expect(error?.file?.hasSuffix("a.mustache") == true)
        }

        try directory.write("a.mustache", "fixed again")
        #expect(try reloader.library().render("a", context: [:]) == "fixed again")
    }

    @Test func reloaderKeepsSameLibraryWhenNothingChanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.mustache", "{{x}}")
        let reloader = try TemplateReloader(directory: directory.url)
        for value in 0..<3 {
            #expect(try reloader.library().render("a", context: ["x": .int(value)]) == "\(value)")
        }
    }
}

/// Static partial and parent names that resolve to nothing are listed with their positions.
@Suite struct UnresolvedReferenceTests {
    @Test func listsPartialsAndParentsNamingNoTemplate() throws {
        let library = try TemplateLibrary(sources: [
            "page": "{{<layuot}}{{/layuot}}\n  {{>footer}}{{>*dynamic}}",
            "footer": "{{>missing}}",
        ])
        let found = library.unresolvedReferences.map(\.description).sorted()
        #expect(found == ["footer:1:1: no template named 'missing'", "page:1:1: no template named 'layuot'"])
    }

    @Test func listsNothingWhenEveryNameResolves() throws {
        let library = try TemplateLibrary(sources: ["page": "{{<layout}}{{/layout}}{{>layout}}", "layout": "x"])
        #expect(library.unresolvedReferences.isEmpty)
    }
}
