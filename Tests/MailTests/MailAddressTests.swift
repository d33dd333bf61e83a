import Foundation
import Mail
import Testing

struct MailAddressTests {
    static let valid: [String] = [
        "someone@example.com",
        "someone@localhost",
        "first.last+tag@sub.example.co.uk",
        "o'brien@example.ie",
        "!#$%&'*+-/=?^_`{|}~@example.com",
        "x@1.2.3.4",
        "a@b-c.d",
        String(repeating: "a", count: 64) + "@example.com",
        "a@" + String(repeating: "b", count: 63) + ".com",
    ]

    @Test(arguments: valid)
    func acceptsValidAddresses(text: String) throws {
        let address = try #require(MailAddress(text))
        #expect(address.text == text)
    }

    /// Each text with the first rule it breaks.
    static let invalid: [(String, MailAddressProblem)] = [
        ("", .empty),
        ("a@b.c\r\nBcc: x@y.z", .notOneAt),
        ("a@b.c\r\nBcc: x", .invalidDomain),
        ("a\r\nb@c.d", .invalidLocalPart),
        ("a@b@c.d", .notOneAt),
        ("no-at-sign.example.com", .notOneAt),
        (String(repeating: "a", count: 65) + "@example.com", .localPartTooLong),
        (String(repeating: "é", count: 33) + "@example.com", .invalidLocalPart),
        (String(repeating: "a", count: 64) + "@" + String(repeating: "b.", count: 94) + "com", .tooLong),
        ("some one@example.com", .invalidLocalPart),
        (" someone@example.com", .invalidLocalPart),
        ("someone@example.com ", .invalidDomain),
        ("someone@exa mple.com", .invalidDomain),
        ("josé@example.com", .invalidLocalPart),
        ("jose@exämple.com", .invalidDomain),
        ("a@-b.c", .invalidDomain),
        ("a@b-.c", .invalidDomain),
        ("a@b..c", .invalidDomain),
        ("a@b.c.", .invalidDomain),
        ("a@.b.c", .invalidDomain),
        ("a@b_c.d", .invalidDomain),
        ("a@" + String(repeating: "b", count: 64) + ".com", .invalidDomain),
        ("@example.com", .invalidLocalPart),
        ("someone@", .invalidDomain),
        ("@", .invalidLocalPart),
        (".a@b.c", .invalidLocalPart),
        ("a.@b.c", .invalidLocalPart),
        ("a..b@c.d", .invalidLocalPart),
        ("\"quoted\"@example.com", .invalidLocalPart),
        ("a(b)@example.com", .invalidLocalPart),
        ("<a@example.com>", .invalidLocalPart),
        ("a@[127.0.0.1]", .invalidDomain),
        ("a\u{0}@b.c", .invalidLocalPart),
        ("a\t@b.c", .invalidLocalPart),
    ]

    @Test(arguments: invalid)
    func refusesInvalidAddresses(text: String, problem: MailAddressProblem) {
        #expect(MailAddress.check(text) == .failure(problem), "\(text.debugDescription)")
        #expect(MailAddress(text) == nil)
    }

    @Test func refusesTwoHundredFiftyFiveCharacters() {
        let local = String(repeating: "a", count: 64)
        let domain254 =
            String(repeating: "b", count: 63) + "." + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 61)
        #expect((local + "@" + domain254).count == 254)
        #expect(MailAddress(local + "@" + domain254) != nil)
        #expect(MailAddress.check(local + "@" + domain254 + "d") == .failure(.tooLong))
    }

    @Test func lowersTheDomainOnlyAndComparesThatWay() throws {
        let typed = try #require(MailAddress("Someone.Else@Example.COM"))
        #expect(typed.text == "Someone.Else@example.com")
        #expect(typed.domain == "example.com")
        #expect(typed == MailAddress("Someone.Else@example.com"))
        #expect(typed != MailAddress("someone.else@example.com"))
        let shouted = try #require(MailAddress("Someone.Else@EXAMPLE.com"))
        #expect(Set([typed, shouted]).count == 1)
        #expect("\(typed)" == "Someone.Else@example.com")
    }

    @Test func codesAsItsTextAndChecksWhenDecoding() throws {
        let address = try #require(MailAddress("a.b@Example.org"))
        let json = try JSONEncoder().encode([address])
        #expect(String(decoding: json, as: UTF8.self) == #"["a.b@example.org"]"#)
        #expect(try JSONDecoder().decode([MailAddress].self, from: json) == [address])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([MailAddress].self, from: Data(#"["a@b\r\nBcc: c@d"]"#.utf8)) }
    }
}
