import Foundation
import Logging
import Store
import StoreBackend
import TestSupport
import Testing

/// `quotebook user role NAME moderator|member` as a process on a SQLite book (issue 31): at once
/// when no server holds the book; kept for the next start when one does, and the command says so.
@Suite(.timeLimit(.minutes(2))) struct RoleCommandTests {
    static func run(_ arguments: [String], input: Data? = nil) async throws -> (status: Int32, output: String, errors: String) {
        let process = try QuotebookProcess(arguments: arguments, input: input)
        let status = await process.waitForExit()
        return (status, String(decoding: await process.standardOutput(), as: UTF8.self), await process.standardError())
    }

    func moderators(in data: TemporaryDirectory) async throws -> Set<UserID> {
        let opened = try await Backend.sqliteDirectory(data.url).open(logger: .discarding())
        let store = try Store(journal: opened.journal, logger: .discarding())
        let moderators = store.state.moderation.moderators
        await store.close()
        await opened.accounts.close()
        return moderators
    }

    @Test func theRoleIsGivenAndTakenAtOnceWithoutAServer() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let added = try await Self.run(["user", "add", "ada", "--data", data.url.path], input: Data("correct horse battery\n".utf8))
        #expect(added.status == 0)
        let given = try await Self.run(["user", "role", "ada", "moderator", "--data", data.url.path])
        #expect(given.status == 0 && given.output.contains("ada is now a moderator"))
        #expect(try await moderators(in: data) == [UserID(1)])
        let again = try await Self.run(["user", "role", "ada", "moderator", "--data", data.url.path])
        #expect(again.status == 0 && again.output.contains("already"))
        let taken = try await Self.run(["user", "role", "ada", "member", "--data", data.url.path])
        #expect(taken.status == 0 && taken.output.contains("ada is now a member"))
        #expect(try await moderators(in: data).isEmpty)
        let nobody = try await Self.run(["user", "role", "nobody", "moderator", "--data", data.url.path])
        #expect(nobody.status == 65 && nobody.errors.contains("no account is called nobody"))
        let wrong = try await Self.run(["user", "role", "ada", "admin", "--data", data.url.path])
        #expect(wrong.status == 64 && wrong.errors.contains("usage: quotebook user role NAME moderator|member"))
    }

    @Test func besideARunningServerTheChangeWaitsForItsNextStart() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        #expect(try await Self.run(["user", "add", "ada", "--data", data.url.path], input: Data("correct horse battery\n".utf8)).status == 0)
        let arguments = ["--port", "0", "--root", RepositoryPaths.root.path, "--data", data.url.path, "--log-level", "notice"]
        let server = try QuotebookProcess(arguments: arguments)
        try await server.waitUntilListening()
        let kept = try await Self.run(["user", "role", "ada", "moderator", "--data", data.url.path])
        #expect(kept.status == 0 && kept.output.contains("ada becomes a moderator when it next starts"))
        #expect(await server.stop() == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: data.url.appendingPathComponent("pending-roles").path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "its owner's alone")
        let restarted = try QuotebookProcess(arguments: arguments)
        try await restarted.waitUntilListening()
        #expect(await restarted.stop() == 0)
        #expect(await restarted.standardError().contains("ada is now a moderator"))
        #expect(!FileManager.default.fileExists(atPath: data.url.appendingPathComponent("pending-roles").path))
        #expect(try await moderators(in: data) == [UserID(1)])
    }
}
