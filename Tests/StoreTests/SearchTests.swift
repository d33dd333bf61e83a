import Foundation
import Store
import Testing

/// Folding for search: the same bytes for what a person types and for what the book says.
@Suite struct SearchFoldingTests {
    @Test(arguments: [
        ("École", "ecole"), ("e\u{301}cole", "ecole"), ("STRASSE", "strasse"), ("Straße", "strasse"), ("ẞ", "ss"),
        ("Łódź", "lodz"), ("Ærø", "aero"), ("Œuvre", "oeuvre"), ("Dvořák", "dvorak"), ("ﬁne", "fine"),
        ("Ｆｕｌｌ", "full"), ("İstanbul", "istanbul"), ("ΣΊΣΥΦΟΣ", "σισυφοσ"), ("ὁδός", "οδοσ"), ("don’t", "don't"),
        ("a\u{00AD}b", "ab"), ("tab\there\nline", "tab here line"), ("nbsp\u{00A0}x", "nbsp x"), ("Ünïcödé ÅNGSTRÖM", "unicode angstrom"),
        ("Plain ASCII, kept: 42!", "plain ascii, kept: 42!"),
    ])
    func foldsCaseAndAccentsAway(typed: String, folded: String) {
        #expect(SearchFolding.fold(typed) == Array(folded.utf8))
    }

