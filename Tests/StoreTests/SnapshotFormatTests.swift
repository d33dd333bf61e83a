import Foundation
import Store
import StoreSQLite
import TestSupport
import Testing

/// The binary snapshot: the same state back, and an error (never a crash) for anything else.
@Suite struct SnapshotFormatTests {
    let date = Date(timeIntervalSince1970: 1_234.5)

    /// A book with every kind of value the state holds: a photo, favourites, an edited quote, a
    /// deleted one, the seed added by no one, and text that is not ASCII.
    func richState() throws -> AppState {
        var state = AppState()
        let actions: [AppAction] = [
            .addQuote(QuoteDraft(text: "Seed", author: "Nobody"), by: nil, at: date),
            .signUp(try #require(Username("ada")), displayName: "Ada <L>", at: date),
            .signUp(try #require(Username("bob_2")), displayName: "Bøb", at: date),
            .addQuote(QuoteDraft(text: "L'École 🎓 e\u{301}", author: "Ünïcödé"), by: UserID(1), at: date.addingTimeInterval(0.001)),
            .addQuote(QuoteDraft(text: "Doomed", author: "D"), by: UserID(2), at: date),
            .addQuote(QuoteDraft(text: "Last", author: "L"), by: UserID(2), at: date),
            .addQuote(QuoteDraft(text: "L'École 🎓 e\u{301}", author: "Ünïcödé"), by: UserID(1), at: date),
            .editQuote(QuoteID(2), QuoteDraft(text: "Edited", author: "E"), baseVersion: 1, by: UserID(2), at: date.addingTimeInterval(-1e9)),
            .setPhoto(UserID(1), PhotoReference(hash: "ab12", mediaType: "image/png"), at: date),
            .setPhoto(UserID(2), PhotoReference(hash: "cd34", mediaType: "image/webp", small: "ef56"), at: date),
            .setFavourite(UserID(2), QuoteID(2), at: date),
            .deleteQuote(QuoteID(3), by: UserID(2), at: date),
            // Moderation: a moderator, a hidden quote, an open report, a suspension and the log.
            .signUp(try #require(Username("mod")), displayName: "Mod", at: date),
            .setRole(UserID(3), .moderator, at: date),
            .reportQuote(QuoteID(2), by: UserID(1), reason: "Spam <b>", at: date),
            .reportQuote(QuoteID(4), by: UserID(2), reason: "Line one\nline two", at: date),
            .hideQuote(QuoteID(4), by: UserID(3), reason: "Duplicate of 2", at: date),
            .suspend(UserID(2), by: UserID(3), reason: "Vandal", at: date),
        ]
        for action in actions { _ = try AppReducer.reduce(&state, action) }
        return state
    }

    func decode(_ bytes: [UInt8], through sequence: Int64 = 100) throws -> AppState {
        try bytes.withUnsafeBytes { buffer throws(SnapshotFormatError) in try SnapshotFormat.decode(buffer, through: sequence) }
    }

    @Test func aStateComesBackEqual() throws {
        for state in [AppState(), try richState()] {
            #expect(try decode(SnapshotFormat.encode(state)) == state)
        }
    }

    /// A photo stored as uploaded (before issue 19) has no small version, in a snapshot and in
    /// the journal's JSON alike; one made since names both.
    @Test func photosWithAndWithoutASmallVersionComeBack() throws {
        let users = try decode(SnapshotFormat.encode(try richState())).users
        #expect(users[UserID(1)]?.photo?.hashes == ["ab12"])
        #expect(users[UserID(2)]?.photo?.hashes == ["cd34", "ef56"])
        let old = try JSONDecoder().decode(PhotoReference.self, from: Data(#"{"hash":"ab12","mediaType":"image/png"}"#.utf8))
        #expect(old == PhotoReference(hash: "ab12", mediaType: "image/png", small: nil))
        let new = PhotoReference(hash: "cd34", mediaType: "image/webp", small: "ef56")
        #expect(try JSONDecoder().decode(PhotoReference.self, from: JSONEncoder().encode(new)) == new)
    }

    @Test func encodingIsDeterministic() throws {
        let state = try richState()
        #expect(SnapshotFormat.encode(state) == SnapshotFormat.encode(try decode(SnapshotFormat.encode(state))))
    }

    @Test func everyTruncationAndAnotherVersionAreErrors() throws {
        let bytes = SnapshotFormat.encode(try richState())
        for length in 0..<bytes.count {
            #expect(throws: SnapshotFormatError.self) { try decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: SnapshotFormatError.self) { try decode(bytes + [0]) }
        var otherVersion = bytes
        otherVersion[4] = 5
        #expect(throws: SnapshotFormatError.self) { try decode(otherVersion) }
        #expect(throws: SnapshotFormatError.self) { try decode(Array("{\"quotes\": {}}".utf8)) }
    }

    /// A version 2 snapshot (before moderation) is read as a state with no moderation at all.
    @Test func aSnapshotFromBeforeModerationHasNone() throws {
        var state = try richState()
        state.moderation = ModerationState()
        var bytes = SnapshotFormat.encode(state, version: SnapshotFormat.versionInOnePass)
        // An empty moderation section: three counts, the next report id (1, zig-zag 2), two counts.
        let section: [UInt8] = [0, 0, 0, 2, 0, 0]
        #expect(Array(bytes[(bytes.count - 4 - section.count)..<(bytes.count - 4)]) == section)
        bytes.removeSubrange((bytes.count - 4 - section.count)..<(bytes.count - 4))
        bytes[4] = 2
        #expect(try decode(bytes) == state)
        #expect(!SnapshotFormat.isCurrent(bytes), "written again in this version")
    }

    /// A version 3 snapshot (one pass, no table of sections) is read as it was written, and
    /// written again in this version.
    @Test func aSnapshotInOnePassComesBackEqual() throws {
        let state = try richState()
        let bytes = SnapshotFormat.encode(state, version: SnapshotFormat.versionInOnePass)
        #expect(bytes[4] == 3)
        #expect(try decode(bytes) == state)
        #expect(!SnapshotFormat.isCurrent(bytes))
        #expect(SnapshotFormat.isCurrent(SnapshotFormat.encode(state)))
        for length in 0..<bytes.count {
            #expect(throws: SnapshotFormatError.self) { try decode(Array(bytes.prefix(length))) }
        }
    }

    /// A book of several blocks of quotes and of search-index chunks, read on every core: the
    /// same state back, and damage in any one block, or a table whose lengths do not add up, an
    /// error.
    @Test func aBookOfManyBlocksComesBackEqualAndDamageInAnyBlockIsAnError() throws {
        var state = AppState()
        _ = try AppReducer.reduce(&state, .signUp(try #require(Username("ada")), displayName: "Ada", at: date))
        for number in 1...10_000 {
            let draft = QuoteDraft(text: "Quote number \(number) é", author: "Author \(number % 97)")
            _ = try AppReducer.reduce(&state, .addQuote(draft, by: number % 3 == 0 ? nil : UserID(1), at: date))
        }
        _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(5_000), by: UserID(1), at: date))
        let bytes = SnapshotFormat.encode(state)
        let read = try decode(bytes, through: 20_000)
        #expect(read == state)
        #expect(read.searchIndex.matches(SearchQuery("number 9999")) == [QuoteID(9_999)])
        #expect(SnapshotFormat.encode(read) == bytes)

        // A text of the third block of quotes made invalid UTF-8, and the table's first length
        // (after the fold's fingerprint and the two counts of blocks, 3 and 3) one byte longer.
        let text = Array("Quote number 9000 é".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: text) })
        var damagedText = bytes
        damagedText[at + text.count - 1] = 0xFF
        #expect(throws: SnapshotFormatError.self) { try decode(damagedText, through: 20_000) }
        let fingerprint = withUnsafeBytes(of: SearchFolding.fingerprint.littleEndian) { Array($0) }
        let table = try #require(bytes.indices.first { bytes[$0...].starts(with: fingerprint) }) + 8
        #expect(Array(bytes[table..<table + 2]) == [3, 3])
        for change: UInt8 in [1, 0xFF] {
            var wrongLength = bytes
            wrongLength[table + 2] &+= change
            #expect(throws: SnapshotFormatError.self) { try decode(wrongLength, through: 20_000) }
        }
    }

    @Test func moderationComesBack() throws {
        let moderation = try decode(SnapshotFormat.encode(try richState())).moderation
        #expect(moderation.moderators == [UserID(3)])
        #expect(moderation.hidden[QuoteID(4)]?.note.reason == "Duplicate of 2")
        #expect(moderation.reports.values.map(\.reason) == ["Spam <b>"], "the hidden quote's report closed")
        #expect(moderation.suspended[UserID(2)]?.by == UserID(3))
        #expect(moderation.log.map(\.kind) == [.roleGiven, .quoteHidden, .suspended])
    }

    @Test func idsPastTheJournalAreRefused() throws {
        let state = try richState()
        // Eleven actions made it, so its next quote id is 6 and its next account id 3.
        #expect(try decode(SnapshotFormat.encode(state), through: 11) == state)
        #expect(throws: SnapshotFormatError.self) { try decode(SnapshotFormat.encode(state), through: 4) }
        var far = state
        far.quotes[QuoteID(1_000_000)] = far.quotes[QuoteID(1)].map { quote in
            var moved = quote
            moved.id = QuoteID(1_000_000)
            return moved
        }
        #expect(throws: SnapshotFormatError.self) { try decode(SnapshotFormat.encode(far)) }
    }

    /// Bytes that are not UTF-8 inside a string are an error, including a cut-short sequence that
    /// a decoder would replace with U+FFFD of the same length (🎓's first three bytes, then "A").
    @Test func textThatIsNotUTF8IsAnError() throws {
        let bytes = SnapshotFormat.encode(try richState())
        func replacing(_ pattern: [UInt8], with replacement: [UInt8]) throws -> [UInt8] {
            let start = try #require(bytes.indices.first { bytes[$0...].starts(with: pattern) })
            var damaged = bytes
            damaged.replaceSubrange(start..<start + pattern.count, with: replacement)
            return damaged
        }
        #expect(throws: SnapshotFormatError.self) { try decode(try replacing(Array("Ü".utf8), with: [0xFF, 0x9C])) }
        #expect(throws: SnapshotFormatError.self) { try decode(try replacing(Array("🎓".utf8), with: [0xF0, 0x9F, 0x8E, 0x41])) }
        #expect(throws: SnapshotFormatError.self) { try decode(try replacing(Array("Bøb".utf8), with: [0x42, 0xED, 0xA0, 0x62])) }
        #expect(try decode(bytes) == richState())
    }

    @Test func damagedBytesNeverCrashTheDecoder() throws {
        let bytes = SnapshotFormat.encode(try richState())
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var damaged = bytes
            for _ in 0..<3 { damaged[Int.random(in: 4..<damaged.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
            // Either an error or some state: what matters is that it returns.
            _ = try? decode(damaged)
        }
        #expect(try decode(bytes) == richState())
    }

    @Test func theSearchIndexIsKeptWhenFoldedTheSameWayAndRebuiltOtherwise() throws {
        let state = try richState()
        var stale = state
        stale.searchIndex = QuoteSearchIndex()
        // Stored as it is when this process folds as the snapshot's did...
        #expect(try decode(SnapshotFormat.encode(stale)).searchIndex == QuoteSearchIndex())
        // ...and rebuilt from the quotes when the fold differed.
        let refolded = try decode(SnapshotFormat.encode(stale, fingerprint: SearchFolding.fingerprint &+ 1))
        #expect(refolded.searchIndex == state.searchIndex)
        #expect(refolded.searchIndex.matches(SearchQuery("seed nobody")) == [QuoteID(1)])
        #expect(refolded.searchIndex.matches(SearchQuery("edited")) == [QuoteID(2)])
        #expect(refolded.searchIndex.matches(SearchQuery("ecole unicode")) == [QuoteID(5)])
    }

    @Test func aJournalInAFileKeepsItsSnapshotInAFileBesideIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try SQLiteJournal(directory: directory.url)
        for index in 1...10 { _ = try journal.append(.addQuote(QuoteDraft(text: "Q\(index)", author: "A"), by: nil, at: Date()), quote: nil) }
        let state = try richState()
        try journal.saveSnapshot(JournalSnapshot(sequence: 10, state: state))
        #expect(journal.loadSnapshot() == JournalSnapshot(sequence: 10, state: state))
        journal.close()
        let database = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let file = try #require(FileManager.default.contents(atPath: database + "-snapshot"))
        #expect(Array(file.prefix(8)) == Array("QBSNAP01".utf8))
        #expect(Array(file[8..<16]) == [10, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(file[16..<20]) == Array("QBSS".utf8))
        #expect(!FileManager.default.fileExists(atPath: database + "-snapshot.tmp"))
        let raw = try SQLiteConnection(path: database)
        #expect(try raw.prepare("SELECT count(*) FROM snapshot").rows { $0.int(at: 0) } == [0])
        raw.close()
    }

    @Test func anInMemoryJournalKeepsItsSnapshotAsABlobInItsTable() throws {
        let journal = try SQLiteJournal(path: ":memory:")
        for index in 1...10 { _ = try journal.append(.addQuote(QuoteDraft(text: "Q\(index)", author: "A"), by: nil, at: Date()), quote: nil) }
        let state = try richState()
        try journal.saveSnapshot(JournalSnapshot(sequence: 10, state: state))
        #expect(journal.loadSnapshot() == JournalSnapshot(sequence: 10, state: state))
        #expect(journal.makeSnapshotSaver() == nil)
        journal.close()
    }
}
