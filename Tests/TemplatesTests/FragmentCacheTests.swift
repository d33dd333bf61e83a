import Templates
import Testing

/// Section bodies rendered for keyed objects (``TemplateObject/fragmentKey``) are kept and reused
/// only when their bytes are a function of the object: the objects here lie (same key, other
/// text) to show when bytes are reused and when they are rendered again.
@Suite struct FragmentCacheTests {
    /// A record with an id and a version; its key says nothing of `text`, so a changed text under
    /// the same key shows whether the body was rendered again.
    private struct Row: TemplateObject {
        let id: Int
        let version: Int
        let text: String
        var tags: [String] = []

        var fragmentKey: TemplateFragmentKey? { TemplateFragmentKey(Row.self, id: id, version: version) }

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "text": .string(text)
            case "tags": .list(tags.map { .custom(Tag(name: $0)) })
            default: nil
            }
        }
    }

    /// A keyed object inside a row, whose body may read its row's names.
    private struct Tag: TemplateObject {
        let name: String
        var fragmentKey: TemplateFragmentKey? { TemplateFragmentKey(Tag.self, id: name.utf8.count, version: 0) }
        func value(forKey key: String) -> TemplateValue? { key == "name" ? .string(name) : nil }
    }

    private func context(_ rows: [Row], _ extra: [String: TemplateValue] = [:]) -> TemplateValue {
        var object = extra
        object["rows"] = .list(rows.map { .custom($0) })
        object["row"] = rows.first.map { .custom($0) } ?? .null
        return .object(object)
    }

    @Test func reusesTheEscapedBytesOfABodyThatReadOnlyItsObjectUntilItsVersionChanges() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}<li>{{text}}</li>{{/rows}}"])
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "a<b")])) == "<li>a&lt;b</li>")
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "other")])) == "<li>a&lt;b</li>")
        #expect(try library.render("main", context: context([Row(id: 1, version: 2, text: "new & <b>")])) == "<li>new &amp; &lt;b&gt;</li>")
        #expect(try library.render("main", context: context([Row(id: 2, version: 2, text: "two")])) == "<li>two</li>")
    }

    @Test func keepsTheBodyOfASectionOverOneObjectToo() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#row}}[{{text}}]{{/row}}"])
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "a")])) == "[a]")
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "b")])) == "[a]")
    }

    @Test func keepsEachBodySiteApart() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#row}}[{{text}}]{{/row}}{{#row}}({{text}}){{/row}}"])
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "a")])) == "[a](a)")
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "b")])) == "[a](a)")
    }

    @Test func rendersABodyThatReadsAnOuterNameEveryTime() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}{{text}} {{title}};{{/rows}}"])
        let rows = [Row(id: 1, version: 1, text: "a")]
        #expect(try library.render("main", context: context(rows, ["title": "A"])) == "a A;")
        #expect(try library.render("main", context: context(rows, ["title": "B"])) == "a B;")
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "b")], ["title": "C"])) == "b C;")
    }

    @Test func rendersABodyWithANameItsObjectLacksEveryTime() throws {
        // A miss depends on every context below the object: here one appears later.
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}{{text}}{{note}}{{/rows}}"])
        let rows = [Row(id: 1, version: 1, text: "a")]
        #expect(try library.render("main", context: context(rows)) == "a")
        #expect(try library.render("main", context: context(rows, ["note": "!"])) == "a!")
    }

    @Test func rendersABodyWithAPartialEveryTime() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}{{>cell}}{{/rows}}", "cell": "<{{text}}>"])
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "a")])) == "<a>")
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "b")])) == "<b>")
    }

    @Test func aBodyKeptWithoutIndentationIsRenderedAgainUnderIndentation() throws {
        let library = try TemplateLibrary(sources: [
            "flat": "{{>list}}", "indented": "  {{>list}}\n", "list": "{{#rows}}\n{{text}}\n{{/rows}}\n",
        ])
        let rows = context([Row(id: 1, version: 1, text: "a")])
        #expect(try library.render("flat", context: rows) == "a\n")
        #expect(try library.render("indented", context: rows) == "  a\n")
    }

    @Test func anInnerBodyThatReadsItsRowLeavesTheRowKept() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}{{#tags}}{{name}}={{text}} {{/tags}}{{/rows}}"])
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "a", tags: ["x", "yy"])])) == "x=a yy=a ")
        // The row's body read only the row and what it holds: kept whole.
        #expect(try library.render("main", context: context([Row(id: 1, version: 1, text: "b", tags: ["x"])])) == "x=a yy=a ")
        // A tag's body read its row's text: never kept on its own.
        #expect(try library.render("main", context: context([Row(id: 2, version: 1, text: "c", tags: ["x"])])) == "x=c ")
    }

    @Test func objectsWithoutAKeyAreRenderedEveryTime() throws {
        let library = try TemplateLibrary(sources: ["main": "{{#items}}{{name}}{{/items}}"])
        #expect(try library.render("main", context: ["items": .list([.object(["name": "a"])])]) == "a")
        #expect(try library.render("main", context: ["items": .list([.object(["name": "b"])])]) == "b")
    }
}
