import Foundation
import Synchronization
import Store
import StoreBackend
import StoreSQLite
import TestSupport
import Testing

/// Sessions, secrets and photos behave the same in SQLite and PostgreSQL (each test runs on every
/// configured backend, on a fresh database).
@Suite struct AccountStorageTests {
    let date = Date(timeIntervalSince1970: 1_795_330_800.123_456_789)

    @Test(arguments: AccountBackend.configured)
    func keepsTouchesAndDeletesSessions(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            let record = SessionRecord(id: SHA256Fixture.id(1), userID: UserID(3), createdAt: date, lastUsedAt: date)
            let other = SessionRecord(id: SHA256Fixture.id(2), userID: UserID(4), createdAt: date, lastUsedAt: date)
            #expect(try await storage.insert(record, ifPasswordIs: nil))
            #expect(try await storage.insert(other, ifPasswordIs: nil))
            #expect(try await storage.session(id: record.id) == record, "dates come back exactly")
            #expect(try await storage.session(id: SHA256Fixture.id(3)) == nil)
            try await storage.touch(id: record.id, at: date.addingTimeInterval(7_200))
            #expect(try await storage.session(id: record.id)?.lastUsedAt == date.addingTimeInterval(7_200))
            #expect(try await storage.deleteSessions(unusedSince: date.addingTimeInterval(1)) == 1)
            #expect(try await storage.session(id: other.id) == nil)
            try await storage.delete(id: record.id)
            #expect(try await storage.session(id: record.id) == nil)
            try await storage.delete(id: record.id)
        }
    }

    /// No session outlives its password: a session is kept only while the account's hash is the
    /// one the caller checked, compared in the same statement.
    @Test(arguments: AccountBackend.configured)
    func aSessionIsKeptOnlyWhileThePasswordIsTheOneChecked(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            let old = PasswordHash(encoded: "$y$old"), new = PasswordHash(encoded: "$y$new")
            func session(_ seed: UInt8) -> SessionRecord {
                SessionRecord(id: SHA256Fixture.id(seed), userID: UserID(3), createdAt: date, lastUsedAt: date)
            }
            #expect(try await storage.insert(session(1), ifPasswordIs: old) == false, "no password yet")
            try await storage.setPasswordHash(old, of: UserID(3))
            #expect(try await storage.insert(session(2), ifPasswordIs: nil) == false, "the account has one now")
            #expect(try await storage.insert(session(3), ifPasswordIs: old))
            try await storage.setPasswordHash(new, of: UserID(3))
            #expect(try await storage.insert(session(4), ifPasswordIs: old) == false, "checked before the change")
            #expect(try await database.makeInstance().sessions.insert(session(5), ifPasswordIs: old) == false, "on another instance too")
            #expect(try await storage.insert(session(6), ifPasswordIs: new))
            try await storage.deleteSecrets(of: UserID(3))
            #expect(try await storage.insert(session(7), ifPasswordIs: new) == false, "the account was deleted")
            let kept = try await storage.sessions(of: UserID(3)).map(\.id)
            #expect(kept == [session(3).id, session(6).id])
        }
    }

    /// A change replaces the hash only while it is still the one checked: of two changes that
    /// checked the same hash, the second changes nothing.
    @Test(arguments: AccountBackend.configured)
    func aPasswordIsReplacedOnlyWhileItIsTheOneChecked(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            let (old, first, second) = (PasswordHash(encoded: "$y$old"), PasswordHash(encoded: "$y$first"), PasswordHash(encoded: "$y$second"))
            #expect(try await storage.replacePasswordHash(of: UserID(3), checked: old, with: first) == false, "no password at all")
            try await storage.setPasswordHash(old, of: UserID(3))
            #expect(try await storage.replacePasswordHash(of: UserID(3), checked: old, with: first))
            let other = try await database.makeInstance().sessions
            #expect(try await other.replacePasswordHash(of: UserID(3), checked: old, with: second) == false, "on another instance too")
            #expect(try await storage.passwordHash(of: UserID(3)) == first)
            try await storage.deleteSecrets(of: UserID(3))
            #expect(try await storage.replacePasswordHash(of: UserID(3), checked: first, with: second) == false, "deleted")
            #expect(try await storage.passwordHash(of: UserID(3)) == nil)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func listsEveryAccountWithASessionOrAPasswordOnce(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            #expect(try await storage.storedAccountIDs().isEmpty)
            for (seed, user) in [(1, 3), (2, 3), (3, 4)] as [(UInt8, Int)] {
                let record = SessionRecord(id: SHA256Fixture.id(seed), userID: UserID(user), createdAt: date, lastUsedAt: date)
                #expect(try await storage.insert(record, ifPasswordIs: nil))
            }
            for user in [3, 9] { try await storage.setPasswordHash(PasswordHash(encoded: "hash \(user)"), of: UserID(user)) }
            #expect(Set(try await storage.storedAccountIDs().map(\.rawValue)) == [3, 4, 9])
            #expect(try await storage.storedAccountIDs().count == 3, "each once")
            _ = try await storage.deleteSessions(of: UserID(4), except: nil)
            try await storage.deleteSecrets(of: UserID(9))
            #expect(try await storage.storedAccountIDs().map(\.rawValue) == [3])
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aSecretIsMadeOnceAndKeptForEveryInstance(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let first = try await database.makeInstance().sessions
            let key = try await first.secret(named: "csrf", orCreate: { [9, 9, 0, 255] })
            #expect(key == [9, 9, 0, 255])
            #expect(try await first.secret(named: "csrf", orCreate: { [1] }) == key)
            let second = try await database.makeInstance().sessions
            #expect(try await second.secret(named: "csrf", orCreate: { [2] }) == key)
            #expect(try await second.secret(named: "other", orCreate: { [3] }) == [3])
        }
    }

    @Test(arguments: AccountBackend.configured)
    func photosAreKeptByHashWithEveryByte(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().photos
            let bytes = (0...255).map { UInt8($0) } + [0, 0]
            let photo = StoredPhoto(reference: PhotoReference(hash: "ab12", mediaType: "image/png"), bytes: bytes)
            try await storage.save(photo)
            try await storage.save(StoredPhoto(reference: photo.reference, bytes: bytes))
            #expect(try await storage.photo(hash: "ab12") == photo)
            #expect(try await storage.photo(hash: "cd34") == nil)
            #expect(try await database.makeInstance().photos.photo(hash: "ab12") == photo, "another instance sees it")
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aSessionOneInstanceStartsIsFoundByAnother(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let record = SessionRecord(id: SHA256Fixture.id(7), userID: UserID(1), createdAt: date, lastUsedAt: date)
            let inserted = try await database.makeInstance().sessions.insert(record, ifPasswordIs: nil)
            #expect(inserted)
            #expect(try await database.makeInstance().sessions.session(id: record.id) == record)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func closedStorageRefusesAsAccountStorageClosed(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let instance = try await database.makeInstance()
            let session = SessionRecord(id: [1, 2, 3], userID: UserID(1), createdAt: date, lastUsedAt: date)
            await instance.close()
            await #expect(throws: StoreError.accountStorageClosed(operation: "insert session")) {
                try await instance.sessions.insert(session, ifPasswordIs: nil)
            }
            await #expect(throws: StoreError.accountStorageClosed(operation: "read session")) {
                try await instance.sessions.session(id: session.id)
            }
            await #expect(throws: StoreError.accountStorageClosed(operation: "read photo")) {
                try await instance.photos.photo(hash: "ab")
            }
        }
    }
}

