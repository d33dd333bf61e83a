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
        state.searchIndex.results.remember([QuoteID(4242)], for: query.words)
        #expect(helpers.ids(state, "Knowledge") == [4242], "the kept result, not a new search")
        // A search of few candidates is never looked up: planting one changes nothing.
        let few = SearchQuery("speaks 77")
        state.searchIndex.results.remember([QuoteID(4242)], for: few.words)
        #expect(helpers.ids(state, "speaks 77") == [77])
    }
}