    @Test func theASCIIFastPathFoldsAsTheGeneralOneDoes() {
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }.joined()
        var general: [UInt8] = []
        SearchFolding.foldDecomposing(ascii, into: &general)
        #expect(SearchFolding.fold(ascii) == general)
        #expect(SearchFolding.fold(ascii + "é") == general + [UInt8(ascii: "e")])
    }

    /// Folding run by run (ASCII by table, each non-ASCII run decomposed alone) gives what
    /// decomposing the whole text gives: marks after an ASCII letter, marks that normalisation
    /// reorders, spacing marks that are kept, Hangul, ligatures, digraphs, emoji sequences.
    @Test(arguments: [
        "e\u{301}\u{327}cole", "a\u{327}\u{301}b", "x\u{1D165}\u{301}\u{1D16D}y", "한국어 text", "oﬃce ﬁle", "ǅemal ǈ",
        "👩\u{200D}💻 at work", "कि हिन्दी", "Ñandú Ⅻ ㎏", "ΣΊΣΥΦΟΣ ὁδός", "a\u{00AD}b\u{2028}c", "Ｆｕｌｌ-width ＡＢＣ",
        "İı ß ẞ", "¼ ½ ™ ℃", "\u{301}leading mark", "trailing mark\u{301}", "مرحبا bonjour",
    ])
    func foldingRunByRunIsFoldingTheWholeText(text: String) {
        var whole: [UInt8] = []
        SearchFolding.foldDecomposing(text, into: &whole)
        #expect(SearchFolding.fold(text) == whole, "\(text)")
    }

    /// Each accented Latin letter that folds from a table, alone or between ASCII letters, at
    /// the table's edges too, folds as decomposing the text gives.
    @Test func latinLettersFromTheTableFoldAsDecomposingGives() {
        for value in 0xBF...0x180 {
            let letter = String(Character(Unicode.Scalar(UInt32(value))!))
            for text in [letter, "a\(letter)b", "\(letter)\(letter)", "x\(letter)\u{301}"] {
                var whole: [UInt8] = []
                SearchFolding.foldDecomposing(text, into: &whole)
                #expect(SearchFolding.fold(text) == whole, "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test func foldedTextNeverHoldsTheKeyTerminator() {
        #expect(!SearchFolding.fold("a\u{0}b\u{1}c\u{85}d\u{2028}e").contains(0))
        #expect(SearchFolding.key(text: "Two words", author: "An Author") == Array("two words an author".utf8))
    }
}

/// The words of a search, as the index matches them.
@Suite struct SearchQueryTests {
    @Test func splitsAtAnyWhitespaceDropsRepeatsAndPutsLongestFirst() {
        let query = SearchQuery(" the\tÉcole  ecole\u{00A0}of  THE ")
        #expect(query.words.map { String(decoding: $0, as: UTF8.self) } == ["ecole", "the", "of"])
        #expect(!query.isTruncated)
    }

    @Test func normalizedIsTheWordsInOrderJoinedBySingleSpaces() {
        let query = SearchQuery(" the\tÉcole  ecole\u{00A0}of  THE ")
        #expect(String(decoding: query.normalized, as: UTF8.self) == "ecole the of")
        #expect(query.wordCount == 3)
        // The same words typed otherwise are the same search (and the same kept result).
        #expect(SearchQuery("of THE école") == query)
        #expect(SearchQuery("of the") != query)
        #expect(SearchQuery("Ecole").normalized == Array("ecole".utf8))
        #expect(SearchQuery("  ").normalized.isEmpty && SearchQuery("  ").wordCount == 0)
    }

    @Test func nothingSearchableIsAnEmptyQuery() {
        #expect(SearchQuery("").isEmpty)
        #expect(SearchQuery(" \t ").isEmpty)
        #expect(SearchQuery("\u{301}\u{308}").isEmpty)
        #expect(!SearchQuery("x").isEmpty)
    }

    @Test func wordsPastTheCapAreIgnoredAndSaidSo() {
        let typed = (1...40).map { "w\($0)" }.joined(separator: " ")
        let query = SearchQuery(typed)
        #expect(query.words.count == SearchQuery.maximumWords)
        #expect(query.isTruncated)
        #expect(query.words.contains(Array("w1".utf8)) && !query.words.contains(Array("w17".utf8)))
    }

    @Test func exactlyTheCapWithRepeatsIsNotTruncated() {
        let distinct = (1...SearchQuery.maximumWords).map { "w\($0)" }
        let query = SearchQuery((distinct + distinct.reversed()).joined(separator: "  "))
        #expect(!query.isTruncated)
        #expect(query.words.count == SearchQuery.maximumWords)
    }

    @Test func equalLengthsKeepTheOrderTheyWereTypedIn() {
        let query = SearchQuery("bb a cc ddd b ee a")
        #expect(query.words.map { String(decoding: $0, as: UTF8.self) } == ["ddd", "bb", "cc", "ee", "a", "b"])
    }
}

/// The index: every word somewhere in one quote, newest first, kept in step with every change.
@Suite struct QuoteSearchIndexTests {
    let date = Date(timeIntervalSince1970: 1_000)

    func book(_ quotes: [(String, String)]) throws -> AppState {
        var state = AppState()
        _ = try AppReducer.reduce(&state, .signUp(try #require(Username("ada")), displayName: "Ada", at: date))
        for (text, author) in quotes {
            _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: text, author: author), by: UserID(1), at: date))
        }
        return state
    }

    func ids(_ state: AppState, _ typed: String) -> [Int] {
        state.searchIndex.matches(SearchQuery(typed)).map(\.rawValue)
    }

    /// The index a book with these quotes would have if it had been built from nothing.
    func rebuilt(_ state: AppState) -> QuoteSearchIndex {
        var index = QuoteSearchIndex()
        for id in state.quoteOrder {
            if let quote = state.quotes[id] { index.update(id, text: quote.text, author: quote.author) }
        }
        return index
    }

    @Test func findsEveryWordInAnyOrderInTextOrAuthorNewestFirst() throws {
        let state = try book([
            ("Imagination is more important than knowledge.", "Albert Einstein"),
            ("L'École des femmes", "Molière"),
            ("Knowledge speaks, but wisdom listens.", "Jimi Hendrix"),
            ("The only true wisdom is in knowing you know nothing.", "Socrates"),
        ])
        #expect(ids(state, "knowledge") == [3, 1])
        #expect(ids(state, "KNOWLEDGE imagination") == [1])
        // No words: every quote (no patterns, every slot a candidate).
        #expect(ids(state, " ") == [4, 3, 2, 1])
        #expect(ids(state, "imagination knowledge") == [1])
        #expect(ids(state, "einstein knowledge") == [1], "author words count")
        #expect(ids(state, "ecole moliere") == [2], "accents and case ignored")
        #expect(ids(state, "wisdom") == [4, 3])
        #expect(ids(state, "wisdom einstein") == [])
        #expect(ids(state, "xylophone") == [])
        #expect(ids(state, "") == [4, 3, 2, 1], "no words: every quote")
    }

    @Test func aWordNeverSpansTwoQuotesNorTextAndAuthor() throws {
        let state = try book([("ends with abc", "Xy"), ("def starts this", "Zw")])
        #expect(ids(state, "abcdef") == [])
        #expect(ids(state, "abcxy") == [])
        #expect(ids(state, "xyd") == [])
        #expect(ids(state, "abc") == [1])
    }

    @Test func editsRestoresAndDeletesKeepItInStep() throws {
        var state = try book((1...600).map { ("quote number \($0)", "author \($0 % 7)") })
        // Every quote, highest id first, across every lane of three chunks.
        #expect(ids(state, "") == Array((1...600).reversed()))
        #expect(ids(state, "number") == Array((1...600).reversed()))
        // Ids 256, 257 and 513 sit at chunk edges.
        for id in [1, 256, 257, 513, 600] {
            let quote = try #require(state.quotes[QuoteID(id)])
            _ = try AppReducer.reduce(
                &state, .editQuote(QuoteID(id), QuoteDraft(text: "edited marker \(id)", author: quote.author), baseVersion: 1, by: UserID(1), at: date))
        }
        #expect(ids(state, "marker") == [600, 513, 257, 256, 1])
        _ = try AppReducer.reduce(&state, .restoreQuote(QuoteID(257), QuoteDraft(text: "quote number 257", author: "author 5"), fromVersion: 1, by: nil, at: date))
        #expect(ids(state, "marker") == [600, 513, 256, 1])
        for id in [256, 600, 599, 598] {
            _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(id), by: UserID(1), at: date))
        }
        #expect(ids(state, "marker") == [513, 1])
        #expect(ids(state, "number 257") == [257], "the restored text is found again")
        #expect(state.searchIndex.key(of: QuoteID(256)) == nil)
        #expect(state.searchIndex.key(of: QuoteID(1)) == SearchFolding.key(text: "edited marker 1", author: "author 1"))
        #expect(state.searchIndex == rebuilt(state), "the same as an index built from the quotes as they are now")
        #expect(ids(state, "").count == state.quotes.count)
    }

    /// "knowledge" is in 100 quotes, more candidates than a search made every time reads.
    @Test func aSearchIsKeptForItsVersionOfTheIndexOnly() throws {
        let original = try book((1...100).map { ("Knowledge speaks \($0)", "Jimi Hendrix") })
        let all = Array((1...100).reversed())
        #expect(original.searchIndex.keptSearchCount == 0)
        #expect(ids(original, "knowledge") == all)
        #expect(original.searchIndex.keptSearchCount == 1)
        #expect(ids(original, "KNOWLEDGE") == all, "the same folded words: the kept result")
        #expect(original.searchIndex.keptSearchCount == 1)
        var edited = original
        #expect(edited.searchIndex.keptSearchCount == 1, "an unchanged copy shares what was found")
        let edit = QuoteDraft(text: "Wisdom listens", author: "Jimi Hendrix")
        _ = try AppReducer.reduce(&edited, .editQuote(QuoteID(1), edit, baseVersion: 1, by: UserID(1), at: date))
        #expect(edited.searchIndex.keptSearchCount == 0, "a change starts afresh")
        #expect(ids(edited, "knowledge") == all.dropLast())
        #expect(ids(edited, "wisdom") == [1])
        #expect(ids(original, "knowledge") == all, "and the older version keeps its own")
        #expect(ids(original, "wisdom") == [])
        _ = try AppReducer.reduce(&edited, .addQuote(QuoteDraft(text: "More knowledge", author: "Anon"), by: UserID(1), at: date))
        #expect(ids(edited, "knowledge") == [101] + all.dropLast())
        _ = try AppReducer.reduce(&edited, .deleteQuote(QuoteID(100), by: UserID(1), at: date))
        #expect(ids(edited, "knowledge") == [101] + all.dropFirst().dropLast())
    }

    /// A search whose words' pairs leave few candidate keys is made every time, with the same
    /// answer, and takes no room from the searches worth keeping.
    @Test func aSearchOfFewCandidatesIsMadeEveryTimeAndNeverKept() throws {
        let state = try book((1...300).map { ("quote number \($0)", "author") })
        for _ in 1...2 {
            #expect(ids(state, "number 300") == [300])
            #expect(ids(state, "xylophone") == [])
            #expect(state.searchIndex.keptSearchCount == 0)
        }
        #expect(ids(state, "number") == Array((1...300).reversed()), "every key a candidate")
        #expect(state.searchIndex.keptSearchCount == 1)
    }

    @Test func keptSearchesAreBoundedAndAgreeWithAFreshSearch() throws {
        let state = try book((1...300).map { ("quote number \($0)", "author \($0 % 7)") })
        // Every key holds "quote", and a one-character word adds no pair: each search reads all.
        let characters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let searches = characters.indices.flatMap { first in
            characters[(first + 1)...].map { "quote \(characters[first]) \($0)" }
        }
        #expect(searches.count > QuoteSearchResults.maximumEntries + 10)
        var mostKept = 0
        for typed in searches.prefix(QuoteSearchResults.maximumEntries + 10) {
            _ = ids(state, typed)
            mostKept = max(mostKept, state.searchIndex.keptSearchCount)
            #expect(state.searchIndex.keptSearchCount <= QuoteSearchResults.maximumEntries)
        }
        #expect(mostKept == QuoteSearchResults.maximumEntries, "kept up to the bound, never past it")
        let fresh = rebuilt(state)
        #expect(fresh.keptSearchCount == 0)
        for typed in ["1", "29", "author 3", "number", "xylophone", "", "quote a 1", "quote 3 z"] {
            #expect(ids(state, typed) == fresh.matches(SearchQuery(typed)).map(\.rawValue))
            #expect(ids(state, typed) == ids(state, typed))
        }
    }

    /// A small index is searched on the spot; a large one only when the search was kept, so a
    /// caller on an event loop can leave the byte search of a large book to another thread.
    @Test func quickMatchesSearchASmallIndexButOnlyRecallALargeOne() throws {
        let small = try book((1...300).map { ("quote number \($0)", "author") })
        #expect(small.searchIndex.byteCount <= QuoteSearchIndex.quickSearchBytes)
        #expect(small.searchIndex.quickMatches(SearchQuery("number 300"))?.map(\.rawValue) == [300])
        #expect(small.searchIndex.quickMatches(SearchQuery("number"))?.count == 300)
        #expect(small.searchIndex.keptSearchCount == 1, "a quick search of many candidates is kept too")

        var large = AppState()
        let filler = String(repeating: "lorem ipsum dolor ", count: 6)
        for number in 1...3_000 {
            large.searchIndex.update(QuoteID(number), text: "\(filler) quote \(number)", author: "Author \(number % 10)")
        }
        #expect(large.searchIndex.byteCount > QuoteSearchIndex.quickSearchBytes)
        let query = SearchQuery("quote 2999")
        #expect(large.searchIndex.quickMatches(query) == nil, "a byte search of a large index is not quick")
        #expect(large.searchIndex.keptSearchCount == 0)
        let found = large.searchIndex.matches(query)
        #expect(found.map(\.rawValue) == [2999])
        #expect(large.searchIndex.quickMatches(query) == found, "kept: recalled at once")
        large.searchIndex.update(QuoteID(5), text: "changed", author: "A")
        #expect(large.searchIndex.quickMatches(query) == nil, "a new version of the index keeps nothing yet")
    }

    @Test func deletingTheNewestQuotesDropsTheirEmptyChunks() throws {
        var state = try book((1...300).map { ("q\($0)", "a") })
        for id in 257...300 { _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(id), by: UserID(1), at: date)) }
        #expect(state.searchIndex == rebuilt(state))
        #expect(ids(state, "q1").first == 199)
    }

    /// The chunks after an emptied one keep their place among the candidates.
    @Test func aSearchAcrossAChunkEmptiedInTheMiddleFindsTheRest() throws {
        var state = try book((1...600).map { ("q\($0)", "a") })
        for id in 257...512 { _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(id), by: UserID(1), at: date)) }
        #expect(ids(state, "q51") == [519, 518, 517, 516, 515, 514, 513, 51])
        #expect(ids(state, "a").count == 344, "a word without pairs: every remaining key")
    }
}

