import App
import Foundation
import Store
import StoreSQLite
import Synchronization
import Testing

/// A ``StateStore`` double: applies actions with the real reducer to a state in memory and
/// records them, or fails every dispatch when `failing` is set.
final class StateStoreDouble: StateStore {
    private let contents: Mutex<(state: AppState, actions: [AppAction], byQuote: [QuoteID: [AppAction]])>
    private let reads = Mutex<[ClosedRange<Int>]>([])
    let failing: Bool

    init(_ actions: [AppAction] = [], failing: Bool = false) throws {
        var state = AppState()
        var byQuote: [QuoteID: [AppAction]] = [:]
        for action in actions {
            let event = try AppReducer.reduce(&state, action)
            if let id = event.quoteID { byQuote[id, default: []].append(action) }
        }
        contents = Mutex((state, [], byQuote))
        self.failing = failing
    }

    var state: AppState { contents.withLock { $0.state } }
    var publishedState: PublishedState { contents.withLock { PublishedState($0.state, revision: UInt64($0.actions.count)) } }
    var dispatched: [AppAction] { contents.withLock { $0.actions } }
    /// One entry per action dispatched and applied, as a journal only this process writes.
    var appliedJournalSequence: Int64 { contents.withLock { Int64($0.actions.count) } }
    func catchUpWithJournal() async {}
    /// The version ranges history was read for, in order.
    var historyReads: [ClosedRange<Int>] { reads.withLock { $0 } }

    func dispatch(_ action: AppAction) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        if failing { throw StoreError.sqlite(operation: "append", code: 10, message: "disk I/O error") }
        return contents.withLock { contents -> Result<AppEvent, ActionRejection> in
            do throws(ActionRejection) {
                let event = try AppReducer.reduce(&contents.state, action)
                contents.actions.append(action)
                if let id = event.quoteID { contents.byQuote[id, default: []].append(action) }
                return .success(event)
            } catch {
                return .failure(error)
            }
        }
    }

    func history(of id: QuoteID, versions: ClosedRange<Int>) async throws(StoreError) -> [QuoteVersion] {
        if failing { throw StoreError.sqlite(operation: "history", code: 10, message: "disk I/O error") }
        reads.withLock { $0.append(versions) }
        return contents.withLock { contents in
            let actions = contents.byQuote[id] ?? []
            let first = max(1, versions.lowerBound)
            let page = actions.dropFirst(first - 1).prefix(versions.upperBound - first + 1)
            return QuoteVersion.versions(from: page, startingAt: first)
        }
    }
}

extension StateStoreDouble {
    /// The versions `person` made, quote by quote (a journal gives them in sequence order).
    func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion] {
        if failing { throw StoreError.sqlite(operation: "versions", code: 10, message: "disk I/O error") }
        return contents.withLock { contents in
            var tally = MadeVersionTally(person: person)
            for (quote, actions) in contents.byQuote.sorted(by: { $0.key < $1.key }) {
                for action in actions { tally.count(action, quote: quote) }
            }
            return tally.versions
        }
    }
}

/// A ``ProfileCaching`` double that counts what it is asked and can be preloaded.
final class ProfileCacheDouble: ProfileCaching {
    private let contents = Mutex<(generation: UInt64, profiles: [Username: Profile], hits: Int, stores: Int)>((0, [:], 0, 0))

    var generation: UInt64 { contents.withLock { $0.generation } }
    var hits: Int { contents.withLock { $0.hits } }
    var stores: Int { contents.withLock { $0.stores } }

    func profile(for username: Username) -> Profile? {
        contents.withLock { contents in
            let profile = contents.profiles[username]
            if profile != nil { contents.hits += 1 }
            return profile
        }
    }

    func store(_ profile: Profile, generation: UInt64) {
        contents.withLock { contents in
            contents.stores += 1
            if contents.generation == generation { contents.profiles[profile.user.username] = profile }
        }
    }

