import App
import Basics
import Foundation
import HTTPServer
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// ``PhotoKeeper`` against doubles, each interleaving made to happen: what a change frees, and
/// what a read does when the photo it found is freed before it reads the bytes.
@Suite struct PhotoKeeperTests {
    static func photo(_ seed: UInt8) -> StoredPhoto {
        let bytes = AccountFixtures.png + [seed]
        return StoredPhoto(reference: PhotoReference(hash: Hex.encode(SHA256.hash(bytes)), mediaType: "image/png"), bytes: bytes)
    }

    func make() throws -> (PhotoKeeper, StateStoreDouble, InterleavingPhotoStorage) {
        let store = try StateStoreDouble([AccountFixtures.signUp("ada"), AccountFixtures.signUp("bob")])
        let storage = InterleavingPhotoStorage()
        return (PhotoKeeper(store: store, storage: storage, now: { AccountFixtures.date }, logger: .discarding()), store, storage)
    }

    @Test func replacingFreesTheOldPhotoAndRemovingFreesTheLast() async throws {
        let (keeper, store, storage) = try make()
        #expect(try await keeper.setPhoto(Self.photo(1), of: UserID(1)) == .success(.photoChanged(UserID(1), replaced: nil)))
        #expect(try await keeper.setPhoto(Self.photo(2), of: UserID(1))
            == .success(.photoChanged(UserID(1), replaced: Self.photo(1).reference)))
        #expect(await storage.base.storedHashes() == [Self.photo(2).reference.hash])
        #expect(await storage.base.claims.values.allSatisfy { $0 == 0 }, "every claim released")
        _ = try await keeper.setPhoto(nil, of: UserID(1))
        #expect(await storage.base.storedHashes().isEmpty)
        #expect(store.state.users[UserID(1)]?.photo == nil)
    }

    @Test func aRefusedChangeFreesTheBytesItStored() async throws {
        let (keeper, _, storage) = try make()
        #expect(try await keeper.setPhoto(Self.photo(1), of: UserID(9)) == .failure(.userNotFound(UserID(9))))
        #expect(await storage.base.storedHashes().isEmpty)
    }

    /// A save that failed may yet have been applied (a connection lost during its commit): its
    /// photo stays claimed, so no deletion takes it until the claim lapses.
    @Test func aPhotoWhoseSaveFailedStaysClaimed() async throws {
        let store = try StateStoreDouble([AccountFixtures.signUp("ada")], failing: true)
        let storage = InterleavingPhotoStorage()
        let keeper = PhotoKeeper(store: store, storage: storage, now: { AccountFixtures.date }, logger: .discarding())
        await #expect(throws: StoreError.self) { try await keeper.setPhoto(Self.photo(1), of: UserID(1)) }
        #expect(await storage.base.claims[Self.photo(1).reference.hash] == 1)
        #expect(await storage.base.storedHashes() == [Self.photo(1).reference.hash])
    }

    /// Another change of the same person's photo lands while this one is between storing its
    /// bytes and being applied: the first to be replaced is freed by whichever finishes last.
    @Test func overlappingChangesLeaveOnlyTheCurrentPhoto() async throws {
        let (keeper, store, storage) = try make()
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        // Photo 3 is stored and applied while photo 2 is stored but not yet applied.
        await storage.onSave(of: Self.photo(2).reference.hash) {
            _ = try? await keeper.setPhoto(Self.photo(3), of: UserID(1))
        }
        _ = try await keeper.setPhoto(Self.photo(2), of: UserID(1))
        #expect(store.state.users[UserID(1)]?.photo == Self.photo(2).reference)
        #expect(await storage.base.storedHashes() == [Self.photo(2).reference.hash])
    }

    /// Photo 3 replaces photo 2 after 2 was applied but before its upload released its claim:
    /// 3's change cannot free 2 (claimed), so 2's own upload does, once it lets go.
    @Test func aPhotoReplacedWhileItsUploadStillClaimsItIsFreedByThatUpload() async throws {
        let (keeper, store, storage) = try make()
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        await storage.onRelease(of: Self.photo(2).reference.hash) {
            _ = try? await keeper.setPhoto(Self.photo(3), of: UserID(1))
        }
        _ = try await keeper.setPhoto(Self.photo(2), of: UserID(1))
        #expect(store.state.users[UserID(1)]?.photo == Self.photo(3).reference)
        #expect(await storage.base.storedHashes() == [Self.photo(3).reference.hash])
    }

    /// Ada has photo 1 and uploads it again; between storing it and being applied, another change
    /// replaces photo 1 and offers it for deletion. The upload's claim keeps it, so once applied
    /// it is there to be served.
    @Test func aPhotoUploadedAgainWhileAnotherChangeFreesItIsKept() async throws {
        let (keeper, _, storage) = try make()
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        await storage.onSave(of: Self.photo(1).reference.hash) {
            _ = try? await keeper.setPhoto(Self.photo(2), of: UserID(1))
        }
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        #expect(try await keeper.photo(of: AccountFixtures.ada) == Self.photo(1))
        #expect(await storage.base.storedHashes() == [Self.photo(1).reference.hash])
    }

    /// The state names photo 1; before its bytes are read, photo 2 replaces it and photo 1 is
    /// freed. The read answers photo 2, never nothing.
    @Test func aPhotoFreedBeforeItsBytesAreReadIsAnsweredWithTheNewOne() async throws {
        let (keeper, _, storage) = try make()
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        await storage.onRead(of: Self.photo(1).reference.hash) {
            _ = try? await keeper.setPhoto(Self.photo(2), of: UserID(1))
        }
        #expect(try await keeper.photo(of: AccountFixtures.ada) == Self.photo(2))
        #expect(await storage.base.storedHashes() == [Self.photo(2).reference.hash], "photo 1 was freed meanwhile")
    }

    @Test func theStartUpSweepDeletesWhatNobodyRefersToAndWhatNoUploadClaims() async throws {
        let (keeper, _, storage) = try make()
        _ = try await keeper.setPhoto(Self.photo(1), of: UserID(1))
        await storage.base.save(Self.photo(7))  // left by an upload that never finished
        await storage.base.save(Self.photo(8))
        await storage.base.release(hash: Self.photo(8).reference.hash, referencedThrough: nil)
        #expect(try await keeper.collectUnreferenced(claimsLapseAfter: 3600) == 1, "photo 7's claim still counts")
        #expect(Set(await storage.base.storedHashes()) == [Self.photo(1).reference.hash, Self.photo(7).reference.hash])
    }
}

