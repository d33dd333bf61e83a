import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// Deleting an account erases what named the person from the journal in the same append, and a
/// replay of the erased journal still gives the same book; secrets never reach the journal.
@Suite struct ErasureTests {
    let date = Date(timeIntervalSince1970: 1_000)

    /// Ada (1) and Bob (2) sign up; Ada renames herself, adds a quote, edits Bob's, picks a
    /// favourite and a photo; Bob changes his password.
    var book: [AppAction] {
        [
            .signUp(Username("ada_erasable")!, displayName: "Ada Erasable", at: date),
            .signUp(Username("bob")!, displayName: "Bob", at: date),
            .changeDisplayName(UserID(1), to: "Countess Erasable", at: date),
            .addQuote(QuoteDraft(text: "Ada's words", author: "Ada"), by: UserID(1), at: date),
            .addQuote(QuoteDraft(text: "Bob's words", author: "Bob"), by: UserID(2), at: date),
            .editQuote(QuoteID(2), QuoteDraft(text: "Bob's words, as Ada saw them", author: "Bob"), baseVersion: 1, by: UserID(1), at: date),
            .setFavourite(UserID(1), QuoteID(2), at: date),
            .setPhoto(UserID(1), PhotoReference(hash: "feedface", mediaType: "image/webp"), at: date),
            .passwordChanged(UserID(2), at: date),
        ]
    }

    /// Every stored entry's text, as the journal holds it.
    static func storedText(_ journal: any JournalStorage) throws -> String {
        try JournalEntryCoding.encode(journal.loadAll().map(\.action)).joined(separator: "\n")
    }

    @Test(arguments: JournalBackend.available)
    func deletingErasesThePersonsEntriesAndAReplayGivesTheSameBook(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: book, logger: .discarding())
            #expect(try await store.dispatch(.deleteAccount(UserID(1), at: date)) == .success(.accountDeleted(UserID(1), photo: PhotoReference(hash: "feedface", mediaType: "image/webp"))))
            let live = store.state
            #expect(live.users[UserID(1)] == nil)
            #expect(live.user(named: Username("ada_erasable")!) == nil, "the username is free")
            #expect(live.quotes[QuoteID(1)]?.addedBy == UserID(1), "the quotes stay, by an id no one has")
            #expect(live.quotes[QuoteID(2)]?.text == "Bob's words, as Ada saw them")
            #expect(live.users[UserID(2)]?.displayName == "Bob")
            #expect(try await store.dispatch(.deleteAccount(UserID(1), at: date)) == .failure(.userNotFound(UserID(1))))
            await store.close()

