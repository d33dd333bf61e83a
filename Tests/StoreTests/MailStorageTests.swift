import Foundation
import Store
import StoreBackend
import TestSupport
import Testing

/// Email addresses, mail links and the outbox behave the same in SQLite and PostgreSQL (each test
/// runs on every configured backend, on a fresh database).
@Suite struct MailStorageTests {
    let now = Date(timeIntervalSince1970: 1_795_330_800)
    let hour = MailAllowance(key: "account:1", limit: 3, window: 3_600)

    func token(_ seed: UInt8, _ purpose: MailTokenPurpose, minutes: Double = 30) -> MailToken {
        MailToken(hash: SHA256Fixture.id(seed), purpose: purpose, expiresAt: now.addingTimeInterval(minutes * 60))
    }

    func allowance(_ user: UserID) -> MailAllowance { MailAllowance(key: MailAllowance.accountKey(user), limit: 3, window: 3_600) }

    /// The password hash accounts 1 and 2 have in ``ready(_:)``.
    static let hash = PasswordHash(encoded: "$y$test")

    /// An instance on `database` where accounts 1 and 2 have a password (``hash``).
    func ready(_ database: AccountDatabase) async throws -> AccountStorage {
        let accounts = try await database.makeInstance()
        for user in [UserID(1), UserID(2)] { try await accounts.sessions.setPasswordHash(Self.hash, of: user) }
        return accounts
    }

