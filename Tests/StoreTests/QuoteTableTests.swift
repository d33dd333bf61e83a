import Foundation
@testable import Store
import Testing

/// The quote table answers as the dictionary it replaced did.
@Suite struct QuoteTableTests {
    func quote(_ id: Int) -> Quote {
        let date = Date(timeIntervalSince1970: 1_000)
        return Quote(id: QuoteID(id), text: "Text \(id)", author: "A", version: 1, addedBy: nil, addedAt: date, updatedBy: nil, updatedAt: date)
    }

    @Test func storesFindsReplacesAndRemovesByID() {
        var table = QuoteTable()
        #expect(table.isEmpty && table[QuoteID(1)] == nil)
        for id in [1, 256, 257, 600] { table[QuoteID(id)] = quote(id) }
        #expect(table.count == 4)
        #expect(table[QuoteID(257)] == quote(257))
        #expect(table[QuoteID(2)] == nil && table[QuoteID(601)] == nil && table[QuoteID(5_000)] == nil)
        table[QuoteID(257)]?.version = 2
        #expect(table[QuoteID(257)]?.version == 2)
        #expect(table.count == 4, "replacing is not adding")
        #expect(table.removeValue(forKey: QuoteID(256))?.id == QuoteID(256))
        #expect(table.removeValue(forKey: QuoteID(256)) == nil)
        table[QuoteID(1)] = nil
        #expect(table.count == 2)
        #expect(table.values.map(\.id) == [QuoteID(257), QuoteID(600)], "in id order")
        #expect(table.keys == [QuoteID(257), QuoteID(600)])
    }

    /// A person's quotes are the ones whose adder is that person, in id order, across chunks,
    /// after removals, and none for someone who added nothing (or for quotes added by no one).
    @Test func idsAddedByAPersonMatchTheQuotesFiltered() {
        var table = QuoteTable()
        var random = SystemRandomNumberGenerator()
        for id in 1...1_300 where id % 7 != 0 {
            var made = quote(id)
            made.addedBy = id % 5 == 0 ? nil : UserID(1 + Int.random(in: 0..<3, using: &random))
            table[QuoteID(id)] = made
        }
        for id in stride(from: 3, to: 1_300, by: 11) { table.removeValue(forKey: QuoteID(id)) }
        for person in 1...3 {
            let expected = table.values.filter { $0.addedBy == UserID(person) }.map(\.id)
            #expect(!expected.isEmpty)
            #expect(table.ids(addedBy: UserID(person)) == expected)
        }
        #expect(table.ids(addedBy: UserID(4)).isEmpty)
        #expect(QuoteTable().ids(addedBy: UserID(1)).isEmpty)
    }

    /// Runs filled apart (a snapshot's blocks, each on its own core) and appended make the table
    /// that setting each quote makes, empty runs and all; a run refuses ids outside it, and twice.
    @Test func runsAppendedMakeTheSameTableAsQuotesSetOneByOne() {
        let ids = [1, 2, 300, 1_100, 1_101, 2_048]
        var expected = QuoteTable()
        for id in ids { expected[QuoteID(id)] = quote(id) }
        var table = QuoteTable()
        for first in stride(from: 0, to: 12, by: 4) {
            var run = QuoteTable.Run(firstChunk: first, chunkCount: 4)
            for id in ids where run.ids.contains(id) {
                let inserted = run.insertNew(quote(id))
                #expect(inserted)
            }
            table.append(run)
        }
        #expect(table == expected)
        #expect(table.count == ids.count)
        #expect(table.values.map(\.id.rawValue) == ids)
        table[QuoteID(3_000)] = quote(3_000)
        #expect(table[QuoteID(3_000)] == quote(3_000), "set after the runs")

        var run = QuoteTable.Run(firstChunk: 4, chunkCount: 4)
        #expect(run.ids == 1_025...2_048)
        let refused = [run.insertNew(quote(1_024)), run.insertNew(quote(2_049)), run.insertNew(quote(1_025)), run.insertNew(quote(1_025))]
        #expect(refused == [false, false, true, false], "outside, outside, new, again")
        #expect(run.count == 1)
    }

    /// The highest id and the quotes of a range of ids (how a snapshot writes its blocks) agree
    /// with filtering every quote, across chunk edges, gaps, removals and ranges past the end.
    @Test func highestIDAndRangesMatchTheQuotesFiltered() {
        var table = QuoteTable()
        #expect(table.highestID == nil && table.count(inIDs: 1...4_096) == 0)
        let ids = [1, 2, 255, 256, 257, 600, 1_024, 1_025, 5_000]
        for id in ids { table[QuoteID(id)] = quote(id) }
        #expect(table.highestID == QuoteID(5_000))
        table[QuoteID(5_000)] = nil
        #expect(table.highestID == QuoteID(1_025), "the removed last quote's chunk is dropped")
        let ranges = [1...4_096, 2...256, 256...257, 257...257, 3...254, 601...1_023, 1_025...9_000, 5_000...9_000, -5...1, 0...0]
        for range in ranges {
            var lent: [Quote] = []
            table.forEachQuote(inIDs: range) { lent.append($0) }
            let expected = table.values.filter { range.contains($0.id.rawValue) }
            #expect(lent == expected, "\(range)")
            #expect(table.count(inIDs: range) == expected.count)
        }
    }

    @Test func idsBelowOneAreNeverStored() {
        var table = QuoteTable()
        table[QuoteID(0)] = quote(0)
        table[QuoteID(-3)] = quote(-3)
        #expect(table.isEmpty && table[QuoteID(0)] == nil)
    }

    @Test func tablesWithTheSameQuotesAreEqualWhateverCameAndWent() {
        var churned = QuoteTable()
        for id in 1...700 { churned[QuoteID(id)] = quote(id) }
        for id in 3...700 { churned.removeValue(forKey: QuoteID(id)) }
        var direct = QuoteTable()
        for id in 1...2 { direct[QuoteID(id)] = quote(id) }
        #expect(churned == direct)
        #expect(churned != QuoteTable())
    }
}
