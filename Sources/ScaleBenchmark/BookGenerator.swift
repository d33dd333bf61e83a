import Foundation
import Store

/// Makes a deterministic, realistic-looking journal for a big book: sign-ups, adds, edits,
/// restores, favourites, display-name changes and deletes, in a mix that leaves exactly
/// `quoteCount` quotes after exactly `actionCount` actions.
///
/// Every action is validated by the reducer as it is made (``AppReducer/reduce(_:_:)``), so the
/// journal holds only what a real server could have accepted.
struct BookGenerator {
    let quoteCount: Int
    let actionCount: Int
    let userCount: Int
    /// Quotes added and later deleted, so deletes are part of the journal.
    let deletedCount: Int

    private var random: SplitMix64
    private(set) var state = AppState()
    private var produced = 0
    private var added = 0
    private var deleted = 0
    private var clock = Date(timeIntervalSince1970: 1_700_000_000)

    init(quoteCount: Int, actionCount: Int, userCount: Int = 1_000, seed: UInt64 = 9) {
        self.quoteCount = quoteCount
        self.actionCount = actionCount
        self.userCount = userCount
        deletedCount = quoteCount / 100
        random = SplitMix64(seed: seed)
        precondition(actionCount >= userCount + quoteCount + 2 * deletedCount, "too few actions for the quotes asked for")
    }

    /// The next action, already applied to ``state``, and the quote it changed; nil when done.
    mutating func next() throws -> (action: AppAction, quote: QuoteID?)? {
        guard produced < actionCount else { return nil }
        clock += 7
        let action = chooseAction()
        produced += 1
        let event = try AppReducer.reduce(&state, action)
        return (action, event.quoteID)
    }

    /// Sign-ups first; then each step adds, deletes or changes with the odds of what is left to
    /// do, so adds and deletes spread through the whole journal and the counts come out exact.
    private mutating func chooseAction() -> AppAction {
        if state.users.count < userCount {
            let name = Username("reader\(state.users.count + 1)") ?? Username("reader")!
            return .signUp(name, displayName: Vocabulary.person(&random), at: clock)
        }
        let remaining = actionCount - produced
        let addsLeft = quoteCount + deletedCount - added
        let deletesLeft = deletedCount - deleted
        let roll = random.below(remaining)
        if roll < deletesLeft, !state.quoteOrder.isEmpty {
            return deleteOne()
        }
        if roll < deletesLeft + addsLeft || state.quoteOrder.isEmpty {
            added += 1
            return .addQuote(QuoteDraft(text: Vocabulary.sentence(&random), author: Vocabulary.person(&random)), by: someone(), at: clock)
        }
        return changeOne()
    }

    private mutating func changeOne() -> AppAction {
        let id = someQuote()
        let quote = state.quotes[id]!
        switch random.below(100) {
        case 0..<80:
            let draft = random.below(4) == 0
                ? QuoteDraft(text: quote.text, author: Vocabulary.person(&random))
                : QuoteDraft(text: Vocabulary.sentence(&random), author: quote.author)
            return .editQuote(id, draft, baseVersion: quote.version, by: someone(), at: clock)
        case 80..<88 where quote.version > 1:
            // The text is what the journal would give back; the generator does not keep history.
            return .restoreQuote(id, QuoteDraft(text: Vocabulary.sentence(&random), author: quote.author),
                fromVersion: 1, by: someone(), at: clock)
        case 88..<96:
            return .setFavourite(someone(), id, at: clock)
        default:
            return .changeDisplayName(someone(), to: Vocabulary.person(&random), at: clock)
        }
    }

    private mutating func deleteOne() -> AppAction {
        deleted += 1
        let id = someQuote()
        return .deleteQuote(id, by: state.quotes[id]!.addedBy!, at: clock)
    }

    private mutating func someone() -> UserID {
        UserID(1 + random.below(state.users.count))
    }

    private mutating func someQuote() -> QuoteID {
        state.quoteOrder[random.below(state.quoteOrder.count)]
    }
}

/// A small, fast, deterministic random number generator (SplitMix64, Steele et al. 2014), so the
/// same arguments always build the same book.
struct SplitMix64: RandomNumberGenerator {
    private var seed: UInt64

    init(seed: UInt64) { self.seed = seed }

    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(max(1, bound)))
    }
}