/// Session ids as the keeper makes them: 32 bytes.
enum SHA256Fixture {
    static func id(_ seed: UInt8) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: Int($0) * 7 + Int(seed)) }
    }
}

/// What keeps a photo's bytes (``PhotoStorage``): an open claim, or a reference recorded after
/// the journal entry the deleting caller's state is at; nothing else.
@Suite struct PhotoKeepingTests {
    func photo(_ seed: UInt8) -> StoredPhoto {
        StoredPhoto(reference: PhotoReference(hash: "hash\(seed)", mediaType: "image/png"), bytes: [seed, 1, 2, 3])
    }

    @Test(arguments: AccountBackend.configured)
    func aClaimedPhotoIsKeptUntilReleasedAndThenUntilTheCallerHasSeenItsReference(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().photos
            let kept = photo(1)
            try await storage.save(kept)
            #expect(try await !storage.delete(hash: "hash1", unreferencedThrough: 10, abandoningClaimsOlderThan: 3600), "claimed")
            try await storage.release(hash: "hash1", referencedThrough: 12)
            #expect(try await !storage.delete(hash: "hash1", unreferencedThrough: 11, abandoningClaimsOlderThan: 3600),
                    "referenced after the caller's state")
            #expect(try await storage.photo(hash: "hash1") == kept)
            #expect(try await storage.delete(hash: "hash1", unreferencedThrough: 12, abandoningClaimsOlderThan: 3600))
            #expect(try await storage.photo(hash: "hash1") == nil)
            #expect(try await storage.storedHashes().isEmpty)
            #expect(try await !storage.delete(hash: "hash1", unreferencedThrough: 12, abandoningClaimsOlderThan: 3600), "gone already")
        }
    }

    @Test(arguments: AccountBackend.configured)
    func theSameBytesUploadedTwiceAreOneCopyClaimedTwice(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let first = try await database.makeInstance().photos
            let second = try await database.makeInstance().photos
            try await first.save(photo(2))
            try await second.save(photo(2))
            #expect(try await first.storedHashes() == ["hash2"])
            try await first.release(hash: "hash2", referencedThrough: nil)
            #expect(try await !second.delete(hash: "hash2", unreferencedThrough: 5, abandoningClaimsOlderThan: 3600), "one claim open")
            try await second.release(hash: "hash2", referencedThrough: nil)
            #expect(try await second.delete(hash: "hash2", unreferencedThrough: 5, abandoningClaimsOlderThan: 3600))
            #expect(try await first.storedHashes().isEmpty)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aClaimNeverReleasedLapses(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().photos
            try await storage.save(photo(3))
            try await storage.save(photo(4))
            #expect(try await !storage.delete(hash: "hash3", unreferencedThrough: 0, abandoningClaimsOlderThan: 3600))
            #expect(try await storage.delete(hash: "hash3", unreferencedThrough: 0, abandoningClaimsOlderThan: 0), "a stale claim")
            #expect(try await storage.storedHashes() == ["hash4"])
        }
    }
}

