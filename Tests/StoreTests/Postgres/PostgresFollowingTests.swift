import Foundation
import Logging
import Store
import StorePostgres
import Synchronization
import TestSupport
import Testing

/// Several instances on one PostgreSQL journal, as two or three stores in one process: a save on
/// one reaches the others' state, observers and subscribers; saves from one version on several
/// let exactly one through; a missed notification costs latency, not an entry; start-up reads
/// the snapshot and the tail.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1)))
struct PostgresFollowingTests {
    static let date = Date(timeIntervalSince1970: 1_000)
    static let seed: [AppAction] = [
        .addQuote(QuoteDraft(text: "Seeded", author: "A"), by: nil, at: date),
        .signUp(Username("ada")!, displayName: "Ada", at: date),
    ]

    static func edit(_ text: String, from version: Int) -> AppAction {
        .editQuote(QuoteID(1), QuoteDraft(text: text, author: "A"), baseVersion: version, by: nil, at: date)
    }

    /// An instance on `location`. A poll interval of a minute means only a notification (or
    /// its own append) can bring it news within a test's bounds.
    func makeStore(at location: JournalLocation, pollInterval: Duration = .seconds(60), snapshotInterval: Int = 1000) throws -> Store {
        try Store(
            journal: try location.openPostgres(pollInterval: pollInterval), seed: Self.seed, snapshotInterval: snapshotInterval,
            logger: .discarding())
    }

