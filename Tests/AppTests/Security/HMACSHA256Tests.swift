import App
import Basics
import HTTPServer
import Testing

/// RFC 4231 §4 test cases (test case 5, a truncated output, does not apply).
@Suite struct HMACSHA256Tests {
    private func code(key: [UInt8], message: [UInt8]) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: message, key: key))
    }

    @Test func matchesRFC4231TestCase1() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            code(key: key, message: Array("Hi There".utf8))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        )
    }

    @Test func matchesRFC4231TestCase2() {
        #expect(
            code(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
    }

    @Test func matchesRFC4231TestCase3() {
        let key = [UInt8](repeating: 0xaa, count: 20)
        let message = [UInt8](repeating: 0xdd, count: 50)
        #expect(code(key: key, message: message) == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    }

    @Test func matchesRFC4231TestCase4() {
        let key = (1...25).map { UInt8($0) }
        let message = [UInt8](repeating: 0xcd, count: 50)
        #expect(code(key: key, message: message) == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
    }

    @Test func matchesRFC4231TestCase6WithAKeyLongerThanABlock() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(code(key: key, message: message) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func matchesRFC4231TestCase7WithALongKeyAndMessage() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let message = Array(
            "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                .utf8
        )
        #expect(code(key: key, message: message) == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }
}