extension PairFilter {
    /// The set bits, in ascending order.
    fileprivate var setBits: [Int] {
        var found: [Int] = []
        forEachBit { found.append($0) }
        return found
    }
}

/// The byte-pair filters that let a search skip keys: never a false negative, and most keys that
/// lack a word are skipped.
@Suite struct PairFilterTests {
    @Test func aKeyPassesForEveryWordItContainsWhateverBytesItHolds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let key = (0..<Int.random(in: 2...300, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) }
            let start = Int.random(in: 0..<key.count - 1, using: &generator)
            let word = Array(key[start..<Int.random(in: start + 1...key.count, using: &generator)])
            let keyFilter = key.withUnsafeBufferPointer { PairFilter(pairsOf: $0) }
            var wanted = PairFilter()
            word.withUnsafeBufferPointer { wanted.insert(pairsOf: $0) }
            #expect(wanted.setBits.allSatisfy(keyFilter.has), "\(key) lost \(word)")
        }
    }

    @Test func mostKeysWithoutTheWordAreSkippedAndOneByteWordsPassAll() {
        let keys = (0..<1000).map { index in Array("quote number \(index) about rivers and stones".utf8) }
        let filters = keys.map { key in key.withUnsafeBufferPointer { PairFilter(pairsOf: $0) } }
        var wanted = PairFilter()
        Array("lantern".utf8).withUnsafeBufferPointer { wanted.insert(pairsOf: $0) }
        #expect(filters.filter { filter in wanted.setBits.allSatisfy(filter.has) }.count < 50)
        var single = PairFilter()
        Array("q".utf8).withUnsafeBufferPointer { single.insert(pairsOf: $0) }
        #expect(single.setBits.isEmpty)
    }

    @Test func anIndexReadFromASnapshotSearchesAsTheOneWritten() throws {
        var state = AppState()
        let date = Date(timeIntervalSince1970: 1_000)
        _ = try AppReducer.reduce(&state, .signUp(try #require(Username("ada")), displayName: "Ada", at: date))
        let texts = ["The river runs", "Stones in the river", "A lantern at night", "Rivers of light and stone"]
        for text in texts {
            _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: text, author: "Ada"), by: UserID(1), at: date))
        }
        let bytes = SnapshotFormat.encode(state)
        let read = try bytes.withUnsafeBytes { buffer throws(SnapshotFormatError) in try SnapshotFormat.decode(buffer, through: 100) }
        for typed in ["river", "stone", "lantern", "light river", "rivers of", "nothing", "a"] {
            #expect(read.searchIndex.search(SearchQuery(typed)) == state.searchIndex.search(SearchQuery(typed)), "\(typed)")
        }
        #expect(read.searchIndex.search(SearchQuery("river")).count == 3)
    }
}
