import Foundation
import Logging
import Store
import StoreBackend
import StoreSQLite
import TestSupport
import Testing

/// A process killed between journaling an account's deletion and erasing its account storage
/// leaves that account's sessions and password behind; the next start of the server erases them.
/// One killed between journaling a sign-up and keeping its password hash leaves an account no
/// one can sign in to; the next start removes it, and its username can be signed up again.
@Suite(.timeLimit(.minutes(2))) struct DeletionLeftoversTests {
    /// The book a killed process leaves in `data`: `write` dispatches to its store and writes to
    /// its account storage, which then both close.
    static func leaveBook(
        in data: TemporaryDirectory, _ write: (Store, any SessionStorage) async throws -> Void
    ) async throws {
        let opened = try await Backend.sqliteDirectory(data.url).open(logger: .discarding())
        let store = try Store(journal: opened.journal, logger: .discarding())
        try await write(store, opened.accounts.sessions)
        await store.close()
        await opened.accounts.close()
    }

    /// The server, started on `data` and listening.
    static func start(on data: TemporaryDirectory) async throws -> QuotebookProcess {
        let server = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path, "--data", data.url.path])
        try await server.waitUntilListening()
        return server
    }

    @Test func theNextStartErasesTheSessionsAndPasswordOfADeletedAccount() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let date = Date()
        // The book as such a process leaves it: Ada's account live, Bob's deleted in the journal,
        // both still with a session and a password in account storage.
        try await Self.leaveBook(in: data) { store, sessions in
            for name in ["ada", "bob"] {
                _ = try await store.dispatch(.signUp(try #require(Username(name)), displayName: name, at: date))
            }
            _ = try await store.dispatch(.deleteAccount(UserID(2), at: date))
            for user in [1, 2] {
                let id = (0..<32).map { UInt8($0) &+ UInt8(user) }
                let session = SessionRecord(id: id, userID: UserID(user), createdAt: date, lastUsedAt: date)
                #expect(try await sessions.insert(session, ifPasswordIs: nil))
                try await sessions.setPasswordHash(PasswordHash(encoded: "hash \(user)"), of: UserID(user))
            }
        }

        let server = try await Self.start(on: data)
        #expect(await server.stop() == 0)
        #expect(await server.standardError().contains("erased the sessions and passwords of 1 deleted accounts"))

        let after = try await Backend.sqliteDirectory(data.url).open(logger: .discarding())
        #expect(try await after.accounts.sessions.storedAccountIDs() == [UserID(1)])
        #expect(try await after.accounts.sessions.passwordHash(of: UserID(2)) == nil)
        #expect(try await after.accounts.sessions.passwordHash(of: UserID(1)) == PasswordHash(encoded: "hash 1"))
        after.journal.close()
        await after.accounts.close()
    }

    @Test func theNextStartRemovesASignUpCutShortBeforeItsHash() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let now = Date()
        // Ada signed up with her hash kept an hour ago; Bob's sign-up an hour ago and Cyd's a
        // minute ago never kept theirs (Cyd's could still be under way on another instance).
        try await Self.leaveBook(in: data) { store, sessions in
            for (name, date) in [("ada", now - 3_600), ("bob", now - 3_600), ("cyd", now - 60)] {
                _ = try await store.dispatch(.signUp(try #require(Username(name)), displayName: name, at: date))
            }
            try await sessions.setPasswordHash(PasswordHash(encoded: "hash 1"), of: UserID(1))
        }

        let server = try await Self.start(on: data)
        var browser = SocketBrowser(port: try #require(server.port))
        #expect(try await browser.signUp("bob").status == 303, "bob's username is free again")
        #expect(await server.stop() == 0)
        let log = await server.standardError()
        #expect(log.contains("removed 1 account(s) that a sign-up cut short left without a password: ids [2]"))

        let after = try await Backend.sqliteDirectory(data.url).open(logger: .discarding())
        let reopened = try Store(journal: after.journal, logger: .discarding())
        let state = reopened.state
        #expect(state.users.values.map(\.username.rawValue).sorted() == ["ada", "bob", "cyd"])
        #expect(state.user(named: try #require(Username("bob")))?.id == UserID(4), "the new bob, not the one cut short")
        #expect(state.users[UserID(2)] == nil)
        await reopened.close()
        await after.accounts.close()
    }
}
