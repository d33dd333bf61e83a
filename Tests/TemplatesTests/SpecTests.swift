import Templates
import Testing

/// The official Mustache spec (required modules, `~inheritance`, `~dynamic-names`), one test per
/// spec case: the case's template is registered as `__test__` beside its partials and rendered
/// with its data.
@Suite struct SpecTests {
    @Test func loadsEveryNonLambdaSpecCase() {
        #expect(SpecCase.all.count == 184)
    }

    @Test(arguments: SpecCase.all)
    func rendersSpecCaseExactly(_ specCase: SpecCase) throws {
        var sources = specCase.partials
        sources["__test__"] = specCase.template
        let library = try TemplateLibrary(sources: sources)
        let output = try library.render("__test__", context: specCase.data)
        #expect(output == specCase.expected, "template: \(String(reflecting: specCase.template))")
    }
}
