import HTTPServer
import Testing

/// The lines joined with CRLF, as bytes; no CRLF after the last line.
private func lines(_ lines: String...) -> [UInt8] {
    Array(lines.joined(separator: "\r\n").utf8)
}

/// `multipart/form-data` bodies (RFC 7578) split at their boundary (RFC 2046 §5.1.1).
@Suite struct MultipartFormTests {
    static let contentType = "multipart/form-data; boundary=XyZ"

    static func parse(_ body: [UInt8], contentType: String = contentType) throws(MultipartError) -> MultipartForm {
        try MultipartForm(body: body, contentType: contentType)
    }

    @Test func parsesOneTextField() throws {
        let form = try Self.parse(
            lines("--XyZ", "Content-Disposition: form-data; name=\"quote\"", "", "Less is more.", "--XyZ--"))
        #expect(form.parts.count == 1)
        let part = try #require(form["quote"])
        #expect(part.name == "quote")
        #expect(part.filename == nil)
        #expect(part.contentType == nil)
        #expect(part.headers == ["Content-Disposition": "form-data; name=\"quote\""])
        #expect(part.body == Array("Less is more.".utf8))
    }

    @Test func parsesFilePartWithFilenameAndContentType() throws {
        let form = try Self.parse(
            lines(
                "--XyZ", "Content-Disposition: form-data; name=\"photo\"; filename=\"cat pic.png\"",
                "Content-Type: image/png", "", "\u{1}PNG", "--XyZ--"))
        let part = try #require(form["photo"])
        #expect(part.filename == "cat pic.png")
        #expect(part.contentType == "image/png")
        #expect(part.headers.count == 2)
        #expect(part.body == [1] + Array("PNG".utf8))
    }

    @Test func keepsPartsInOrderAndSubscriptFindsTheFirst() throws {
        let form = try Self.parse(
            lines(
                "--XyZ", "Content-Disposition: form-data; name=a", "", "1",
                "--XyZ", "Content-Disposition: form-data; name=b", "", "2",
                "--XyZ", "Content-Disposition: form-data; name=a", "", "3", "--XyZ--"))
        #expect(form.parts.map(\.name) == ["a", "b", "a"])
        #expect(form.parts.map { String(decoding: $0.body, as: UTF8.self) } == ["1", "2", "3"])
        #expect(form["a"]?.body == Array("1".utf8))
        #expect(form["missing"] == nil)
    }

    @Test func acceptsQuotedBoundaryWithSpacesNextToAQuotedSemicolon() throws {
        let form = try Self.parse(
            lines("--a b:c", "Content-Disposition: form-data; name=\"x\"", "", "y", "--a b:c--"),
            contentType: "multipart/form-data ; note=\"x; boundary=no\"; boundary = \"a b:c\" ; charset=utf-8")
        #expect(form["x"]?.body == Array("y".utf8))
    }

    @Test func matchesHeaderAndParameterNamesCaseInsensitively() throws {
        let form = try Self.parse(
            lines(
                "--XyZ", "CONTENT-DISPOSITION: Form-Data; NAME=\"Field\"; FileName=\"A.TXT\"", "content-type: text/plain", "",
                "v", "--XyZ--"),
            contentType: "Multipart/Form-Data; BOUNDARY=XyZ")
        let part = try #require(form["Field"])
        #expect(part.filename == "A.TXT")
        #expect(part.contentType == "text/plain")
    }

    @Test func ignoresPreambleAndEpilogue() throws {
        let form = try Self.parse(
            lines(
                "This is the preamble.", "--XyZ is not a delimiter here", "--XyZ",
                "Content-Disposition: form-data; name=a", "", "1", "--XyZ--", "epilogue", "--XyZ", "more epilogue"))
        #expect(form.parts.map(\.name) == ["a"])
        #expect(form["a"]?.body == Array("1".utf8))
    }

    @Test func acceptsTransportPaddingAfterDelimiters() throws {
        let form = try Self.parse(
            lines(
                "--XyZ \t ", "Content-Disposition: form-data; name=a", "", "1",
                "--XyZ\t", "Content-Disposition: form-data; name=b", "", "2", "--XyZ--  "))
        #expect(form.parts.map(\.name) == ["a", "b"])
        #expect(form["b"]?.body == Array("2".utf8))
    }

    @Test func keepsDelimiterLookalikesInData() throws {
        let data = "line 1\r\n--\r\n\r\n--notTheBoundary\r\n--XyZX\r\n--XyZ-x\r\n--XyZ"
        let form = try Self.parse(
            lines("--XyZ", "Content-Disposition: form-data; name=a", "", data + "z", "--XyZ--"))
        #expect(form["a"]?.body == Array((data + "z").utf8))
    }

