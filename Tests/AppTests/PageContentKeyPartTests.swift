import App
import Foundation
import Store
import Testing

/// A list's key reads its quotes field by field (``PageContentKey/append(_:)-([ListedQuote])``),
/// a single quote's through its own ``PageContentKeyPart/append(to:)``: the two must write the
/// same, or a list and a page showing the same quotes would key them differently.
struct PageContentKeyPartTests {
    let at = Date(timeIntervalSince1970: 1_000)

    func key(_ build: (inout PageContentKey) -> Void) -> PageContentKey {
        var key = PageContentKey()
        build(&key)
        return key
    }

    func quotes() -> [Quote] {
        (1...3).map {
            Quote(
                id: QuoteID($0), text: "text \($0)", author: "author", version: $0 + 1, addedBy: $0 == 3 ? nil : UserID($0 + 3),
                addedAt: at, updatedBy: nil, updatedAt: at)
        }
    }

    /// A quote added by someone with a photo, one by someone without, and one by no one.
    func listed() throws -> [ListedQuote] {
        let photo = PhotoReference(hash: "aa11", mediaType: "image/webp", small: "bb22")
        let pictured = User(id: UserID(4), username: try #require(Username("dee")), displayName: "Dee", photo: photo, joinedAt: at)
        let plain = User(id: UserID(5), username: try #require(Username("eve")), displayName: "Eve", joinedAt: at)
        let quotes = quotes()
        return [ListedQuote(quotes[0], addedBy: pictured), ListedQuote(quotes[1], addedBy: plain), ListedQuote(quotes[2])]
    }

    @Test func aListKeysAsItsCountThenEachQuoteAsItsOwnPartWould() throws {
        let listed = try listed()
        #expect(key { $0.append(listed) } == key { key in
            key.append(listed.count)
            for part in listed { part.append(to: &key) }
        })
        let quotes = quotes()
        #expect(key { $0.append(quotes) } == key { key in
            key.append(quotes.count)
            for quote in quotes { quote.append(to: &key) }
        })
    }

    @Test func aListsKeyHoldsWhatItsCardsShowAndNothingElse() throws {
        let listed = try listed()
        var renamedPictured = listed
        renamedPictured[0].adder?.displayName = "Dee Two"
        #expect(key { $0.append(listed) } != key { $0.append(renamedPictured) }, "the name beside a photo")
        var edited = listed
        edited[2].quote.version += 1
        #expect(key { $0.append(listed) } != key { $0.append(edited) }, "a new version")
        var renamedPlain = listed
        renamedPlain[1].adder?.displayName = "Eve Two"
        #expect(key { $0.append(listed) } == key { $0.append(renamedPlain) }, "a list shows no name without a photo")
    }
}