    /// Waits up to `timeout` for `condition`; true once it holds.
    func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Appends `action` as another instance whose notification was lost: the head and the row,
    /// in one transaction, and no NOTIFY.
    func appendWithoutNotifying(_ action: AppAction, quote: QuoteID?, at location: JournalLocation) async throws {
        let schema = "\"\(try #require(location.schema))\""
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(action), as: UTF8.self)
        let client = try PostgresTestDatabase.makeClient()
        try await client.withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                let head = try connection.query("UPDATE \(schema).journal_head SET sequence = sequence + 1 WHERE id = 1 RETURNING sequence")
                try connection.query(
                    "INSERT INTO \(schema).journal (sequence, action, quote_id) VALUES ($1, $2, $3)",
                    [head.rows.first?.string(at: 0), json, quote.map { String($0.rawValue) }])
            }
        }
        await client.close()
    }

    @Test func aSaveOnOneInstanceReachesTheOthersStateAndObservers() async throws {
        try await JournalLocation.with(.postgres) { location in
            let first = try makeStore(at: location)
            let second = try makeStore(at: location)
            let observed = Mutex<[AppEvent]>([])
            second.observe { event in observed.withLock { $0.append(event) } }
            let revision = second.revision

            #expect(try await first.dispatch(Self.edit("From the first", from: 1)) == .success(.quoteEdited(QuoteID(1), version: 2)))
            #expect(try await eventually { second.state.quotes[QuoteID(1)]?.text == "From the first" })
            #expect(observed.withLock { $0 } == [.quoteEdited(QuoteID(1), version: 2)])
            #expect(second.revision == revision + 1)
            #expect(second.state == first.state)
            #expect(try await second.history(of: QuoteID(1)).map(\.text) == ["Seeded", "From the first"])
            await first.close()
            await second.close()
        }
    }

    @Test func catchingUpOnRequestAppliesWhatAnotherInstanceAppendedBeforeReturning() async throws {
        try await JournalLocation.with(.postgres) { location in
            let store = try makeStore(at: location)
            // No notification and a minute's poll: only the request brings the news in time.
            try await appendWithoutNotifying(Self.edit("Unannounced", from: 1), quote: QuoteID(1), at: location)
            await store.catchUpWithJournal()
            #expect(store.state.quotes[QuoteID(1)]?.text == "Unannounced")
            await store.close()
        }
    }

    @Test func aSaveFromAVersionAnotherInstanceReplacedGetsTheConflictWithTheirVersion() async throws {
        try await JournalLocation.with(.postgres) { location in
            let first = try makeStore(at: location)
            let second = try makeStore(at: location)
            _ = try await first.dispatch(Self.edit("Theirs", from: 1))
            let answer = try await second.dispatch(Self.edit("Mine", from: 1))
            let current = try #require(first.state.quotes[QuoteID(1)])
            #expect(answer == .failure(.staleVersion(current: current)))
            #expect(current.text == "Theirs")
            let journal = try location.openPostgres()
            #expect(try journal.loadAll().count == Self.seed.count + 1)
            journal.close()
            await first.close()
            await second.close()
        }
    }

    @Test func twoConcurrentEditsFromOneVersionOnTwoInstancesLetExactlyOneThrough() async throws {
        try await JournalLocation.with(.postgres) { location in
            let first = try makeStore(at: location)
            let second = try makeStore(at: location)
            async let mine = first.dispatch(Self.edit("Mine", from: 1))
            async let theirs = second.dispatch(Self.edit("Theirs", from: 1))
            let answers = try await [mine, theirs]
            #expect(answers.filter { $0 == .success(.quoteEdited(QuoteID(1), version: 2)) }.count == 1)
            #expect(answers.filter { if case .failure(.staleVersion) = $0 { true } else { false } }.count == 1)
            #expect(try await eventually { first.state == second.state })
            await first.close()
            await second.close()
        }
    }

    @Test func sixteenSavesFromOneVersionOverTwoInstancesLetExactlyOneThrough() async throws {
        try await JournalLocation.with(.postgres) { location in
            let instances = [try makeStore(at: location), try makeStore(at: location)]
            let answers = try await withThrowingTaskGroup(of: Result<AppEvent, ActionRejection>.self) { group in
                for writer in 0..<16 {
                    group.addTask { try await instances[writer % 2].dispatch(Self.edit("Edit \(writer)", from: 1)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let saved = answers.filter { if case .success(.quoteEdited(QuoteID(1), version: 2)) = $0 { true } else { false } }
            let conflicts = answers.filter { if case .failure(.staleVersion) = $0 { true } else { false } }
            #expect((saved.count, conflicts.count) == (1, 15))
            #expect(try await eventually { instances[0].state == instances[1].state })
            for instance in instances {
                #expect(try await instance.history(of: QuoteID(1)).count == 2)
                await instance.close()
            }
            let journal = try location.openPostgres()
            #expect(try journal.loadAll().count == Self.seed.count + 1)
            journal.close()
        }
    }

    @Test func aFollowerThatMissedANotificationCatchesUpAtTheNextPoll() async throws {
        try await JournalLocation.with(.postgres) { location in
            let follower = try makeStore(at: location, pollInterval: .milliseconds(200))
            let observed = Mutex<[AppEvent]>([])
            follower.observe { event in observed.withLock { $0.append(event) } }
            try await appendWithoutNotifying(Self.edit("Unannounced", from: 1), quote: QuoteID(1), at: location)
            #expect(try await eventually { follower.state.quotes[QuoteID(1)]?.text == "Unannounced" })
            #expect(observed.withLock { $0 } == [.quoteEdited(QuoteID(1), version: 2)])
            await follower.close()
        }
    }

    @Test func aSaveFromTheNewestVersionIsNotRefusedBecauseThisInstanceHadNotHeardOfIt() async throws {
        try await JournalLocation.with(.postgres) { location in
            // Never woken: only the refusal's own check of the log can bring it the news.
            let probe = JournalProbe()
            probe.isDeaf.store(true, ordering: .sequentiallyConsistent)
            let behind = try Store(
                journal: ProbedJournal(try location.openPostgres(), probe: probe), seed: Self.seed, logger: .discarding())
            try await appendWithoutNotifying(Self.edit("Elsewhere", from: 1), quote: QuoteID(1), at: location)
            #expect(behind.state.quotes[QuoteID(1)]?.version == 1)
            #expect(try await behind.dispatch(Self.edit("Here", from: 2)) == .success(.quoteEdited(QuoteID(1), version: 3)))
            #expect(try await behind.history(of: QuoteID(1)).map(\.text) == ["Seeded", "Elsewhere", "Here"])
            await behind.close()
        }
    }

    @Test func aSaveGetsThroughEvenWhenAnotherInstanceAlwaysAppendsFirst() async throws {
        try await JournalLocation.with(.postgres) { location in
            // Deaf, so only its own appends' refusals bring it the rival's entries.
            let probe = JournalProbe()
            probe.isDeaf.store(true, ordering: .sequentiallyConsistent)
            let store = try Store(
                journal: ProbedJournal(try location.openPostgres(), probe: probe, rival: try location.openPostgres()),
                seed: Self.seed, logger: .discarding())
            probe.isOvertaken.store(true, ordering: .sequentiallyConsistent)
            for version in 1...3 {
                #expect(try await store.dispatch(Self.edit("Edit \(version)", from: version)) == .success(.quoteEdited(QuoteID(1), version: version + 1)))
            }
            let rivalQuotes = store.state.quotes.values.filter { $0.author == "Rival" }.count
            #expect(rivalQuotes >= 3)
            // The log holds the rival's entries and these edits, with nothing lost or doubled.
            let log = try location.openPostgres()
            let entries = try log.loadAll()
            log.close()
            #expect(entries.map(\.sequence) == Array(1...Int64(entries.count)))
            #expect(entries.count == Self.seed.count + 3 + rivalQuotes)
            await store.close()
        }
    }

    @Test func aHeldHeadMakesOtherAppendsWaitAndTheHoldersAppendSucceed() async throws {
        try await JournalLocation.with(.postgres) { location in
            let holder = try location.openPostgres()
            let other = try location.openPostgres()
            _ = try holder.append([(Self.edit("Seed", from: 1), QuoteID(1))], basedOn: 0)
            try holder.lockHead()
            let started = Atomic<Bool>(false)
            let otherAppend = Task.detached { [other = UncheckedBox(value: other)] () throws(StoreError) -> Int64 in
                started.store(true, ordering: .sequentiallyConsistent)
                return try other.value.append([(Self.edit("Other", from: 2), QuoteID(1))], basedOn: nil).first ?? 0
            }
            while !started.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try holder.append([(Self.edit("Holder", from: 2), QuoteID(1))], basedOn: 1) == [2])
            #expect(try await otherAppend.value == 3)
            holder.close()
            other.close()
        }
    }

    @Test func aFollowerWhoseListeningConnectionDropsListensAgain() async throws {
        try await JournalLocation.with(.postgres) { location in
            let writer = try makeStore(at: location)
            let follower = try makeStore(at: location)
            let channel = try location.openPostgres().channel
            let client = try PostgresTestDatabase.makeClient()
            let listening = "SELECT pid FROM pg_stat_activity WHERE query = $1"
            let listen = "LISTEN \"\(channel)\""
            // Both instances' listeners, once they listen; the follower's is ended, the writer's too.
            var listeners = try await client.query(listening, [listen]).rows
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while listeners.count < 2, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                listeners = try await client.query(listening, [listen]).rows
            }
            try #require(listeners.count == 2)
            for listener in listeners {
                try await client.query("SELECT pg_terminate_backend($1::integer, 5000)", [listener.string(at: 0)])
            }
            await client.close()
            _ = try await writer.dispatch(Self.edit("After the drop", from: 1))
            #expect(try await eventually { follower.state.quotes[QuoteID(1)]?.text == "After the drop" })
            await writer.close()
            await follower.close()
        }
    }

    @Test func instancesStartingTogetherOnAnEmptyDatabaseSeedItOnce() async throws {
        try await JournalLocation.with(.postgres) { location in
            let instances = try await withThrowingTaskGroup(of: Store.self) { group in
                for _ in 0..<3 { group.addTask { try await offPool { try makeStore(at: location) } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for instance in instances {
                #expect(instance.state.quotes.count == 1)
                #expect(instance.state.users.count == 1)
                await instance.close()
            }
            let journal = try location.openPostgres()
            #expect(try journal.loadAll().map(\.action) == Self.seed)
            journal.close()
        }
    }

    @Test func anInstanceStartsFromTheNewestSnapshotAndTheEntriesAfterIt() async throws {
        try await JournalLocation.with(.postgres) { location in
            let first = try makeStore(at: location, snapshotInterval: 3)
            let second = try makeStore(at: location)
            for version in 1...5 { _ = try await first.dispatch(Self.edit("First \(version + 1)", from: version)) }
            #expect(try await eventually { second.state.quotes[QuoteID(1)]?.version == 6 })
            _ = try await second.dispatch(.changeDisplayName(UserID(1), to: "Ada L.", at: Self.date))
            // Eight entries; the first instance snapshotted at 3 and 6 (the seed's two count).
            let journal = try location.openPostgres()
            #expect(journal.loadSnapshot()?.sequence == 6)
            #expect(try journal.loadEntries(after: 6).count == 2)
            let third = try Store(journal: journal, logger: .discarding())
            #expect(third.state == second.state)
            #expect(third.state.users[UserID(1)]?.displayName == "Ada L.")
            for instance in [first, second, third] { await instance.close() }
        }
    }
}

/// Hands a value that is used from one task at a time to a detached task.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
}
