import App
import Foundation
import Store
import Testing

/// A list of quotes read from the state's table holds each chunk it reads from once for each
/// run of quotes in it, and lists what lending each quote on its own would.
@Suite struct ListedQuotesTests {
    let at = Date(timeIntervalSince1970: 1_000)

    /// Quotes 1 to 300: more than one chunk's worth, so that a page can span two.
    func table() -> QuoteTable {
        var table = QuoteTable()
        for id in 1...300 {
            table[QuoteID(id)] = Quote(
                id: QuoteID(id), text: "text \(id)", author: "author", version: 1, addedBy: UserID(id % 3),
                addedAt: at, updatedBy: nil, updatedAt: at)
        }
        return table
    }

    /// Ada (1), with a photo, and Bea (2), without; quotes added by 0 were added by no one known.
    var people: [UserID: User] {
        let photo = PhotoReference(hash: "aa11", mediaType: "image/webp", small: "bb22")
        return [
            UserID(1): User(id: UserID(1), username: Username("ada")!, displayName: "Ada", photo: photo, joinedAt: at),
            UserID(2): User(id: UserID(2), username: Username("bea")!, displayName: "Bea", joinedAt: at),
        ]
    }

    @Test func listsTheQuotesOfItsIdsInOrderWithTheirAddersLeavingOutIdsOfNone() {
        let table = table()
        let ids = [300, 299, 258, 257, 256, 255, 5, 999, 0].map { QuoteID($0) }
        let list = ListedQuotes(ids, of: table, pictured: people)
        let lent = ids.compactMap { id in
            table.place(of: id).map { place in
                ListedQuote(QuoteTable.Lent(chunk: table.chunk(place.chunk), slot: place.slot), addedBy: place.addedBy == UserID(1) ? people[UserID(1)] : nil)
            }
        }
        #expect(list == ListedQuotes(lent))
        #expect(list.map(\.quote.id.rawValue) == [300, 299, 258, 257, 256, 255, 5])
        #expect(list.indices.map { list[quoteAt: $0].text } == ["text 300", "text 299", "text 258", "text 257", "text 256", "text 255", "text 5"])
        #expect(list.indices.map { list[adderAt: $0]?.displayName } == [nil, nil, nil, nil, "Ada", nil, nil], "Bea has no photo")
    }

    @Test func holdsEachChunkOnceForEachRunOfQuotesInIt() {
        let table = table()
        #expect(ListedQuotes((1...20).reversed().map { QuoteID($0) }, of: table, pictured: people).heldChunkCount == 1)
        #expect(ListedQuotes((250...270).reversed().map { QuoteID($0) }, of: table, pictured: people).heldChunkCount == 2, "a page across two chunks")
        #expect(ListedQuotes([300, 5, 299].map { QuoteID($0) }, of: table, pictured: people).heldChunkCount == 3, "three runs")
        #expect(ListedQuotes([999].map { QuoteID($0) }, of: table, pictured: people).heldChunkCount == 0)
    }

    @Test func equalListsHoldEqualQuotesAndAddersInOrder() {
        let table = table()
        let list = ListedQuotes([3, 2, 1].map { QuoteID($0) }, of: table, pictured: people)
        #expect(list == ListedQuotes([3, 2, 1].map { QuoteID($0) }, of: table, pictured: people))
        #expect(list != ListedQuotes([3, 1, 2].map { QuoteID($0) }, of: table, pictured: people))
        #expect(list != ListedQuotes([3, 2].map { QuoteID($0) }, of: table, pictured: people))
        #expect(list != ListedQuotes([3, 2, 1].map { QuoteID($0) }, of: table, pictured: [:]), "who added quote 1 differs")
    }
}
