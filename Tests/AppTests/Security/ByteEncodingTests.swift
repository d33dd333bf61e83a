import App
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 §10 vectors, unpadded.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func encodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test func roundTripsEveryLengthUpTo70() {
        for length in 0...70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64URL.encode(bytes).utf8.count == Base64URL.encodedCount(of: length))
        }
    }

    @Test(arguments: ["Zg==", "Zm9v YmFy", "+/+/", "Z", "Zm9vY", "Zh", "Zm9", "é", "Zm\n9v"])
    func rejectsBadInput(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func decodesSubstrings() {
        let token = "id.Zm9vYmFy"
        #expect(Base64URL.decode(token.split(separator: ".")[1]) == Array("foobar".utf8))
    }
}
