import HTTPServer
import Testing

/// `application/x-www-form-urlencoded` decoding (WHATWG URL §5.1).
@Suite struct URLEncodedFormTests {
    @Test(arguments: [
        ("a=1&b=2", [("a", "1"), ("b", "2")]),
        ("text=Less+%3Cb%3E+%26+%22more%22&author=", [("text", "Less <b> & \"more\""), ("author", "")]),
        ("flag&&x=%C3%A9", [("flag", ""), ("x", "é")]),
        ("", []),
        ("a=1=2", [("a", "1=2")]),
    ])
    func decodesPairsInOrder(input: String, expected: [(String, String)]) throws {
        // From bytes (a body) and from a string (a query), the same pairs.
        for form in [try URLEncodedForm(Array(input.utf8)), try URLEncodedForm(input)] {
            #expect(form.pairs.map(\.name) == expected.map(\.0))
            #expect(form.pairs.map(\.value) == expected.map(\.1))
        }
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "%g0=1", "a=b+%4", "a=%%41"])
    func rejectsBadPercentEscape(_ input: String) {
        #expect(throws: URLEncodedForm.DecodingError.badPercentEscape) { try URLEncodedForm(Array(input.utf8)) }
        #expect(throws: URLEncodedForm.DecodingError.badPercentEscape) { try URLEncodedForm(input) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: URLEncodedForm.DecodingError.invalidUTF8) { try URLEncodedForm(Array("a=%C0%AE".utf8)) }
        // Without an escape too (the path that copies the bytes as they are).
        #expect(throws: URLEncodedForm.DecodingError.invalidUTF8) { try URLEncodedForm([0x61, 0x3D, 0xC0, 0xAE]) }
        // A lone continuation byte after ASCII, and a sequence cut short at the end.
        #expect(throws: URLEncodedForm.DecodingError.invalidUTF8) { try URLEncodedForm([0x61, 0x3D, 0x62, 0x80]) }
        #expect(throws: URLEncodedForm.DecodingError.invalidUTF8) { try URLEncodedForm([0x61, 0x3D, 0xC3]) }
    }

    @Test func keepsUTF8ThatCameUnescaped() throws {
        #expect(try URLEncodedForm(Array("q=café&n=1".utf8))["q"] == "café")
        #expect(try URLEncodedForm("q=Łódź")["q"] == "Łódź")
        #expect(try URLEncodedForm(Array("q=plain".utf8))["q"] == "plain")
    }

    @Test func decodesFromArraySlice() throws {
        let bytes = Array("xx&a=b".utf8)
        #expect(try URLEncodedForm(bytes[3...])["a"] == "b")
    }

    @Test func goesThroughThePercentCodec() throws {
        // Forms and queries go through the one codec, Basics.PercentEncoding (static paths and
        // routes are checked by their own suites, through their public entry points).
        #expect(try URLEncodedForm(Array("q=caf%C3%A9+au+lait".utf8))["q"] == "café au lait")
        #expect(URLEncodedForm.encode("café au lait") == "caf%C3%A9+au+lait")
        #expect(throws: URLEncodedForm.DecodingError.badPercentEscape) { try URLEncodedForm(Array("q=%zz".utf8)) }
    }

    /// A value far past what is decoded on the stack (a long quote posted with escapes) decodes
    /// whole, and a bad escape at its very end is still found.
    @Test func aLongEscapedValueDecodesWhole() throws {
        let text = String(repeating: "é <b>&</b> ", count: 2_000)
        let body = "text=" + URLEncodedForm.encode(text)
        #expect(body.utf8.count > 50_000)
        #expect(try URLEncodedForm(Array(body.utf8))["text"] == text)
        #expect(throws: URLEncodedForm.DecodingError.badPercentEscape) { try URLEncodedForm(Array((body + "%4").utf8)) }
    }
}
