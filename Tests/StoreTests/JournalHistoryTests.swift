import Foundation
import Synchronization
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// A quote's history comes from the journal, indexed by quote id, in old databases as in new.
@Suite struct JournalHistoryTests {
    let date = Date(timeIntervalSince1970: 1_000)

    @Test(arguments: JournalBackend.available)
    func historySurvivesSnapshotsAndRestartsWithoutLivingInTheState(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let seed: [AppAction] = [.addQuote(QuoteDraft(text: "v1", author: "A"), by: nil, at: date)]
            let store = try Store(journal: try location.open(), seed: seed, snapshotInterval: 2, logger: .discarding())
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: "other", author: "B"), by: nil, at: date))
            for version in 1...4 {
                _ = try await store.dispatch(
                    .editQuote(QuoteID(1), QuoteDraft(text: "v\(version + 1)", author: "A"), baseVersion: version, by: nil, at: date))
            }
            _ = try await store.dispatch(
                .restoreQuote(QuoteID(1), QuoteDraft(text: "v2", author: "A"), fromVersion: 2, by: nil, at: date))
            await store.close()

            let reopened = try Store(journal: try location.open(), snapshotInterval: 2, logger: .discarding())
            let history = try await reopened.history(of: QuoteID(1))
            #expect(history.map(\.text) == ["v1", "v2", "v3", "v4", "v5", "v2"])
            #expect(history.map(\.version) == Array(1...6))
            #expect(reopened.state.quotes[QuoteID(1)]?.version == 6)
            #expect(try await reopened.history(of: QuoteID(2)).map(\.text) == ["other"])
            #expect(try await reopened.history(of: QuoteID(3)).isEmpty)
            await reopened.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func aDeletedQuoteHasNoHistoryToShow(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), logger: .discarding())
            _ = try await store.dispatch(
                .signUp(try #require(Username("ada")), displayName: "Ada", at: date))
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Gone", author: "A"), by: UserID(1), at: date))
            #expect(try await store.dispatch(.deleteQuote(QuoteID(1), by: UserID(1), at: date)) == .success(.quoteDeleted(QuoteID(1))))
            #expect(try await store.history(of: QuoteID(1)).isEmpty)
            await store.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func aPageOfHistoryIsReadByVersionNumber(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let seed: [AppAction] = [.addQuote(QuoteDraft(text: "v1", author: "A"), by: nil, at: date)]
            let store = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: "other", author: "B"), by: nil, at: date))
            for version in 1..<120 {
                _ = try await store.dispatch(
                    .editQuote(QuoteID(1), QuoteDraft(text: "v\(version + 1)", author: "A"), baseVersion: version, by: nil, at: date))
                if version % 40 == 0 {
                    _ = try await store.dispatch(
                        .editQuote(QuoteID(2), QuoteDraft(text: "other \(version)", author: "B"), baseVersion: version / 40, by: nil, at: date))
                }
            }
            let page = try await store.history(of: QuoteID(1), versions: 21...70)
            #expect(page.map(\.version) == Array(21...70))
            #expect(page.map(\.text) == (21...70).map { "v\($0)" })
            #expect(try await store.history(of: QuoteID(1), versions: 101...150).map(\.version) == Array(101...120), "only those that exist")
            #expect(try await store.history(of: QuoteID(1), versions: 1...1).map(\.text) == ["v1"])
            #expect(try await store.history(of: QuoteID(1), versions: 121...170).isEmpty)
            #expect(try await store.history(of: QuoteID(2), versions: 2...3).map(\.text) == ["other 40", "other 80"])
            #expect(try await store.history(of: QuoteID(1)).count == 120)
            await store.close()
            await #expect(throws: StoreError.storeClosed(operation: "history")) { try await store.history(of: QuoteID(1), versions: 1...1) }
        }
    }

    /// A history page is read on a connection of the journal's own, never behind the commit in
    /// flight: with a commit held inside its transaction, the page is still read (and shows the
    /// versions committed before it; the held one is not there yet).
    @Test(arguments: JournalBackend.available)
    func historyIsReadWhileACommitIsInFlight(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let probe = JournalProbe()
            let seed: [AppAction] = [.addQuote(QuoteDraft(text: "v1", author: "A"), by: nil, at: date)]
            let store = try Store(journal: ProbedJournal(try location.open(), probe: probe), seed: seed, logger: .discarding())
            _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "v2", author: "A"), baseVersion: 1, by: nil, at: date))
            probe.holdNextAppend()
            let held = Task { try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "v3", author: "A"), baseVersion: 2, by: nil, at: date)) }
            await probe.waitUntilHeld()
            let watchdog = Task {
                // A read queued behind the held commit would wait for ever: after 10 s the commit
                // goes on, and the read, then after it, shows v3 and fails below.
                guard (try? await Task.sleep(for: .seconds(10))) != nil else { return }
                probe.release()
            }
            let read = try await store.history(of: QuoteID(1), versions: 1...50)
            watchdog.cancel()
            #expect(read.map(\.text) == ["v1", "v2"])
            probe.release()
            #expect(try await held.value == .success(.quoteEdited(QuoteID(1), version: 3)))
            #expect(try await store.history(of: QuoteID(1), versions: 1...50).map(\.text) == ["v1", "v2", "v3"])
            await store.close()
        }
    }

    @Test func migratingAnOldJournalIndexesItsAddsAndEditsByQuote() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        // A database as the previous schema (three migrations) left it, written by hand.
        let old = try SQLiteConnection(path: path)
        try old.execute("PRAGMA application_id = \(QuotebookDatabase.applicationID)")
        for sql in QuotebookDatabase.migrations.prefix(3) { try old.execute(sql) }
        try old.execute("PRAGMA user_version = 3")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let actions: [AppAction] = [
            .addQuote(QuoteDraft(text: "First", author: "A"), by: nil, at: date),
            .addQuote(QuoteDraft(text: "Second", author: "B"), by: nil, at: date),
            .editQuote(QuoteID(2), QuoteDraft(text: "Second, edited", author: "B"), baseVersion: 1, by: nil, at: date),
            .editQuote(QuoteID(1), QuoteDraft(text: "First, edited", author: "A"), baseVersion: 1, by: nil, at: date),
        ]
        let insert = try old.prepare("INSERT INTO journal (action) VALUES (?)")
        for action in actions { try insert.run([.text(String(decoding: try encoder.encode(action), as: UTF8.self))]) }
        old.close()

        let store = try Store(journal: try SQLiteJournal(directory: directory.url), logger: .discarding())
        #expect(try await store.history(of: QuoteID(1)).map(\.text) == ["First", "First, edited"])
        #expect(try await store.history(of: QuoteID(2)).map(\.text) == ["Second", "Second, edited"])
        await store.close()
    }

    @Test(arguments: JournalBackend.available)
    func anEntryATightenedRuleWouldRefuseStillReplays(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            // Recorded when the limit was looser: replay applies it as the fact it is.
            let long = String(repeating: "x", count: QuoteDraft.maximumTextLength + 50)
            let journal = try location.open()
            _ = try journal.append(.addQuote(QuoteDraft(text: long, author: "A"), by: nil, at: date), quote: QuoteID(1))
            journal.close()
            let store = try Store(journal: try location.open(), logger: .discarding())
            #expect(store.state.quotes[QuoteID(1)]?.text == long)
            await store.close()
        }
    }
}