    @Test func keepsBoundaryTextInTheMiddleOfALine() throws {
        let data = "before --XyZ after --XyZ--\r\nx--XyZ"
        let form = try Self.parse(lines("--XyZ", "Content-Disposition: form-data; name=a", "", data, "--XyZ--"))
        #expect(form["a"]?.body == Array(data.utf8))
    }

    @Test func parsesEmptyPartBodies() throws {
        // With the blank line (as browsers send) and without (RFC 2046: headers, no data).
        let form = try Self.parse(
            lines(
                "--XyZ", "Content-Disposition: form-data; name=a", "", "",
                "--XyZ", "Content-Disposition: form-data; name=b", "", "--XyZ--"))
        #expect(form.parts.map(\.name) == ["a", "b"])
        #expect(form.parts.map(\.body) == [[], []])
    }

    @Test func acceptsAnEmptyFilename() throws {
        let form = try Self.parse(
            lines(
                "--XyZ", "Content-Disposition: form-data; name=\"photo\"; filename=\"\"",
                "Content-Type: application/octet-stream", "", "", "--XyZ--"))
        #expect(form["photo"]?.filename == "")
        #expect(form["photo"]?.body == [])
    }

    @Test func unescapesQuotedParameterValues() throws {
        let form = try Self.parse(
            lines("--XyZ", #"Content-Disposition: form-data; name="say \"hi\""; filename*=UTF-8''x"#, "", "", "--XyZ--"))
        #expect(form.parts.first?.name == #"say "hi""#)
        #expect(form.parts.first?.filename == nil)
    }

    @Test func roundTripsEveryByteValue() throws {
        let data = (0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) }
        let body =
            lines("--XyZ", "Content-Disposition: form-data; name=bin", "", "") + data
            + lines("", "--XyZ--", "")
        let form = try Self.parse(body)
        #expect(form["bin"]?.body == data)
    }

    /// What Chromium sends for a text field, a chosen file and an empty file input (HTML §4.10.21.8).
    @Test func parsesChromiumEncodedBody() throws {
        let boundary = "----WebKitFormBoundaryq0NJW2jt5BAhKDg3"
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]
        let body =
            lines(
                "--" + boundary, "Content-Disposition: form-data; name=\"text\"", "",
                "Quotes \"here\" & there\r\nsecond line",
                "--" + boundary, "Content-Disposition: form-data; name=\"photo\"; filename=\"my %22cat%22.png\"",
                "Content-Type: image/png", "", "") + png
            + lines(
                "", "--" + boundary, "Content-Disposition: form-data; name=\"other\"; filename=\"\"",
                "Content-Type: application/octet-stream", "", "", "--" + boundary + "--", "")
        let form = try Self.parse(body, contentType: "multipart/form-data; boundary=" + boundary)
        #expect(form.parts.map(\.name) == ["text", "photo", "other"])
        #expect(form["text"]?.body == Array("Quotes \"here\" & there\r\nsecond line".utf8))
        #expect(form["photo"]?.filename == "my %22cat%22.png")
        #expect(form["photo"]?.contentType == "image/png")
        #expect(form["photo"]?.body == png)
        #expect(form["other"]?.filename == "")
        #expect(form["other"]?.body == [])
    }

    @Test(arguments: [
        ("multipart/form-data", MultipartError.missingBoundary),
        ("multipart/form-data; charset=utf-8", .missingBoundary),
        ("multipart/form-data; boundary=" + String(repeating: "b", count: 71), .invalidBoundary),
        ("multipart/form-data; boundary=\"\"", .invalidBoundary),
        ("multipart/form-data; boundary=\"ends with space \"", .invalidBoundary),
        ("multipart/form-data; boundary=\"no<angle>\"", .invalidBoundary),
        ("multipart/form-data; boundary=\"semi;colon\"", .invalidBoundary),
        ("multipart/form-data; boundary=a; boundary=b", .invalidBoundary),
        ("multipart/mixed; boundary=XyZ", .notMultipart),
        ("application/x-www-form-urlencoded", .notMultipart),
        ("multipart/form-data; boundary=\"unterminated", .malformed(reason: "unparsable Content-Type")),
    ])
    func rejectsContentType(_ contentType: String, expected: MultipartError) {
        let body = lines("--XyZ", "Content-Disposition: form-data; name=a", "", "1", "--XyZ--")
        #expect(throws: expected) { try Self.parse(body, contentType: contentType) }
    }