/// Photo storage in memory that runs a test's action once, when a given photo is first stored
/// or read: another request's change, landing exactly there.
actor InterleavingPhotoStorage: PhotoStorage {
    let base = AccountStorageDouble()
    private var saveHooks: [String: @Sendable () async -> Void] = [:]
    private var readHooks: [String: @Sendable () async -> Void] = [:]
    private var releaseHooks: [String: @Sendable () async -> Void] = [:]

    func onSave(of hash: String, _ action: @escaping @Sendable () async -> Void) { saveHooks[hash] = action }
    func onRead(of hash: String, _ action: @escaping @Sendable () async -> Void) { readHooks[hash] = action }
    func onRelease(of hash: String, _ action: @escaping @Sendable () async -> Void) { releaseHooks[hash] = action }
    func settleDeletions() async -> Bool { await base.settleDeletions() }

    func save(_ photo: StoredPhoto) async {
        await base.save(photo)
        if let hook = saveHooks.removeValue(forKey: photo.reference.hash) { await hook() }
    }

    func photo(hash: String) async -> StoredPhoto? {
        if let hook = readHooks.removeValue(forKey: hash) { await hook() }
        return await base.photo(hash: hash)
    }

    func release(hash: String, referencedThrough sequence: Int64?) async {
        if let hook = releaseHooks.removeValue(forKey: hash) { await hook() }
        await base.release(hash: hash, referencedThrough: sequence)
    }

    func delete(hash: String, unreferencedThrough sequence: Int64, abandoningClaimsOlderThan seconds: Double) async -> Bool {
        await base.delete(hash: hash, unreferencedThrough: sequence, abandoningClaimsOlderThan: seconds)
    }

    func storedHashes() async -> [String] { await base.storedHashes() }
}

/// A database from before photos were ever deleted: the migration gives every photo its use row,
/// and the start-up sweep deletes the ones nobody refers to.
@Suite struct PhotoMigrationTests {
    @Test func photosKeptByEarlierVersionsAreSweptAtStartUpUnlessReferred() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let current = PhotoKeeperTests.photo(1)
        let replaced = PhotoKeeperTests.photo(2)
        // The database as the previous schema (four migrations) left it, written by hand.
        let old = try SQLiteConnection(path: path)
        try old.execute("PRAGMA application_id = \(QuotebookDatabase.applicationID)")
        for sql in QuotebookDatabase.migrations.prefix(4) { try old.execute(sql) }
        try old.execute("PRAGMA user_version = 4")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for action in [
            AccountFixtures.signUp("ada"), .setPhoto(UserID(1), replaced.reference, at: AccountFixtures.date),
            .setPhoto(UserID(1), current.reference, at: AccountFixtures.date),
        ] {
            try old.prepare("INSERT INTO journal (action) VALUES (?)").run([.text(String(decoding: try encoder.encode(action), as: UTF8.self))])
        }
        for photo in [current, replaced] {
            try old.prepare("INSERT INTO photo (hash, media_type, bytes) VALUES (?, ?, ?)").run([
                .text(photo.reference.hash), .text(photo.reference.mediaType), .blob(photo.bytes),
            ])
        }
        old.close()

        let store = try Store(journal: try SQLiteJournal(path: path), logger: .discarding())
        let storage = try SQLiteAccountStorage(path: path)
        let keeper = PhotoKeeper(store: store, storage: storage, now: { AccountFixtures.date }, logger: .discarding())
        #expect(try await keeper.collectUnreferenced(claimsLapseAfter: 0) == 1)
        #expect(try await storage.storedHashes() == [current.reference.hash])
        #expect(try await keeper.photo(of: AccountFixtures.ada) == current)
        #expect(try await keeper.collectUnreferenced(claimsLapseAfter: 0) == 0)
        await storage.close()
        await store.close()
    }
}
