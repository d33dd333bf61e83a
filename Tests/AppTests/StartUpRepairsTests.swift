import App
import Foundation
import Logging
import Store
import TestSupport
import Testing

/// The start-up repairs run where a server's run: a test's app starts as `main.swift` starts one
/// (issue 32: one composition root, the start-up repairs included).
@Suite struct StartUpRepairsTests {
    /// `quotebook user role` beside a running SQLite server keeps the change for the next start;
    /// an app opened on that book makes it, and forgets it.
    @Test func anAppStartingOnASQLiteBookMakesTheRolesTheOperatorKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let first = try await TestApp(journalPath: path, backend: .sqlite)
        _ = try await first.signedIn("ada")
        await first.close()
        let pending = PendingRoles(dataDirectory: directory.url)
        try pending.add(Username("ada")!, .moderator)
        let second = try await TestApp(journalPath: path, backend: .sqlite)
        let ada = try #require(second.store.state.user(named: Username("ada")!))
        #expect(second.store.state.moderation.isModerator(ada.id))
        #expect(pending.load().isEmpty, "made once, then forgotten")
        #expect(second.logSink.entries.contains { $0.message.contains("quotebook user role, kept for this start") })
        await second.close()
    }

    /// Sessions and passwords an account left when its process was killed between journaling
    /// the deletion and erasing its storage are erased at the next start.
    @Test func anAppStartingErasesWhatADeletedAccountLeftInStorage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let first = try await TestApp(journalPath: path, backend: .sqlite)
        _ = try await first.signedIn("ada")
        let ada = try #require(first.store.state.user(named: Username("ada")!)?.id)
        // The deletion journaled, its storage not yet erased: as a process killed in between leaves it.
        _ = try await first.store.dispatch(.deleteAccount(ada, at: TestApp.fixedNow)).get()
        #expect(try await first.sessionStorage.sessions(of: ada).count == 1)
        await first.close()
        let second = try await TestApp(journalPath: path, backend: .sqlite)
        #expect(try await second.sessionStorage.sessions(of: ada).isEmpty)
        #expect(try await second.sessionStorage.passwordHash(of: ada) == nil)
        await second.close()
    }
}