    @Test(arguments: AccountBackend.configured)
    func anAddressIsPendingUntilItsLinkIsFollowedOnceAndTheOldOneStaysMeanwhile(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let mail = try await ready(database).mail
            let ada = UserID(1)
            #expect(try await mail.addresses(of: ada) == EmailAddresses())
            #expect(try await mail.requestAddress("ada@old.test", of: ada, whilePasswordIs: Self.hash, token: token(1, .verifyAddress), mails: ["m1"], allowance: allowance(ada), now: now) == .queued)
            #expect(try await mail.addresses(of: ada) == EmailAddresses(pending: "ada@old.test"))
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now) == .verified(ada, address: "ada@old.test"))
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now) == .deadToken, "used once")
            #expect(try await mail.addresses(of: ada) == EmailAddresses(verified: "ada@old.test"))

            _ = try await mail.requestAddress("ada@new.test", of: ada, whilePasswordIs: Self.hash, token: token(2, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            _ = try await mail.requestAddress("ada@newer.test", of: ada, whilePasswordIs: Self.hash, token: token(3, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            #expect(try await mail.addresses(of: ada) == EmailAddresses(verified: "ada@old.test", pending: "ada@newer.test"), "the old one stays in use")
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(2), now: now) == .deadToken, "a newer link was sent")
            #expect(try await mail.tokenOwner(hash: SHA256Fixture.id(3), purpose: .resetPassword, now: now) == nil, "another purpose")
            #expect(try await mail.tokenOwner(hash: SHA256Fixture.id(3), purpose: .verifyAddress, now: now.addingTimeInterval(1_801)) == nil, "expired")
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(3), now: now.addingTimeInterval(1_801)) == .deadToken)
            #expect(try await mail.tokenOwner(hash: SHA256Fixture.id(3), purpose: .verifyAddress, now: now) == ada)
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(3), now: now) == .verified(ada, address: "ada@newer.test"))
            #expect(try await mail.addresses(of: ada) == EmailAddresses(verified: "ada@newer.test"))
        }
    }

    @Test(arguments: AccountBackend.configured)
    func anAddressVerifiedByOneAccountCannotBeVerifiedByAnother(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let mail = try await ready(database).mail
            _ = try await mail.requestAddress("same@example.test", of: UserID(1), whilePasswordIs: Self.hash, token: token(1, .verifyAddress), mails: [], allowance: allowance(UserID(1)), now: now)
            _ = try await mail.requestAddress("SAME@Example.test", of: UserID(2), whilePasswordIs: Self.hash, token: token(2, .verifyAddress), mails: [], allowance: allowance(UserID(2)), now: now)
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now) == .verified(UserID(1), address: "same@example.test"))
            #expect(try await mail.verifyAddress(tokenHash: SHA256Fixture.id(2), now: now) == .takenByAnother)
            #expect(try await mail.addresses(of: UserID(2)).verified == nil)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func anAccountGetsThreeAddressMailsAnHourAndNothingPastThemIsKept(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let first = try await ready(database).mail, second = try await database.makeInstance().mail
            let ada = UserID(1)
            for (index, storage) in [first, second, first].enumerated() {
                let outcome = try await storage.requestAddress("a\(index)@x.test", of: ada, whilePasswordIs: Self.hash, token: token(UInt8(index), .verifyAddress), mails: ["m\(index)"], allowance: allowance(ada),
                    now: now.addingTimeInterval(Double(index) * 60))
                #expect(outcome == .queued)
            }
            let refused = try await second.requestAddress("a3@x.test", of: ada, whilePasswordIs: Self.hash, token: token(9, .verifyAddress), mails: ["m3"], allowance: allowance(ada), now: now.addingTimeInterval(600))
            #expect(refused == .limited(retryAfter: 3_000), "an hour after the first")
            #expect(try await first.addresses(of: ada).pending == "a2@x.test")
            #expect(try await first.claimMail(now: now.addingTimeInterval(600), lease: 60, limit: 10).map(\.message) == ["m0", "m1", "m2"])
            #expect(try await second.requestAddress("a4@x.test", of: ada, whilePasswordIs: Self.hash, token: token(10, .verifyAddress), mails: [], allowance: allowance(ada), now: now.addingTimeInterval(3_601)) == .queued)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aResetRequestBecomesMailOnlyForAVerifiedAddressAndTheLinkSetsThePasswordOnce(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let accounts = try await database.makeInstance()
            let mail = accounts.mail, sessions = accounts.sessions
            let ada = UserID(1)
            try await sessions.setPasswordHash(PasswordHash(encoded: "$y$old"), of: ada)
            _ = try await mail.requestAddress("ada@example.test", of: ada, whilePasswordIs: PasswordHash(encoded: "$y$old"), token: token(1, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            let perAddress = MailAllowance(key: "address:x", limit: 10, window: 3_600)
            #expect(try await mail.requestReset(forAddress: "ada@example.test", allowance: perAddress, now: now) == .queued)
            #expect(try await mail.resolveResetRequests(now: now, allowance: allowance, compose: { _, _ in (token(2, .resetPassword), "reset") }) == 0,
                "only pending: not yet verified")
            _ = try await mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now)
            for address in ["ADA@example.TEST", "nobody@example.test"] {
                #expect(try await mail.requestReset(forAddress: address, allowance: perAddress, now: now) == .queued)
            }
            let composed = try await mail.resolveResetRequests(now: now, allowance: allowance) { user, address in
                #expect(user == ada && address == "ada@example.test", "the address as verified, not as typed")
                return (token(3, .resetPassword), "reset to \(address)")
            }
            #expect(composed == 1)
            #expect(try await mail.resolveResetRequests(now: now, allowance: allowance, compose: { _, _ in nil }) == 0, "each request resolved once")
            let session = SessionRecord(id: SHA256Fixture.id(40), userID: ada, createdAt: now, lastUsedAt: now)
            #expect(try await sessions.insert(session, ifPasswordIs: PasswordHash(encoded: "$y$old")))

            #expect(try await mail.tokenOwner(hash: SHA256Fixture.id(3), purpose: .verifyAddress, now: now) == nil, "another purpose")
            let outcome = try await mail.resetPassword(tokenHash: SHA256Fixture.id(3), to: PasswordHash(encoded: "$y$new"), now: now) { user, address in
                "notice to \(address) for \(user.rawValue)"
            }
            #expect(outcome == .reset(ada, endedSessions: [session.id]))
            // A sign-in whose check of the old password began before the reset starts no session.
            let late = SessionRecord(id: SHA256Fixture.id(41), userID: ada, createdAt: now, lastUsedAt: now)
            #expect(try await sessions.insert(late, ifPasswordIs: PasswordHash(encoded: "$y$old")) == false)
            #expect(try await sessions.passwordHash(of: ada) == PasswordHash(encoded: "$y$new"))
            #expect(try await sessions.sessions(of: ada).isEmpty)
            #expect(try await mail.resetPassword(tokenHash: SHA256Fixture.id(3), to: PasswordHash(encoded: "$y$x"), now: now) { _, _ in nil } == .deadToken)
            let sent = try await mail.claimMail(now: now, lease: 60, limit: 10).map(\.message)
            #expect(sent == ["reset to ada@example.test", "notice to ada@example.test for 1"])
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aChangedPasswordKillsEveryLinkAndALinkAskedForUnderTheOldOneIsNeverMade(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let accounts = try await database.makeInstance()
            let ada = UserID(1), old = PasswordHash(encoded: "$y$old"), new = PasswordHash(encoded: "$y$new")
            try await accounts.sessions.setPasswordHash(old, of: ada)
            _ = try await accounts.mail.requestAddress(
                "ada@example.test", of: ada, whilePasswordIs: old, token: token(1, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            #expect(try await accounts.sessions.replacePasswordHash(of: ada, checked: old, with: new))
            #expect(try await accounts.mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now) == .deadToken)
            // A request whose password check began before the change comes after it: nothing kept.
            let late = try await accounts.mail.requestAddress(
                "eve@example.test", of: ada, whilePasswordIs: old, token: token(3, .verifyAddress), mails: ["to eve"], allowance: allowance(ada), now: now)
            #expect(late == .passwordChanged)
            #expect(try await accounts.mail.tokenOwner(hash: SHA256Fixture.id(3), purpose: .verifyAddress, now: now) == nil)
            #expect(try await accounts.mail.addresses(of: ada).pending == "ada@example.test")
            #expect(try await accounts.mail.claimMail(now: now, lease: 60, limit: 10).isEmpty)
            _ = try await accounts.mail.requestAddress(
                "ada@example.test", of: ada, whilePasswordIs: new, token: token(2, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            #expect(try await accounts.sessions.replacePasswordHash(of: ada, checked: old, with: PasswordHash(encoded: "$y$x")) == false)
            #expect(try await accounts.mail.tokenOwner(hash: SHA256Fixture.id(2), purpose: .verifyAddress, now: now) == ada, "a refused change kills nothing")
            try await accounts.sessions.deleteSecrets(of: ada)
            let erased = try await accounts.mail.requestAddress(
                "ada@example.test", of: ada, whilePasswordIs: new, token: token(4, .verifyAddress), mails: [], allowance: allowance(ada), now: now)
            #expect(erased == .passwordChanged, "nothing is kept for an account erased meanwhile")
            #expect(try await accounts.mail.addresses(of: ada) == EmailAddresses())
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aClaimedMailGoesToOneSenderAndComesBackWhenItsLeaseEndsOrItIsRetried(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let first = try await database.makeInstance().mail, second = try await database.makeInstance().mail
            try await first.queueMail("one", about: nil, now: now)
            try await first.queueMail("two", about: UserID(1), now: now)
            let claimed = try await first.claimMail(now: now, lease: 60, limit: 1)
            #expect(claimed.map(\.message) == ["one"])
            #expect(try await second.claimMail(now: now, lease: 60, limit: 10).map(\.message) == ["two"], "held mail is not claimed twice")
            #expect(try await second.claimMail(now: now.addingTimeInterval(30), lease: 60, limit: 10).isEmpty)
            try await first.retryMail(claimed[0], at: now.addingTimeInterval(120))
            let lapsed = try await second.claimMail(now: now.addingTimeInterval(61), lease: 60, limit: 10)
            #expect(lapsed.map(\.message) == ["two"], "its lease ended")
            let again = try await second.claimMail(now: now.addingTimeInterval(200), lease: 60, limit: 10)
            #expect(again.map(\.message) == ["one", "two"] && again[0].attempts == 1)
            // The claim of "two" made at 61 s lapsed at 121 s and was taken again at 200 s: the
            // first holder's answer changes nothing, the new holder's counts.
            try await second.retryMail(lapsed[0], at: now.addingTimeInterval(10_000))
            try await second.finishMail(lapsed[0])
            #expect(try await first.claimMail(now: now.addingTimeInterval(300), lease: 60, limit: 10).map(\.message) == ["one", "two"],
                "fenced: still there, and claimable once the new claim lapsed")
            let last = try await first.claimMail(now: now.addingTimeInterval(400), lease: 60, limit: 10)
            for mail in last { try await first.finishMail(mail) }
            #expect(try await first.claimMail(now: now.addingTimeInterval(10_000), lease: 60, limit: 10).isEmpty)
        }
    }

    /// Many claims at once from several instances: every mail is handed out exactly once.
    @Test(arguments: AccountBackend.configured)
    func concurrentClaimsHandOutEachMailOnce(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let instances = [try await database.makeInstance().mail, try await database.makeInstance().mail]
            for index in 0..<40 { try await instances[0].queueMail("m\(index)", about: nil, now: now) }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for round in 0..<8 {
                    let storage = instances[round % 2]
                    group.addTask { try await storage.claimMail(now: now, lease: 600, limit: 3).map(\.message) }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(claimed.count == 24 && Set(claimed).count == 24)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func erasureForgetsTheAddressesLinksAndUnsentMail(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let accounts = try await ready(database)
            let mail = accounts.mail
            let ada = UserID(1), bea = UserID(2)
            _ = try await mail.requestAddress("ada@example.test", of: ada, whilePasswordIs: Self.hash, token: token(1, .verifyAddress), mails: ["to ada"], allowance: allowance(ada), now: now)
            _ = try await mail.verifyAddress(tokenHash: SHA256Fixture.id(1), now: now)
            _ = try await mail.requestAddress("ada2@example.test", of: ada, whilePasswordIs: Self.hash, token: token(2, .verifyAddress), mails: ["to ada2"], allowance: allowance(ada), now: now)
            _ = try await mail.requestReset(forAddress: "ada@example.test", allowance: MailAllowance(key: "k", limit: 10, window: 3_600), now: now)
            try await mail.queueMail("to bea", about: bea, now: now)
            #expect(try await accounts.sessions.storedAccountIDs().contains(ada))
            try await accounts.sessions.deleteSecrets(of: ada)
            #expect(try await mail.addresses(of: ada) == EmailAddresses())
            #expect(try await mail.tokenOwner(hash: SHA256Fixture.id(2), purpose: .verifyAddress, now: now) == nil)
            #expect(try await mail.resolveResetRequests(now: now, allowance: allowance, compose: { _, _ in (token(5, .resetPassword), "x") }) == 0)
            #expect(try await mail.claimMail(now: now, lease: 60, limit: 10).map(\.message) == ["to bea"])
            #expect(try await accounts.sessions.storedAccountIDs().contains(ada) == false)
            try await accounts.sessions.setPasswordHash(Self.hash, of: ada)  // an account given the id anew, as a test may
            #expect(try await mail.requestAddress("ada3@example.test", of: ada, whilePasswordIs: Self.hash, token: token(3, .verifyAddress), mails: [], allowance: allowance(ada), now: now) == .queued,
                "the allowance went too")
        }
    }
}
