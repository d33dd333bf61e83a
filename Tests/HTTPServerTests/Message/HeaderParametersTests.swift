import HTTPServer
import Testing

/// `value; name=value` field values (RFC 9110 §5.6.6) with quoted strings (§5.6.4).
@Suite struct HeaderParametersTests {
    @Test func lowercasesValueAndNamesButNotParameterValues() throws {
        let parsed = try #require(HeaderParameters("Multipart/Form-Data; Boundary=AbC; CHARSET=\"UTF-8\""))
        #expect(parsed.value == "multipart/form-data")
        #expect(parsed.parameters.map(\.name) == ["boundary", "charset"])
        #expect(parsed.parameters.map(\.value) == ["AbC", "UTF-8"])
        #expect(parsed["BOUNDARY"] == "AbC")
        #expect(parsed["missing"] == nil)
    }

    @Test(arguments: [
        ("form-data;name=a", "a"),
        ("  form-data ;\tname = a  ", "a"),
        ("form-data;; ;name=\"a\";", "a"),
        (#"form-data; name="a; b=c""#, "a; b=c"),
        (#"form-data; name="back\\slash \"quoted\"""#, #"back\slash "quoted""#),
        ("form-data; name=\"caf\u{E9}\"", "caf\u{E9}"),
        ("form-data; name=\"\"", ""),
    ])
    func parsesNameParameter(_ text: String, expected: String) throws {
        let parsed = try #require(HeaderParameters(text))
        #expect(parsed.value == "form-data")
        #expect(parsed["name"] == expected)
    }

    @Test func keepsRepeatedAndExtendedParametersInOrder() throws {
        let parsed = try #require(HeaderParameters("form-data; name=a; filename*=UTF-8''%C3%A9.txt; name=b"))
        #expect(parsed.parameters.map(\.name) == ["name", "filename*", "name"])
        #expect(parsed["filename*"] == "UTF-8''%C3%A9.txt")
        #expect(parsed.count(of: "NAME") == 2)
    }

    @Test(arguments: [
        "", " ", "; name=a", "/plain", "text/", "text/plain/x", "a b", "form-data name=a", "form-data; =a",
        "form-data; name", "form-data; name=", "form-data; name=a b", "form-data; name=\"a", "form-data; name=\"a\\",
        "form-data; name=\"a\"b", "form-data; name=\"a\u{7}\"", "form-data; na me=a", "form-data; name=a,",
    ])
    func rejectsMalformedValue(_ text: String) {
        #expect(HeaderParameters(text) == nil)
    }
}