    func invalidateAll() {
        contents.withLock { contents in
            contents.generation += 1
            contents.profiles = [:]
        }
    }
}

/// Session and photo storage in memory.
actor AccountStorageDouble: SessionStorage, PhotoStorage {
    var sessions: [[UInt8]: SessionRecord] = [:]
    var photos: [String: StoredPhoto] = [:]

    func insert(_ session: SessionRecord, ifPasswordIs hash: PasswordHash?) -> Bool {
        guard passwordHashes[session.userID] == hash else { return false }
        sessions[session.id] = session
        return true
    }
    func session(id: [UInt8]) -> SessionRecord? { sessions[id] }
    func touch(id: [UInt8], at date: Date) { sessions[id]?.lastUsedAt = date }
    func delete(id: [UInt8]) { sessions[id] = nil }
    func deleteSessions(unusedSince cutoff: Date) -> Int {
        let before = sessions.count
        sessions = sessions.filter { $0.value.lastUsedAt >= cutoff }
        return before - sessions.count
    }
    func secret(named name: String, orCreate make: @Sendable () -> [UInt8]) -> [UInt8] { make() }
    /// Memory keeps nothing deleted.
    func settleDeletions() -> Bool { true }
    func sessions(of user: UserID) -> [SessionRecord] {
        sessions.values.filter { $0.userID == user }.sorted { $0.createdAt < $1.createdAt }
    }
    func deleteSessions(of user: UserID, except kept: [UInt8]?) -> [[UInt8]] {
        let ended = sessions.values.filter { $0.userID == user && $0.id != kept }.map(\.id)
        for id in ended { sessions[id] = nil }
        return ended
    }
    var passwordHashes: [UserID: PasswordHash] = [:]
    func passwordHash(of user: UserID) -> PasswordHash? { passwordHashes[user] }
    /// Whether keeping a password hash fails, as storage that has gone away does.
    var refusesPasswords = false
    func setRefusesPasswords(_ refuses: Bool) { refusesPasswords = refuses }
    /// A hash that another browser's change keeps just before the next replacement here, as if
    /// it landed between this change's check and its new hash.
    var laterChange: PasswordHash?
    func setLaterChange(_ hash: PasswordHash) { laterChange = hash }
    func setPasswordHash(_ hash: PasswordHash, of user: UserID) throws(StoreError) {
        if refusesPasswords { throw StoreError.accountStorageClosed(operation: "set password hash") }
        passwordHashes[user] = hash
    }
    func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) throws(StoreError) -> Bool {
        if refusesPasswords { throw StoreError.accountStorageClosed(operation: "replace password hash") }
        if let laterChange {
            passwordHashes[user] = laterChange
            self.laterChange = nil
        }
        guard passwordHashes[user] == checked else { return false }
        passwordHashes[user] = new
        return true
    }
    func deleteSecrets(of user: UserID) { passwordHashes[user] = nil }
    func storedAccountIDs() -> [UserID] { Array(Set(sessions.values.map(\.userID)).union(passwordHashes.keys)) }
    var claims: [String: Int] = [:]
    func save(_ photo: StoredPhoto) {
        photos[photo.reference.hash] = photo
        claims[photo.reference.hash, default: 0] += 1
    }
    func photo(hash: String) -> StoredPhoto? { photos[hash] }
    func release(hash: String, referencedThrough sequence: Int64?) { claims[hash, default: 1] -= 1 }
    func delete(hash: String, unreferencedThrough sequence: Int64, abandoningClaimsOlderThan seconds: Double) -> Bool {
        guard claims[hash, default: 0] == 0 else { return false }
        return photos.removeValue(forKey: hash) != nil
    }
    func storedHashes() -> [String] { Array(photos.keys) }
}

