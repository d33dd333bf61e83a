import Basics
import Testing

@Suite struct HexTests {
    @Test func encodesLowerCase() {
        #expect(Hex.encode([0x00, 0x0f, 0xab, 0xff]) == "000fabff")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func decodesEitherCase() {
        #expect(Hex.decode("000fabff") == [0x00, 0x0f, 0xab, 0xff])
        #expect(Hex.decode("000FABFF") == [0x00, 0x0f, 0xab, 0xff])
        #expect(Hex.decode("") == [])
    }

    @Test func roundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
    }

    @Test(arguments: ["abc", "0g", "0x00", " 00", "00 ", "é0"])
    func rejectsBadInput(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}

/// The one percent codec of paths, queries and forms (RFC 3986 §2.1).
@Suite struct PercentEncodingTests {
    @Test func decodesEscapesInEitherCaseAndPlusOnlyWhenAsked() throws {
        #expect(try PercentEncoding.decode(Array("a%2Fb%2fc+d".utf8), plusIsSpace: false) == Array("a/b/c+d".utf8))
        #expect(try PercentEncoding.decode(Array("a%2Fb+d".utf8), plusIsSpace: true) == Array("a/b d".utf8))
        #expect(try PercentEncoding.decode(Array("%00%FF".utf8), plusIsSpace: false) == [0x00, 0xFF])
        #expect(try PercentEncoding.decode([UInt8](), plusIsSpace: true) == [])
    }

    @Test(arguments: ["%", "%4", "%g0", "%0g", "abc%", "%%41", "% 41"])
    func refusesABadEscape(text: String) {
        #expect(throws: PercentEncoding.BadEscape.self) { try PercentEncoding.decode(Array(text.utf8), plusIsSpace: true) }
    }

    @Test func encodesAllButUnreservedBytesInUpperCase() {
        #expect(PercentEncoding.encode("a b/c~é", keepingSlash: false, spaceAsPlus: false) == "a%20b%2Fc~%C3%A9")
        #expect(PercentEncoding.encode("a b/c+", keepingSlash: true, spaceAsPlus: true) == "a+b/c%2B")
    }

    @Test func roundTripsEveryByteInBothDialects() throws {
        let text = String(decoding: (1...127).map { UInt8($0) }, as: UTF8.self) + "é😀"
        for (keepingSlash, plus) in [(false, false), (true, true), (true, false)] {
            let encoded = PercentEncoding.encode(text, keepingSlash: keepingSlash, spaceAsPlus: plus)
            #expect(try PercentEncoding.decode(Array(encoded.utf8), plusIsSpace: plus) == Array(text.utf8))
        }
    }
}

@Suite struct DecimalDigitsTests {
    func digits(_ number: Int) -> String {
        var bytes: [UInt8] = Array("x".utf8)
        DecimalDigits.append(number, to: &bytes)
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    @Test func writesWhatStringWouldForEveryMagnitude() {
        var number = 1
        for _ in 0..<18 {
            for value in [number - 1, number, number + 7] { #expect(digits(value) == String(value)) }
            number *= 10
        }
        #expect(digits(Int.max) == String(Int.max))
    }

    @Test func writesANegativeNumberAsZero() {
        #expect(digits(-1) == "0")
        #expect(digits(Int.min) == "0")
    }
}
