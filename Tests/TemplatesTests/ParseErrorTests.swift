import Templates
import Testing

/// A template that does not parse fails library construction with file, 1-based line and
/// column, and what was expected.
@Suite struct ParseErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var template: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { message }
    }

    static let cases: [Case] = [
        Case(template: "Hello {{name", line: 1, column: 7, message: "expected '}}' to close tag"),
        Case(template: "a\nb {{{name}}", line: 2, column: 3, message: "expected '}}}' to close tag"),
        Case(
            template: "x\n  {{#items}}\n  <li>\n", line: 2, column: 3,
            message: "unclosed section 'items': expected '{{/items}}' before the end of the template"),
        Case(
            template: "{{#a}}\n{{^b}}\n{{/a}}", line: 3, column: 1,
            message: "expected '{{/b}}' to close inverted section 'b' opened at 2:1, found '{{/a}}'"),
        Case(template: "text\n{{/a}}", line: 2, column: 1, message: "unexpected '{{/a}}': no section is open"),
        Case(template: "a {{}} b", line: 1, column: 5, message: "expected a name in tag"),
        Case(template: "{{# }}{{/ }}", line: 1, column: 5, message: "expected a name in tag"),
        Case(template: "{{first name}}", line: 1, column: 3, message: "invalid name 'first name'"),
        Case(template: "{{a..b}}", line: 1, column: 3, message: "invalid name 'a..b'"),
        Case(
            template: "{{=<% %>}}", line: 1, column: 1, message: "expected '=}}' to close tag"),
        Case(
            template: "{{=<%=}}", line: 1, column: 4,
            message: "expected two delimiters separated by whitespace, without '=', as in '{{=<% %>=}}'"),
        Case(
            template: "{{=<% %>=}}\n<%#a%>\n<%/b%>", line: 3, column: 1,
            message: "expected '<%/a%>' to close section 'a' opened at 2:1, found '<%/b%>'"),
        Case(
            template: "{{<layout}}\n{{$title}}x\n{{/layout}}", line: 3, column: 1,
            message: "expected '{{/title}}' to close block 'title' opened at 2:1, found '{{/layout}}'"),
        Case(template: "{{>*}}", line: 1, column: 4, message: "expected a name after '*' in '*'"),
        Case(template: "é ü {{x", line: 1, column: 5, message: "expected '}}' to close tag"),
    ]

    @Test(arguments: cases)
    func reportsPositionAndExpectation(_ testCase: Case) {
        let error = #expect(throws: TemplateError.self) {
            try TemplateLibrary(sources: ["page": testCase.template])
        }
        #expect(error == TemplateError(file: "page", line: testCase.line, column: testCase.column, message: testCase.message))
    }

    @Test func describesErrorAsFileLineColumnMessage() {
        let error = TemplateError(file: "Templates/quote.mustache", line: 3, column: 14, message: "expected '}}' to close tag")
        #expect(error.description == "Templates/quote.mustache:3:14: expected '}}' to close tag")
        #expect(TemplateError(file: nil, line: 0, column: 0, message: "m").description == "m")
    }

    @Test func reportsFirstBrokenTemplateInNameOrder() {
        let error = #expect(throws: TemplateError.self) {
            try TemplateLibrary(sources: ["b": "{{#x}}", "a": "ok", "c": "{{"])
        }
        #expect(error?.file == "b")
    }
}
