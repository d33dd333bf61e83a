import Foundation
@testable import Store
import Testing

/// What a kept search found is what the index answers with, for its version of the keys: shown
/// by planting a result no byte search could give (`QuoteSearchIndexTests` sees only how many
/// searches are kept, and a kept result and a fresh search give the same ids).
@Suite struct KeptSearchTests {
    let helpers = QuoteSearchIndexTests()

    @Test func aSearchOfManyCandidatesIsAnsweredFromWhatWasKept() throws {
        let state = try helpers.book((1...100).map { ("Knowledge speaks \($0)", "Jimi Hendrix") })
        let query = SearchQuery("knowledge")
        #expect(helpers.ids(state, "knowledge") == Array((1...100).reversed()))
        state.searchIndex.results.remember([QuoteID(4242)], for: query.normalized)
        #expect(helpers.ids(state, "Knowledge") == [4242], "the kept result, not a new search")
        // A search of few candidates is never looked up: planting one changes nothing.
        let few = SearchQuery("speaks 77")
        state.searchIndex.results.remember([QuoteID(4242)], for: few.normalized)
        #expect(helpers.ids(state, "speaks 77") == [77])
    }
}

/// The pair sets a snapshot's load derives from the keys (``QuoteSearchIndex/Chunk/deriveFilters()``,
/// rewritten for start-up speed in issue 32) are exactly those the index built key by key, in
/// every chunk, including slots emptied by deletions.
@Suite struct DerivedFilterTests {
    @Test func aLoadedIndexHasThePairSetsOfTheOneWritten() throws {
        let helpers = QuoteSearchIndexTests()
        let words = ["river", "stone", "lantern", "night", "ÉCOLE", "straße", "日本語", "a", "", "q"]
        var state = try helpers.book((0..<700).map { index in
            (words.shuffled().prefix(index % 9).joined(separator: " ") + " \(index)", "Author \(index % 13)")
        })
        for id in stride(from: 5, to: 700, by: 7) { _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(id), by: UserID(1), at: Date())) }
        let bytes = SnapshotFormat.encode(state)
        let read = try bytes.withUnsafeBytes { buffer throws(SnapshotFormatError) in try SnapshotFormat.decode(buffer, through: 10_000) }
        #expect(read.searchIndex.chunks.count == state.searchIndex.chunks.count)
        #expect(read.searchIndex.chunks.count >= 3)
        for (index, (loaded, built)) in zip(read.searchIndex.chunks, state.searchIndex.chunks).enumerated() {
            #expect(loaded.slotsWithPair == built.slotsWithPair, "chunk \(index)")
        }
    }
}
