import Foundation
import Logging
import Store
import Synchronization
import TestSupport
import Testing

/// Concurrent dispatches share journal transactions, and every rule of one-at-a-time dispatch
/// still holds. Each test holds the first commit in flight (``JournalProbe/holdNextAppend()``)
/// and queues the rest behind it, so which actions share a batch never depends on timing.
@Suite(.timeLimit(.minutes(1))) struct GroupCommitTests {
    static let date = Date(timeIntervalSince1970: 1_000)
    /// One quote, then twenty accounts (journal entries 1 to 21).
    static let seed: [AppAction] =
        [.addQuote(QuoteDraft(text: "Seeded", author: "A"), by: nil, at: date)]
        + (1...20).map { .signUp(Username("user\($0)")!, displayName: "User \($0)", at: date) }

    static func rename(_ user: Int, to name: String) -> AppAction {
        .changeDisplayName(UserID(user), to: name, at: date)
    }

    static func edit(_ text: String, from version: Int) -> AppAction {
        .editQuote(QuoteID(1), QuoteDraft(text: text, author: "A"), baseVersion: version, by: nil, at: date)
    }

    typealias Dispatch = Task<Result<AppEvent, ActionRejection>, any Error>

    /// Runs `body` with a seeded store on a fresh journal on `backend` that `probe` watches, and
    /// the journal's location (to reopen it once the store is closed).
    func withStore(
        on backend: JournalBackend, probe: JournalProbe, snapshotInterval: Int = 1000, middleware: [any StoreMiddleware] = [],
        _ body: (Store, JournalLocation) async throws -> Void
    ) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(
                journal: ProbedJournal(try location.open(), probe: probe), seed: Self.seed, snapshotInterval: snapshotInterval,
                middleware: middleware, logger: .discarding())
            try await body(store, location)
        }
    }

    /// Dispatches `action` with its commit held in flight; returns once the commit is held.
    func lead(_ action: AppAction, on store: Store, probe: JournalProbe) async -> Dispatch {
        probe.holdNextAppend()
        let task = Task { try await store.dispatch(action) }
        await probe.waitUntilHeld()
        return task
    }

    /// Dispatches `action` and returns once the store has validated and queued it as the
    /// `position`-th action behind the commit in flight.
    func queue(_ action: AppAction, on store: Store, as position: Int) async -> Dispatch {
        let task = Task { try await store.dispatch(action) }
        while await store.queuedActionCount < position { await Task.yield() }
        return task
    }

    @Test(arguments: JournalBackend.available)
    func concurrentDispatchesShareOneTransactionAndAreAllDurable(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        try await withStore(on: backend, probe: probe) { store, location in
            #expect(probe.transactions.load(ordering: .sequentiallyConsistent) == 1, "the seed is one transaction")

            let first = await lead(Self.rename(1, to: "Renamed 1"), on: store, probe: probe)
            var followers: [Dispatch] = []
            for user in 2...20 { followers.append(await queue(Self.rename(user, to: "Renamed \(user)"), on: store, as: user - 1)) }
            probe.release()

            #expect(try await first.value == .success(.profileChanged(UserID(1))))
            for (offset, follower) in followers.enumerated() {
                #expect(try await follower.value == .success(.profileChanged(UserID(offset + 2))))
            }
            #expect(probe.transactions.load(ordering: .sequentiallyConsistent) == 3, "20 saves: the held one, then 19 in one")
            #expect(store.revision == 20)
            // The revision read on its own is the published state's.
            #expect(store.publishedState.revision == 20)
            await store.close()

            let reopened = try Store(journal: try location.open(), logger: .discarding())
            #expect((1...20).map { reopened.state.users[UserID($0)]?.displayName } == (1...20).map { "Renamed \($0)" })
            await reopened.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func twoEditsFromOneVersionInOneBatchGiveOneSuccessAndOneConflict(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        try await withStore(on: backend, probe: probe) { store, _ in
            let first = await lead(Self.rename(1, to: "Someone"), on: store, probe: probe)
            let mine = await queue(Self.edit("Mine", from: 1), on: store, as: 1)
            let theirs = await queue(Self.edit("Theirs", from: 1), on: store, as: 2)
            probe.release()

            #expect(try await first.value == .success(.profileChanged(UserID(1))))
            #expect(try await mine.value == .success(.quoteEdited(QuoteID(1), version: 2)))
            let current = try #require(store.state.quotes[QuoteID(1)])
            #expect(current.text == "Mine")
            #expect(try await theirs.value == .failure(.staleVersion(current: current)))
            #expect(probe.transactions.load(ordering: .sequentiallyConsistent) == 3)
            #expect(try await store.history(of: QuoteID(1)).map(\.text) == ["Seeded", "Mine"])
            await store.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func aFailedCommitFailsItsBatchAndWhatWasValidatedOnItThenSavesWorkAgain(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        try await withStore(on: backend, probe: probe) { store, _ in
            let before = store.state
            let events = Mutex<[AppEvent]>([])
            store.observe { event in events.withLock { $0.append(event) } }
            let lost = await lead(Self.edit("Lost", from: 1), on: store, probe: probe)
            // Valid only on top of the held edit, and refused only because of it.
            let onTop = await queue(Self.edit("Also lost", from: 2), on: store, as: 1)
            let refused = await queue(Self.edit("Stale", from: 1), on: store, as: 2)
            probe.isFailing.store(true, ordering: .sequentiallyConsistent)
            probe.release()

            for task in [lost, onTop, refused] {
                await #expect(throws: StoreError.self) { try await task.value }
            }
            #expect(store.state == before)
            #expect(store.revision == 0)

            probe.isFailing.store(false, ordering: .sequentiallyConsistent)
            let kept = try await store.dispatch(Self.edit("Kept", from: 1))
            #expect(kept == .success(.quoteEdited(QuoteID(1), version: 2)))
            let history = try await store.history(of: QuoteID(1))
            #expect(history.map(\.text) == ["Seeded", "Kept"])
            await store.close()
            #expect(events.withLock { $0 } == [.quoteEdited(QuoteID(1), version: 2)])
        }
    }

    @Test(arguments: JournalBackend.available)
    func aBatchIsPublishedInOrderEachActionWithItsOwnSequenceOnceDurable(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        let recorder = PublicationRecorder(probe: probe)
        try await withStore(on: backend, probe: probe, middleware: [recorder]) { store, _ in
            store.observe { [weak store] event in recorder.record(.observed(event, revision: store?.revision)) }

            let first = await lead(Self.rename(1, to: "One"), on: store, probe: probe)
            let edit = await queue(Self.edit("A", from: 1), on: store, as: 1)
            let stale = await queue(Self.edit("B", from: 1), on: store, as: 2)
            let second = await queue(Self.rename(2, to: "Two"), on: store, as: 3)
            probe.release()

            _ = try await first.value
            let firstPublished: [Publication] = [
                .applied("change_display_name", sequence: 22, isDurable: true), .observed(.profileChanged(UserID(1)), revision: 1),
            ]
            #expect(recorder.log.withLock { Array($0.prefix(2)) } == firstPublished, "published before its dispatch returned")
            for task in [edit, stale, second] { _ = try await task.value }
            #expect(recorder.log.withLock { $0 } == firstPublished + [
                .applied("edit_quote", sequence: 23, isDurable: true), .observed(.quoteEdited(QuoteID(1), version: 2), revision: 2),
                .refused("edit_quote", because: "stale_version"),
                .applied("change_display_name", sequence: 24, isDurable: true), .observed(.profileChanged(UserID(2)), revision: 3),
            ])
            await store.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func closeCommitsWhatIsQueuedBeforeClosingTheJournal(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        try await withStore(on: backend, probe: probe) { store, location in
            let first = await lead(Self.rename(1, to: "Closing 1"), on: store, probe: probe)
            var followers: [Dispatch] = []
            for user in 2...4 { followers.append(await queue(Self.rename(user, to: "Closing \(user)"), on: store, as: user - 1)) }
            let closing = Task { await store.close() }
            while await !store.isClosed { await Task.yield() }
            await #expect(throws: StoreError.storeClosed(operation: "dispatch")) {
                try await store.dispatch(Self.rename(5, to: "Too late"))
            }
            probe.release()
            await closing.value

            for (offset, task) in ([first] + followers).enumerated() {
                #expect(try await task.value == .success(.profileChanged(UserID(offset + 1))))
            }
            #expect(probe.transactions.load(ordering: .sequentiallyConsistent) == 3)
            let reopened = try Store(journal: try location.open(), logger: .discarding())
            #expect((1...5).map { reopened.state.users[UserID($0)]?.displayName } == [
                "Closing 1", "Closing 2", "Closing 3", "Closing 4", "User 5",
            ])
            await reopened.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func aBatchThatCrossesTheSnapshotIntervalIsSnapshottedWhole(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        // The seed is 21 entries; the 25th comes in the middle of the second batch (entries 23 to 28).
        try await withStore(on: backend, probe: probe, snapshotInterval: 25) { store, location in
            let first = await lead(Self.rename(1, to: "Snapshot 1"), on: store, probe: probe)
            var followers: [Dispatch] = []
            for user in 2...7 { followers.append(await queue(Self.rename(user, to: "Snapshot \(user)"), on: store, as: user - 1)) }
            probe.release()
            for task in [first] + followers { _ = try await task.value }
            let expected = store.state
            await store.close()

            let journal = try location.open()
            #expect(journal.loadSnapshot() == JournalSnapshot(sequence: 28, state: expected))
            journal.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func manyConcurrentEditsFromOneVersionLetExactlyOneThrough(on backend: JournalBackend) async throws {
        let probe = JournalProbe()
        try await withStore(on: backend, probe: probe) { store, _ in
            let results = try await withThrowingTaskGroup(of: Result<AppEvent, ActionRejection>.self) { group in
                for writer in 1...64 {
                    group.addTask {
                        writer.isMultiple(of: 2)
                            ? try await store.dispatch(Self.edit("Edit \(writer)", from: 1))
                            : try await store.dispatch(Self.rename(writer % 20 + 1, to: "Name \(writer)"))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let edits = results.filter { if case .success(.quoteEdited) = $0 { true } else { false } }
            let conflicts = results.filter { if case .failure(.staleVersion) = $0 { true } else { false } }
            let renames = results.filter { if case .success(.profileChanged) = $0 { true } else { false } }
            #expect((edits.count, conflicts.count, renames.count) == (1, 31, 32))
            #expect(store.revision == 33)
            #expect(probe.durableEntries.load(ordering: .sequentiallyConsistent) == Self.seed.count + 33)
            #expect(try await store.history(of: QuoteID(1)).count == 2)
            await store.close()
        }
    }
}

/// One call to middleware or an observer, as ``PublicationRecorder`` saw it.
private enum Publication: Equatable {
    /// `isDurable`: the journal already held `sequence` when middleware was told.
    case applied(String, sequence: Int64, isDurable: Bool)
    case refused(String, because: String)
    /// `revision`: the store's published revision when the observer was called.
    case observed(AppEvent, revision: UInt64?)
}

/// Middleware, and the log of an observer, recording every call in order.
private final class PublicationRecorder: StoreMiddleware {
    let log = Mutex<[Publication]>([])
    private let probe: JournalProbe

    init(probe: JournalProbe) {
        self.probe = probe
    }

    func record(_ publication: Publication) {
        log.withLock { $0.append(publication) }
    }

    func applied(_ action: AppAction, event: AppEvent, sequence: Int64) {
        let isDurable = Int64(probe.durableEntries.load(ordering: .sequentiallyConsistent)) >= sequence
        record(.applied(action.kind, sequence: sequence, isDurable: isDurable))
    }

    func refused(_ action: AppAction, because rejection: ActionRejection) {
        record(.refused(action.kind, because: rejection.kind))
    }
}