/// Middleware sees every action in order: applied ones with their journal position, refused ones
/// with the reason; the log line names kinds and ids, never contents.
@Suite struct StoreMiddlewareTests {
    final class Recorder: StoreMiddleware {
        let seen = Mutex<[String]>([])
        func applied(_ action: AppAction, event: AppEvent, sequence: Int64) {
            seen.withLock { $0.append("\(action.kind)@\(sequence)") }
        }
        func refused(_ action: AppAction, because rejection: ActionRejection) {
            seen.withLock { $0.append("\(action.kind)!\(rejection.kind)") }
        }
    }

    @Test(arguments: JournalBackend.available)
    func everyActionPassesThroughTheChainInOrder(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let date = Date(timeIntervalSince1970: 1_000)
            let recorder = Recorder()
            let store = try Store(
                journal: try location.open(), seed: [.addQuote(QuoteDraft(text: "A", author: "B"), by: nil, at: date)],
                middleware: [recorder], logger: .discarding())
            _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "C", author: "D"), baseVersion: 1, by: nil, at: date))
            _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "E", author: "F"), baseVersion: 1, by: nil, at: date))
            #expect(recorder.seen.withLock { $0 } == ["edit_quote@2", "edit_quote!stale_version"])
            await store.close()
        }
    }

    @Test func theLogLineNamesKindsAndIdsButNoContents() throws {
        let signUp = AppAction.signUp(try #require(Username("ada")), displayName: "Ada", at: Date())
        let line = ActionLogMiddleware.line(for: signUp, event: .userSignedUp(UserID(4)), sequence: 9)
        #expect(line == "action=user_signed_up sequence=9 user=4")
        #expect(ActionLogMiddleware.line(for: .deleteAccount(UserID(4), at: Date()), event: .accountDeleted(UserID(4), photo: nil), sequence: 11)
            == "action=account_deleted sequence=11 user=4 by=4")
        let edit = AppAction.editQuote(QuoteID(7), QuoteDraft(text: "private words", author: "A"), baseVersion: 1, by: UserID(3), at: Date())
        #expect(ActionLogMiddleware.line(for: edit, event: .quoteEdited(QuoteID(7), version: 2), sequence: 10)
            == "action=quote_edited sequence=10 quote=7 by=3")
    }
}
