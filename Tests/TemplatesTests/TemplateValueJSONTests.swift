import Foundation
import Templates
import Testing

/// `TemplateValue(json:)` keeps integers, decimals and Booleans apart.
@Suite struct TemplateValueJSONTests {
    private func parse(_ text: String) throws -> TemplateValue {
        try TemplateValue(json: Data(text.utf8))
    }

    @Test(arguments: [
        ("85", TemplateValue.int(85)),
        ("-0", .int(0)),
        ("1.21", .double(1.21)),
        ("1.0", .double(1.0)),
        ("1e2", .double(100)),
        ("12345678901234567890", .double(Double("12345678901234567890")!)),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        ("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83c\\udf89\"", .string("a\"b\\c/d\n\té🎉")),
        (" [1, true, 1.5, \"x\", null, {}] ", .list([1, true, 1.5, "x", nil, .object([:])])),
        ("{\"a\": {\"b\": [0]}}", .object(["a": ["b": [0]]])),
    ])
    func parsesValues(_ text: String, _ value: TemplateValue) throws {
        #expect(try parse(text) == value)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"abc", "{\"a\":1} x", "\"\\x\"", "'a'", "\"\\ud800\""])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: TemplateError.self) { try parse(text) }
    }

    @Test func reportsLineAndColumnOfSyntaxError() {
        let error = #expect(throws: TemplateError.self) { try parse("{\n  \"a\": tru\n}") }
        #expect(error?.line == 2)
        #expect(error?.column == 8)
        #expect(error?.message.hasPrefix("invalid JSON") == true)
    }

    @Test func parsesBenchmarkContextAsIntegerYear() throws {
        let value = try parse(#"{"year": 2025, "user": {"name": "Ada"}}"#)
        #expect(value == ["year": 2025, "user": ["name": "Ada"]])
    }
}
