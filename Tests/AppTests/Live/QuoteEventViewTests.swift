import App
import Foundation
import Store
import Testing

/// The quote feed as `text/event-stream` bytes: whatever a person typed stays inside one
/// `data:` line of JSON.
@Suite struct QuoteEventViewTests {
    static let date = Date(timeIntervalSince1970: 1_795_330_800)

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n")
    }

    @Test(arguments: [
        "plain", "two\nlines", "carriage\rreturn", "crlf\r\n\r\ndata: forged", "\u{2028}separator\u{85}next",
        "<script>alert(\"x\")</script> & 'quotes'", "emoji 😀 and e\u{301}",
    ])
    func aChangeIsOneEventWithOneDataLine(text: String) throws {
        let quote = Quote(
            id: QuoteID(7), text: text, author: "A\nB", version: 4, addedBy: nil, addedAt: Self.date,
            updatedBy: UserID(1), updatedAt: Self.date)
        let user = User(id: UserID(1), username: Username("ada")!, displayName: "Ada\r\nevent: x", joinedAt: Self.date)
        let lines = Self.lines(QuoteEventView.event(for: .changed(quote, changedBy: user)))
        #expect(lines.count == 5)
        #expect(Array(lines[0..<2]) == ["event: quote", "id: 4"])
        #expect(lines[2].hasPrefix("data: {"))
        #expect(Array(lines[3...]) == ["", ""])
        let data = Data(lines[2].dropFirst("data: ".count).utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["text"] as? String == text)
        #expect(json["author"] as? String == "A\nB")
        #expect(json["changedBy"] as? String == "Ada\r\nevent: x")
        #expect(json["changedByURL"] as? String == "/users/ada")
        #expect(json["url"] as? String == "/quotes/7")
        #expect(json["editURL"] as? String == "/quotes/7/edit")
        #expect(json["changedAt"] as? String == "22 Nov 2026, 07:00 UTC")
    }

    @Test func aDeletionNamesTheQuote() {
        #expect(Self.lines(QuoteEventView.event(for: .deleted(QuoteID(3)))) == [
            "event: deleted", #"data: {"id":3,"url":"/quotes/3"}"#, "", "",
        ])
    }

    @Test func aHeartbeatIsAComment() {
        #expect(String(decoding: QuoteEventView.event(for: .heartbeat), as: UTF8.self) == ": heartbeat\n\n")
    }
}