/// On SQLite, photos are read through a connection of their own: a photo read does not wait for
/// whatever the account storage's queue is doing (the session look-ups of signed-in pages).
@Suite(.timeLimit(.minutes(1))) struct SQLitePhotoReadTests {
    @Test func aPhotoIsReadWhileTheAccountQueueIsBusy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("book.sqlite3").path
        let journal = try SQLiteJournal(path: path)
        let storage = try SQLiteAccountStorage(path: path)
        let photo = StoredPhoto(reference: PhotoReference(hash: "ab12", mediaType: "image/png"), bytes: [1, 2, 3])
        try await storage.save(photo)
        #expect(try await storage.photo(hash: "ab12") == photo)  // the reader's connection is open
        // Holds the account queue until the read is answered (at most 40 s): `make` runs on it,
        // in a write transaction. The read must be answered while it still holds it: an order,
        // not a duration, so a slow machine (the whole suite under ThreadSanitizer once took over
        // 8 s for the read) cannot fail it unless the read really waits for the queue.
        let held = Flag()
        let released = Flag()
        let answered = Flag()
        let busy = Task {
            try await storage.secret(named: "slow", orCreate: {
                held.raise()
                let deadline = Date().addingTimeInterval(40)
                while !answered.isRaised && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                released.raise()
                return [1]
            })
        }
        while !held.isRaised { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await storage.photo(hash: "ab12") == photo)
        #expect(!released.isRaised, "the photo read waited for the account queue")
        answered.raise()
        _ = try await busy.value
        await storage.close()
        journal.close()
    }
}

/// A flag one thread raises and another reads.
private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { raised.load(ordering: .sequentiallyConsistent) }
}
