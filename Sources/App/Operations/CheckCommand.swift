package import Store

/// `quotebook check [--data DIR | --database URL]`: replays the journal from its first entry and
/// compares what it gives with what else the book stores — the newest snapshot, the journal's
/// per-quote index (what history pages read), and the account tables (sessions, photos) — and
/// reports every difference. It only reads, so it can run beside a server.
///
/// Exit statuses: 0 consistent; 1 a difference, or the book cannot be read; 64 a wrong command line.
package enum CheckCommand {
    package struct Outcome: Sendable, Equatable {
        package var exitCode: Int32
        /// What was checked, one line each, then the differences, one line each.
        package var checked: [String]
        package var differences: [String]
    }

    /// Checks the book in `journal` against the account tables' `sessionUserIDs` and `photoHashes`.
    package static func run(journal: any JournalStorage, sessionUserIDs: [UserID], photoHashes: [String]) -> Outcome {
        var checked: [String] = []
        var differences: [String] = []
        let entries: [JournalEntry]
        do {
            entries = try journal.loadAll()
        } catch {
            return Outcome(exitCode: 1, checked: [], differences: ["the journal cannot be read: \(error)"])
        }
        let snapshot = journal.loadSnapshot()
        var state = AppState()
        var indexed: [QuoteID: [AppAction]] = [:]
        var previous: Int64 = 0
        var stateAtSnapshot: AppState?
        if snapshot?.sequence == 0 { stateAtSnapshot = state }
        for entry in entries {
            if entry.sequence <= previous {
                differences.append("journal entry \(entry.sequence) comes after entry \(previous): the journal is out of order")
            }
            previous = entry.sequence
            let event = AppReducer.apply(entry.action, to: &state)
            for version in JournalRecord(entry.action, event: event).historyActions { indexed[version.quote, default: []].append(version.action) }
            if entry.sequence == snapshot?.sequence { stateAtSnapshot = state }
        }
        checked.append("replayed \(entries.count) journal entries (through entry \(previous)): \(state.quotes.count) quotes, \(state.users.count) accounts")

        // The snapshot: the state after its entry, as a replay to that entry gives it.
        if let snapshot {
            if let replayed = stateAtSnapshot {
                differences += describeDifferences(replayed: replayed, snapshot: snapshot.state, at: snapshot.sequence)
            } else {
                differences.append("the snapshot is taken at entry \(snapshot.sequence), which is not in the journal")
            }
            checked.append("compared the snapshot at entry \(snapshot.sequence) with the replay to that entry")
        } else {
            checked.append("no snapshot to compare with (the book replays its whole journal when it starts)")
        }

        // The per-quote index of the journal, which history pages read.
        var indexChecked = 0
        for raw in 1..<max(1, state.nextQuoteID.rawValue) {
            let quote = QuoteID(raw)
            let expected = indexed[quote] ?? []
            do {
                let stored = try journal.actions(forQuote: quote)
                indexChecked += 1
                if stored != expected {
                    differences.append(
                        "quote \(quote)'s history lists \(stored.count) journal entries, but the replay gives it \(expected.count)"
                            + (stored.count == expected.count ? " different ones" : ""))
                }
            } catch {
                differences.append("quote \(quote)'s history cannot be read: \(error)")
            }
        }
        checked.append("compared the history of \(indexChecked) quotes with the replay")

        // The account tables: every session belongs to an account, every photo in use is stored.
        let strangers = Set(sessionUserIDs.filter { state.users[$0] == nil })
        for user in strangers.sorted(by: { $0.rawValue < $1.rawValue }) {
            differences.append("sessions of account \(user), which the journal never created")
        }
        let stored = Set(photoHashes)
        for user in state.users.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            for hash in user.photo?.hashes ?? [] where !stored.contains(hash) {
                differences.append("account \(user.id) (\(user.username)) shows photo \(hash), which is not stored")
            }
        }
        checked.append("compared \(sessionUserIDs.count) sessions and \(photoHashes.count) stored photos with the replayed accounts")
        return Outcome(exitCode: differences.isEmpty ? 0 : 1, checked: checked, differences: differences)
    }

    /// Where `snapshot` differs from `replayed`, the state after entry `sequence`, named by field.
    static func describeDifferences(replayed: AppState, snapshot: AppState, at sequence: Int64) -> [String] {
        guard replayed != snapshot else { return [] }
        let prefix = "the snapshot at entry \(sequence) differs from the replay:"
        var found: [String] = []
        let quoteIDs = Set(replayed.quoteOrder + snapshot.quoteOrder).sorted()
        for id in quoteIDs where replayed.quotes[id] != snapshot.quotes[id] {
            switch (replayed.quotes[id], snapshot.quotes[id]) {
            case (nil, _): found.append("\(prefix) quote \(id) is only in the snapshot")
            case (_, nil): found.append("\(prefix) quote \(id) is missing from the snapshot")
            case let (replay?, snap?):
                var fields: [String] = []
                if replay.text != snap.text { fields.append("text") }
                if replay.author != snap.author { fields.append("author") }
                if replay.version != snap.version { fields.append("version (\(snap.version) in the snapshot, \(replay.version) replayed)") }
                found.append("\(prefix) quote \(id) has another \(fields.isEmpty ? "version record" : fields.joined(separator: ", "))")
            }
        }
        let userIDs = Set(replayed.users.keys).union(snapshot.users.keys).sorted { $0.rawValue < $1.rawValue }
        for id in userIDs where replayed.users[id] != snapshot.users[id] {
            found.append("\(prefix) account \(id) differs")
        }
        if replayed.quoteOrder != snapshot.quoteOrder { found.append("\(prefix) the order of quotes differs") }
        if replayed.nextQuoteID != snapshot.nextQuoteID || replayed.nextUserID != snapshot.nextUserID {
            found.append("\(prefix) the next quote or account id differs")
        }
        if replayed.userIDsByName != snapshot.userIDsByName { found.append("\(prefix) the usernames differ") }
        if replayed.lastChangedQuote != snapshot.lastChangedQuote { found.append("\(prefix) the last changed quote differs") }
        return found.isEmpty ? ["\(prefix) the search index differs"] : found
    }
}
