import Templates
import Testing

/// Behaviour beyond the spec's cases: value formatting, truthiness choices, dynamic parents,
/// recursion limits, byte output.
@Suite struct RenderingTests {
    private func render(_ template: String, _ context: TemplateValue, partials: [String: String] = [:]) throws -> String {
        var sources = partials
        sources["main"] = template
        return try TemplateLibrary(sources: sources).render("main", context: context)
    }

    @Test(arguments: [
        (TemplateValue.int(85), "85"),
        (.int(-3), "-3"),
        (.double(1.21), "1.21"),
        (.double(2.0), "2"),
        (.double(-0.5), "-0.5"),
        (.double(1e300), "1e+300"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.null, ""),
        (.list([1, 2]), ""),
        (.object(["a": 1]), ""),
    ])
    func formatsScalarValues(_ value: TemplateValue, _ text: String) throws {
        #expect(try render("{{v}}", ["v": value]) == text)
    }

    @Test func treatsEmptyStringAsFalsyAndZeroAsTruthy() throws {
        let template = "{{#s}}S{{/s}}{{^s}}!S{{/s}}{{#z}}Z{{/z}}{{#o}}O{{/o}}"
        #expect(try render(template, ["s": "", "z": 0, "o": .object([:])]) == "!SZO")
    }

    @Test func rendersMissingKeyAsEmpty() throws {
        #expect(try render("[{{missing}}][{{a.b.c}}]", ["a": ["b": 1]]) == "[][]")
    }

    @Test func stopsLookupAtNullInsteadOfFallingThrough() throws {
        let context: TemplateValue = ["note": "outer", "item": ["note": nil]]
        #expect(try render("{{#item}}[{{note}}]{{/item}}", context) == "[]")
    }

    @Test func resolvesDynamicParentNames() throws {
        let partials = ["wide": "W({{$body}}x{{/body}})", "narrow": "N({{$body}}y{{/body}})"]
        let template = "{{<*layout}}{{$body}}{{title}}{{/body}}{{/layout}}"
        #expect(try render(template, ["layout": "wide", "title": "T"], partials: partials) == "W(T)")
        #expect(try render(template, ["layout": "narrow", "title": "T"], partials: partials) == "N(T)")
        #expect(try render(template, ["title": "T"], partials: partials) == "")
        let spelledOut = "{{<*layout}}{{$body}}{{title}}{{/body}}{{/*layout}}"
        #expect(try render(spelledOut, ["layout": "wide", "title": "T"], partials: partials) == "W(T)")
    }

    @Test func indentsNestedStandalonePartialsCumulatively() throws {
        let partials = ["outer": "<\n  {{>inner}}\n>\n", "inner": "a\nb\n"]
        #expect(try render("  {{>outer}}\n", [:], partials: partials) == "  <\n    a\n    b\n  >\n")
    }

    @Test func rendersRecursivePartialsOverData() throws {
        let partials = ["node": "{{name}}({{#children}}{{>node}}{{/children}})"]
        let tree: TemplateValue = ["name": "a", "children": [["name": "b", "children": []], ["name": "c", "children": []]]]
        #expect(try render("{{>node}}", tree, partials: partials) == "a(b()c())")
    }

    @Test func stopsRunawayRecursionWithAnError() throws {
        let library = try TemplateLibrary(sources: ["loop": "x{{>loop}}"])
        #expect(throws: TemplateError.self) { try library.render("loop", context: [:]) }
    }

    @Test func stopsABlockThatIncludesItselfWithAnError() throws {
        // The override of `content` contains a `content` block, which resolves to the override
        // again: endless, and a stack overflow before blocks counted towards the depth limit.
        let library = try TemplateLibrary(sources: [
            "layout": "[{{$content}}d{{/content}}]",
            "page": "{{<layout}}{{$content}}X{{$content}}i{{/content}}{{/content}}{{/layout}}",
        ])
        #expect(throws: TemplateError.self) { try library.render("page", context: [:]) }
    }

    @Test func stopsSectionsNestedDeeperThanTheLimitWithAnError() throws {
        let depth = 20_000
        let template = String(repeating: "{{#a}}", count: depth) + "x" + String(repeating: "{{/a}}", count: depth)
        let library = try TemplateLibrary(sources: ["deep": template])
        #expect(throws: TemplateError.self) { try library.render("deep", context: ["a": true]) }
        let shallow = String(repeating: "{{#a}}", count: 50) + "x" + String(repeating: "{{/a}}", count: 50)
        #expect(try TemplateLibrary(sources: ["ok": shallow]).render("ok", context: ["a": true]) == "x")
    }

    @Test func throwsForUnknownTemplateName() throws {
        let library = try TemplateLibrary(sources: ["a": "A"])
        let error = #expect(throws: TemplateError.self) { try library.render("b", context: [:]) }
        #expect(error?.description == "no template named 'b'")
        #expect(library.names == ["a"])
    }

    @Test func rendersMissingPartialsAndParentsAsEmpty() throws {
        #expect(try render("[{{>nope}}][{{<nope}}{{$a}}x{{/a}}{{/nope}}]", [:]) == "[][]")
    }

    @Test func rendersSameBytesAsString() throws {
        let library = try TemplateLibrary(sources: ["t": "é {{v}}"])
        let bytes = try library.renderBytes("t", context: ["v": "<ü>"])
        #expect(String(decoding: bytes, as: UTF8.self) == "é &lt;ü&gt;")
        #expect(try library.render("t", context: ["v": "<ü>"]) == "é &lt;ü&gt;")
    }

    @Test func isSafeToShareAcrossConcurrentRenders() async throws {
        let library = try TemplateLibrary(sources: ["t": "{{#items}}{{.}},{{/items}}"])
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask { try library.render("t", context: ["items": .list((0..<index).map { .int($0) })]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.contains("0,1,2,3,4,5,6,"))
    }
}