            let journal = try location.open()
            let text = try Self.storedText(journal)
            for name in ["ada_erasable", "Erasable", "feedface"] { #expect(!text.contains(name), "\(name) left in the journal") }
            #expect(text.contains("Bob's words, as Ada saw them"), "the versions stay")
            #expect(try journal.loadAll().filter { $0.action == .erased(UserID(1)) }.count == 4)
            journal.close()

            // From the journal alone (no snapshot on PostgreSQL's first interval; SQLite's is
            // dropped below): the same book, and the next sign-up gets the next id, not hers.
            if backend == .sqlite { try? FileManager.default.removeItem(atPath: try Self.sqlitePath(location) + "-snapshot") }
            let replayed = try Store(journal: try location.open(), logger: .discarding())
            #expect(replayed.state.users == live.users)
            #expect(replayed.state.userIDsByName == live.userIDsByName)
            #expect(replayed.state.nextUserID == UserID(3))
            #expect(replayed.state.newestQuotes() == live.newestQuotes())
            #expect(try await replayed.dispatch(.signUp(Username("ada_erasable")!, displayName: "Another Ada", at: date)) == .success(.userSignedUp(UserID(3))))
            await replayed.close()
        }
    }

    @Test func anErasedEntryIsNeverDispatched() throws {
        var state = AppState()
        #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, .erased(UserID(1))) }
        #expect(throws: ActionRejection.userNotFound(UserID(1))) { try AppReducer.reduce(&state, .deleteAccount(UserID(1), at: date)) }
    }

    /// After the deletion and the close (which checkpoints), no file of the data directory holds
    /// the name, the display name or the photo reference: not the journal's old rows (secure
    /// delete zeroes them), not the WAL, not the snapshot written before the deletion.
    @Test func noFileOfTheDataDirectoryHoldsTheNameAfterwards() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(journal: try SQLiteJournal(directory: directory.url), seed: book, snapshotInterval: 1, logger: .discarding())
        _ = try await store.dispatch(.changeDisplayName(UserID(1), to: "Lady Erasable", at: date))
        let before = try Self.bytesOfEveryFile(in: directory.url)
        #expect(before.contains { $0.1.contains("Erasable") }, "the test must see the name before it is erased")
        _ = try await store.dispatch(.deleteAccount(UserID(1), at: date))
        await store.close()
        for (file, text) in try Self.bytesOfEveryFile(in: directory.url) {
            for name in ["ada_erasable", "Erasable", "feedface"] { #expect(!text.contains(name), "\(name) left in \(file)") }
        }
        let reopened = try Store(journal: try SQLiteJournal(directory: directory.url), logger: .discarding())
        #expect(reopened.state.users.keys.sorted { $0.rawValue < $1.rawValue } == [UserID(2)])
        #expect(reopened.state.quotes[QuoteID(1)]?.text == "Ada's words")
        await reopened.close()
    }

    /// A journal of an earlier build, whose sign-ups held password hashes: the migration moves
    /// each into the password table (a changed one there is newer and stays), out of the entries,
    /// and indexes every entry about a person under them.
    @Test func theMigrationMovesSignUpHashesOutOfTheJournal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = SQLiteJournal.path(inDirectory: directory.url)
        let old = try SQLiteConnection(path: path)
        try old.execute("PRAGMA application_id = \(QuotebookDatabase.applicationID)")
        for sql in QuotebookDatabase.migrations.prefix(6) { try old.execute(sql) }
        try old.execute("PRAGMA user_version = 6")
        let rows = [
            #"{"signUp":{"_0":"ada","at":0,"displayName":"Ada","passwordHash":"$y$j9T$adaold"}}"#,
            #"{"signUp":{"_0":"bob","at":0,"displayName":"Bob","passwordHash":"$y$j9T$bobsignup"}}"#,
            #"{"changeDisplayName":{"_0":2,"at":0,"to":"Robert"}}"#,
            #"{"addQuote":{"_0":{"author":"A","text":"T"},"at":0,"by":1}}"#,
        ]
        let insert = try old.prepare("INSERT INTO journal (action) VALUES (?)")
        for row in rows { try insert.run([.text(row)]) }
        try old.execute("INSERT INTO password (user_id, hash) VALUES (2, '$y$j9T$bobchanged')")
        old.close()

        let journal = try SQLiteJournal(path: path)
        journal.close()
        let migrated = try SQLiteConnection(path: path)
        let hashes = try migrated.prepare("SELECT user_id, hash FROM password ORDER BY user_id").rows { "\($0.int(at: 0))=\($0.text(at: 1))" }
        #expect(hashes == ["1=$y$j9T$adaold", "2=$y$j9T$bobchanged"])
        let people = try migrated.prepare("SELECT coalesce(person_id, 0) FROM journal ORDER BY sequence").rows { $0.int(at: 0) }
        #expect(people == [1, 2, 2, 0])
        let actions = try migrated.prepare("SELECT action FROM journal ORDER BY sequence").rows { $0.text(at: 0) }
        #expect(!actions.joined().contains("$y$"))
        migrated.close()
        let store = try Store(journal: try SQLiteJournal(path: path), logger: .discarding())
        #expect(store.state.users[UserID(2)]?.displayName == "Robert")
        #expect(store.state.quotes[QuoteID(1)]?.addedBy == UserID(1))
        await store.close()
    }

    static func sqlitePath(_ location: JournalLocation) throws -> String {
        let journal = try location.open()
        defer { journal.close() }
        return try #require(journal as? SQLiteJournal).path
    }

    /// Every file in `directory`, as Latin-1 text (every byte a character), by name.
    static func bytesOfEveryFile(in directory: URL) throws -> [(String, String)] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { return nil }
            return (name, String(decoding: data.map { UInt16($0) }, as: UTF16.self))
        }
    }
}
