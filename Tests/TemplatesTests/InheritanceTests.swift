import Templates
import Testing

/// `~inheritance` and indentation behaviour beyond the spec's cases (regressions found by
/// differential testing).
@Suite struct InheritanceTests {
    private func render(_ template: String, partials: [String: String], _ context: TemplateValue = [:]) throws -> String {
        var sources = partials
        sources["main"] = template
        return try TemplateLibrary(sources: sources).render("main", context: context)
    }

    @Test func appliesEveryArgumentWhenAnEarlierArgumentCallsAPartial() throws {
        let template = "{{<layout}}{{$a}}A{{>bit}}{{/a}}{{$b}}B{{/b}}{{/layout}}"
        let partials = ["layout": "[{{$a}}a{{/a}}|{{$b}}b{{/b}}]", "bit": "!"]
        #expect(try render(template, partials: partials) == "[A!|B]")
    }

    @Test func keepsOuterArgumentsAfterAnInnerParentFinishes() throws {
        let template = "{{<layout}}{{$body}}mine{{/body}}{{/layout}}"
        let partials = ["layout": "{{<frame}}{{/frame}}<{{$body}}default{{/body}}>", "frame": "F"]
        #expect(try render(template, partials: partials) == "F<mine>")
    }

    @Test func addsNoIndentationAfterBlockContentEnds() throws {
        let partials = ["layout": "<main>\n  {{$body}}\n  {{/body}}\n</main>\n"]
        let template = "{{<layout}}\n{{$body}}\none\n\ntwo\n{{/body}}\n{{/layout}}\n"
        #expect(try render(template, partials: partials) == "<main>\n  one\n\n  two\n</main>\n")
    }

    @Test func leavesEmptyLinesOfIndentedPartialsEmpty() throws {
        #expect(try render("  {{>p}}\n", partials: ["p": "a\n\nb\n"]) == "  a\n\n  b\n")
    }

    @Test func trimsIndentationBeforeStandaloneParentAndFirstBlock() throws {
        let template = "<div>\n  {{<card}}{{$body}}\nhello\n{{/body}}{{/card}}\n</div>\n"
        #expect(try render(template, partials: ["card": "<p>\n{{$body}}{{/body}}</p>\n"]) == "<div>\n  <p>\n  hello\n</p>\n</div>\n")
    }

    @Test func rendersBlockContentInTheParentsContext() throws {
        let template = "{{<list}}{{$item}}<li>{{name}}</li>{{/item}}{{/list}}"
        let partials = ["list": "<ul>{{#items}}{{$item}}{{/item}}{{/items}}</ul>"]
        let context: TemplateValue = ["items": [["name": "a"], ["name": "b"]]]
        #expect(try render(template, partials: partials, context) == "<ul><li>a</li><li>b</li></ul>")
    }
}
