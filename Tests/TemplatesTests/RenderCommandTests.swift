import Foundation
import Templates
import TestSupport
import Testing

/// `quotebook render NAME [--templates DIR] [--repeat N]`, run in-process.
@Suite struct RenderCommandTests {
    private func withTemplates(_ body: (TemporaryDirectory) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("page.mustache", "<h1>{{title}}</h1>{{>footer}}")
        try directory.write("footer.mustache", "<p>{{year}}</p>")
        try body(directory)
    }

    @Test func rendersTemplateWithJSONContextExactly() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(
                arguments: ["page", "--templates", directory.url.path],
                standardInput: Data(#"{"title": "A & B", "year": 2025}"#.utf8))
            #expect(result.exitCode == 0)
            #expect(result.error == nil)
            #expect(String(decoding: result.output, as: UTF8.self) == "<h1>A &amp; B</h1><p>2025</p>")
        }
    }

    @Test func rendersRepeatedlyAndOutputsOnce() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(
                arguments: ["--repeat", "50", "page", "--templates", directory.url.path],
                standardInput: Data(#"{"title": "x"}"#.utf8))
            #expect(result.exitCode == 0)
            #expect(String(decoding: result.output, as: UTF8.self) == "<h1>x</h1><p></p>")
        }
    }

    @Test func refusesEmptyInputAsInvalidJSON() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(arguments: ["footer", "--templates", directory.url.path], standardInput: Data())
            #expect(result.exitCode != 0)
            #expect(result.output.isEmpty)
            #expect(result.error != nil)
        }
    }

    @Test func rendersEmptyObjectContext() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(
                arguments: ["footer", "--templates", directory.url.path], standardInput: Data("{}".utf8))
            #expect(result.exitCode == 0)
            #expect(String(decoding: result.output, as: UTF8.self) == "<p></p>")
        }
    }

    @Test func failsForMissingTemplate() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(arguments: ["nope", "--templates", directory.url.path], standardInput: Data("{}".utf8))
            #expect(result.exitCode != 0)
            #expect(result.output.isEmpty)
            #expect(result.error?.contains("no template named 'nope'") == true)
        }
    }

    @Test func failsForMissingDirectory() {
        let result = RenderCommand.run(
            arguments: ["page", "--templates", "/nonexistent-\(UUID().uuidString)"], standardInput: Data("{}".utf8))
        #expect(result.exitCode != 0)
        #expect(result.error != nil)
    }

    @Test func failsForInvalidJSON() throws {
        try withTemplates { directory in
            let result = RenderCommand.run(
                arguments: ["page", "--templates", directory.url.path], standardInput: Data("{\"title\": ".utf8))
            #expect(result.exitCode != 0)
            #expect(result.output.isEmpty)
            #expect(result.error?.contains("invalid JSON") == true)
        }
    }

    @Test func failsForBrokenTemplateWithPosition() throws {
        try withTemplates { directory in
            try directory.write("broken.mustache", "ok\n{{#a}}")
            let result = RenderCommand.run(arguments: ["page", "--templates", directory.url.path], standardInput: Data("{}".utf8))
            #expect(result.exitCode != 0)
            #expect(result.error?.contains("broken.mustache:2:1: unclosed section 'a'") == true)
        }
    }

    @Test(arguments: [[], ["a", "b"], ["a", "--repeat"], ["a", "--repeat", "0"], ["a", "--bogus"]])
    func rejectsBadArgumentsWithUsage(_ arguments: [String]) {
        let result = RenderCommand.run(arguments: arguments, standardInput: Data())
        #expect(result.exitCode == 64)
        #expect(result.error?.contains("usage: quotebook render") == true)
    }
}