/// Session storage (a double or a real backend) counting the reads and touches that reach it,
/// and able to send the session events shared storage would, also in the middle of a read.
actor CountingSessionStorage: SessionStorage {
    let base: any SessionStorage
    var reads = 0
    var touches = 0
    /// Runs inside every read, before the base answers: a notification arriving meanwhile.
    var duringRead: (@Sendable () -> Void)?
    /// Listing an account's sessions fails, as when the database is out of reach.
    var failsListing = false
    private nonisolated let observers = Mutex<[@Sendable (SessionStorageEvent) -> Void]>([])

    init(_ base: any SessionStorage = AccountStorageDouble()) {
        self.base = base
    }

    func setDuringRead(_ action: (@Sendable () -> Void)?) { duringRead = action }
    func setFailsListing(_ fails: Bool) { failsListing = fails }

    func insert(_ session: SessionRecord, ifPasswordIs hash: PasswordHash?) async throws(StoreError) -> Bool {
        try await base.insert(session, ifPasswordIs: hash)
    }
    func session(id: [UInt8]) async throws(StoreError) -> SessionRecord? {
        reads += 1
        duringRead?()
        return try await base.session(id: id)
    }
    func touch(id: [UInt8], at date: Date) async throws(StoreError) {
        touches += 1
        try await base.touch(id: id, at: date)
    }
    func delete(id: [UInt8]) async throws(StoreError) { try await base.delete(id: id) }
    func settleDeletions() async -> Bool { await base.settleDeletions() }
    func deleteSessions(unusedSince cutoff: Date) async throws(StoreError) -> Int { try await base.deleteSessions(unusedSince: cutoff) }
    func secret(named name: String, orCreate make: @Sendable () -> [UInt8]) async throws(StoreError) -> [UInt8] {
        try await base.secret(named: name, orCreate: make)
    }
    func sessions(of user: UserID) async throws(StoreError) -> [SessionRecord] {
        if failsListing { throw .accountStorageClosed(operation: "sessions(of:)") }
        return try await base.sessions(of: user)
    }
    func deleteSessions(of user: UserID, except kept: [UInt8]?) async throws(StoreError) -> [[UInt8]] {
        try await base.deleteSessions(of: user, except: kept)
    }
    func passwordHash(of user: UserID) async throws(StoreError) -> PasswordHash? { try await base.passwordHash(of: user) }
    func setPasswordHash(_ hash: PasswordHash, of user: UserID) async throws(StoreError) {
        try await base.setPasswordHash(hash, of: user)
    }
    func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) async throws(StoreError) -> Bool {
        try await base.replacePasswordHash(of: user, checked: checked, with: new)
    }
    func deleteSecrets(of user: UserID) async throws(StoreError) { try await base.deleteSecrets(of: user) }
    func storedAccountIDs() async throws(StoreError) -> [UserID] { try await base.storedAccountIDs() }
    nonisolated func observeSessionEvents(_ handler: @escaping @Sendable (SessionStorageEvent) -> Void) {
        observers.withLock { $0.append(handler) }
        base.observeSessionEvents(handler)
    }

    /// Sends `event` to the observers, as shared storage would when it hears one.
    nonisolated func send(_ event: SessionStorageEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let date: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { date = Mutex(start) }
    var now: Date { date.withLock { $0 } }
    func advance(by seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

enum AccountFixtures {
    static let date = Date(timeIntervalSince1970: 1_000)
    static let ada = Username("ada")!
    static func signUp(_ name: String, displayName: String? = nil) -> AppAction {
        .signUp(Username(name)!, displayName: displayName ?? name.capitalized, at: date)
    }
    /// A 1×1 PNG's first bytes: enough for the type to be recognised.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [UInt8](repeating: 1, count: 20)
}

extension SessionKeeper {
    /// A session for an account that has no password hash in storage (as these tests' accounts
    /// have none): ``start(for:whilePasswordIs:now:userAgent:)`` with nil, which must start one.
    func startWithoutPassword(for user: UserID, now: Date, userAgent: String? = nil) async throws -> IssuedSession {
        try #require(await start(for: user, whilePasswordIs: nil, now: now, userAgent: userAgent))
    }
}