    @Test func acceptsBoundaryOfSeventyCharacters() throws {
        let boundary = String(repeating: "'()+_,-./:=? 9", count: 5)
        let body = lines("--" + boundary, "Content-Disposition: form-data; name=a", "", "1", "--" + boundary + "--")
        let form = try Self.parse(body, contentType: "multipart/form-data; boundary=\"\(boundary)\"")
        #expect(form["a"]?.body == Array("1".utf8))
    }

    @Test(arguments: [
        (lines("--XyZ", "Content-Disposition: form-data; name=a", "", "1", "--XyZ"), "no close delimiter"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a", "", "1", "--XyZ-"), "no close delimiter"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a", "", "1"), "no close delimiter"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a", "", "1", "--XyZ", "Content-Dispo"), "no close delimiter"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a"), "no close delimiter"),
        (lines("no delimiter at all"), "no boundary delimiter"),
        ([], "no boundary delimiter"),
        (lines("--XyZ", "Content-Type: text/plain", "", "1", "--XyZ--"), "part without Content-Disposition"),
        (lines("--XyZ", "", "1", "--XyZ--"), "part without Content-Disposition"),
        (lines("--XyZ", "Content-Disposition: form-data", "", "1", "--XyZ--"), "part without exactly one non-empty name"),
        (lines("--XyZ", "Content-Disposition: form-data; name=\"\"", "", "1", "--XyZ--"), "part without exactly one non-empty name"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a; name=b", "", "--XyZ--"), "part without exactly one non-empty name"),
        (lines("--XyZ", "Content-Disposition: attachment; name=a", "", "1", "--XyZ--"), "Content-Disposition is not form-data"),
        (
            lines("--XyZ", "Content-Disposition: form-data; name=a", "Content-Disposition: form-data; name=b", "", "--XyZ--"),
            "malformed Content-Disposition"
        ),
        (lines("--XyZ", "Content-Disposition: form-data; name=\"a", "", "--XyZ--"), "malformed Content-Disposition"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a\nX: y", "", "1", "--XyZ--"), "part header line not ended by CRLF"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a\rX: y", "", "1", "--XyZ--"), "part header line not ended by CRLF"),
        (lines("--XyZ", "Content-Disposition: form-data;", " name=a", "", "1", "--XyZ--"), "obsolete line folding in a part header"),
        (
            lines("--XyZ", "Content-Disposition: form-data; name=a", "X-Nul: a\0b", "", "1", "--XyZ--"),
            "invalid byte in a part header value"
        ),
        (lines("--XyZ", "Content-Disposition : form-data; name=a", "", "1", "--XyZ--"), "malformed part header name"),
        (lines("--XyZ", "Content-Disposition form-data", "", "1", "--XyZ--"), "part header line without a colon"),
        (lines("--XyZ", "Content-Disposition: form-data; name=a", "--XyZ--"), "unterminated part header line"),
    ])
    func rejectsMalformedBody(_ body: [UInt8], reason: String) {
        #expect(throws: MultipartError.malformed(reason: reason)) { try Self.parse(body) }
    }

    @Test func rejectsMoreThanTheLimitOfParts() throws {
        func body(parts: Int) -> [UInt8] {
            var body: [UInt8] = []
            for index in 0..<parts { body += lines("--XyZ", "Content-Disposition: form-data; name=f\(index)", "", "x", "") }
            return body + Array("--XyZ--".utf8)
        }
        #expect(try Self.parse(body(parts: MultipartForm.partLimit)).parts.count == MultipartForm.partLimit)
        #expect(throws: MultipartError.tooManyParts) { try Self.parse(body(parts: MultipartForm.partLimit + 1)) }
    }

    @Test func rejectsPartHeaderSectionsOverTheLimits() {
        let filler = "X-Filler: " + String(repeating: "f", count: MultipartForm.headerSectionLimit)
        #expect(throws: MultipartError.malformed(reason: "part header section over 8192 bytes")) {
            try Self.parse(lines("--XyZ", "Content-Disposition: form-data; name=a", filler, "", "1", "--XyZ--"))
        }
        let fields = (0..<MultipartForm.headerFieldLimit).map { "X-\($0): v" }
        #expect(throws: MultipartError.malformed(reason: "more than 16 part header fields")) {
            try Self.parse(
                Array(
                    ("--XyZ\r\nContent-Disposition: form-data; name=a\r\n" + fields.joined(separator: "\r\n")
                        + "\r\n\r\n1\r\n--XyZ--").utf8))
        }
    }

    @Test func describesErrorsWithoutClientBytes() {
        #expect(MultipartError.malformed(reason: "no close delimiter").description == "malformed multipart body: no close delimiter")
        #expect(MultipartError.tooManyParts.description == "the multipart body has more than 100 parts")
    }
}
