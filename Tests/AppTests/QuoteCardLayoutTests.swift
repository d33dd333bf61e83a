@testable import App
import Testing

/// A card is made for every quote of a list and goes into a template value as a `.custom`
/// existential: it must fit the existential's inline room of three words, or every card
/// allocates a box of its own.
struct QuoteCardLayoutTests {
    @Test func aCardFitsATemplateValuesInlineRoom() {
        #expect(MemoryLayout<QuoteCard>.size <= 3 * MemoryLayout<Int>.size)
    }
}
