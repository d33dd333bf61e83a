@testable import App
import Foundation
import Store
import Testing

/// A list's key reads its quotes field by field (``PageContentKey/append(_:)-(ListedQuotes)``),
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
        #expect(key { $0.append(ListedQuotes(listed)) } == key { key in
            key.append(listed.count)
            for part in listed { part.append(to: &key) }
        })
        let quotes = quotes()
        #expect(key { $0.append(quotes[...]) } == key { key in
            key.append(quotes.count)
            for quote in quotes { quote.append(to: &key) }
        })
        // A page of a longer list keys as its own quotes, wherever they lie.
        #expect(key { $0.append(quotes[1...]) } == key { $0.append(Array(quotes[1...])[...]) })
        #expect(key { $0.append(quotes[1...]) } != key { $0.append(quotes[...]) })
    }

    @Test func aListsKeyHoldsWhatItsCardsShowAndNothingElse() throws {
        let listed = try listed()
        var renamedPictured = listed
        renamedPictured[0].adder?.displayName = "Dee Two"
        #expect(key { $0.append(ListedQuotes(listed)) } != key { $0.append(ListedQuotes(renamedPictured)) }, "the name beside a photo")
        var edited = listed
        var newVersion = listed[2].quote
        newVersion.version += 1
        edited[2] = ListedQuote(newVersion, addedBy: listed[2].adder)
        #expect(key { $0.append(ListedQuotes(listed)) } != key { $0.append(ListedQuotes(edited)) }, "a new version")
        var renamedPlain = listed
        renamedPlain[1].adder?.displayName = "Eve Two"
        #expect(key { $0.append(ListedQuotes(listed)) } == key { $0.append(ListedQuotes(renamedPlain)) }, "a list shows no name without a photo")
    }

    /// The skeletons' table hashes a key's numbers with a fold of its own, not SipHash: keys
    /// that differ in one number (the next version of one quote of a page) still spread, equal
    /// keys hash alike, and a search's text still changes the hash.
    @Test func keysThatDifferInOneNumberSpreadAndEqualKeysHashAlike() {
        func page(_ version: Int, at slot: Int, search: String? = nil) -> PageContentKey {
            var key = PageContentKey()
            for number in [1, 5, -1, 0] { key.append(number) }
            if let search { key.append(search) }
            for id in 1...20 { key.appendQuote(id: QuoteID(id), version: id == slot ? version : 1, addedBy: UserID(id % 4 + 1)) }
            return key
        }
        let keys = (1...20).flatMap { slot in (2...201).map { page($0, at: slot) } }
        let buckets = 1_024
        var load = [Int](repeating: 0, count: buckets)
        for key in keys { load[Int(UInt(bitPattern: key._rawHashValue(seed: 77)) % UInt(buckets))] += 1 }
        #expect(Set(keys.map { $0._rawHashValue(seed: 77) }).count == keys.count, "4,000 keys, no two alike")
        #expect(load.max()! <= 14, "at most \(load.max()!) of 4,000 in one of 1,024 buckets")
        #expect(page(3, at: 2)._rawHashValue(seed: 5) == page(3, at: 2)._rawHashValue(seed: 5))
        #expect(page(3, at: 2)._rawHashValue(seed: 5) != page(3, at: 2)._rawHashValue(seed: 6))
        #expect(page(3, at: 2, search: "ab")._rawHashValue(seed: 5) != page(3, at: 2, search: "ba")._rawHashValue(seed: 5))
        #expect(Set(keys).count == keys.count)

        // The skeletons' own key folds in the status and flags, and hashes equal keys alike.
        func skeleton(_ content: PageContentKey, status: Int = 200, signedIn: Bool = true) -> PageSkeletons.Key {
            PageSkeletons.Key(template: .quotes, status: status, content: content, isSignedIn: signedIn, isModerator: false, hasToken: true)
        }
        let content = page(3, at: 2)
        #expect(skeleton(content)._rawHashValue(seed: 5) == skeleton(page(3, at: 2))._rawHashValue(seed: 5))
        #expect(skeleton(content)._rawHashValue(seed: 5) != skeleton(content, status: 404)._rawHashValue(seed: 5))
        #expect(skeleton(content)._rawHashValue(seed: 5) != skeleton(content, signedIn: false)._rawHashValue(seed: 5))
        #expect(skeleton(content)._rawHashValue(seed: 5) != skeleton(page(4, at: 2))._rawHashValue(seed: 5))
    }

    /// A history page keys each editor once: renaming either of two editors, or swapping who
    /// made two versions, gives another key; a former member (no account) keys apart from the seed.
    @Test func aHistoryKeyChangesWithEveryEditorAndWhoMadeEachVersion() throws {
        let ada = User(id: UserID(1), username: try #require(Username("ada")), displayName: "Ada", joinedAt: at)
        let bob = User(id: UserID(2), username: try #require(Username("bob")), displayName: "Bob", joinedAt: at)
        let quote = quotes()[0]
        func version(_ number: Int, by editor: Int?) -> QuoteVersion {
            QuoteVersion(version: number, text: "v\(number)", author: "A", editedBy: editor.map { UserID($0) }, editedAt: at)
        }
        func historyKey(_ editors: [Int?], users: [User]) -> PageContentKey? {
            let versions = HistoryVersions(
                oldestFirst: editors.enumerated().map { version($0.offset + 1, by: $0.element) },
                users: Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0) }))
            return QuoteHistoryView.page(for: .showing(quote, versions: versions, page: 1, pageCount: 1, canRestore: true)).sharedKey
        }
        let base = historyKey([nil, 1, 2, 1], users: [ada, bob])
        #expect(base != nil)
        #expect(base == historyKey([nil, 1, 2, 1], users: [ada, bob]))
        var renamed = bob
        renamed.displayName = "Bob B."
        #expect(base != historyKey([nil, 1, 2, 1], users: [ada, renamed]), "the editor seen last")
        #expect(base != historyKey([nil, 2, 1, 1], users: [ada, bob]), "who made which version")
        #expect(historyKey([nil, 3], users: [ada]) != historyKey([nil, nil], users: [ada]), "a former member is not the seed")
    }
}
