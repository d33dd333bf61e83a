import Foundation
import TestSupport
import Testing

/// `quotebook user add NAME [--display-name NAME]`, run as a process, password on standard input.
@Suite(.timeLimit(.minutes(2))) struct UserCommandTests {
    func run(_ arguments: [String], password: String, data: TemporaryDirectory) async throws -> (status: Int32, output: String, errors: String) {
        let process = try QuotebookProcess(
            arguments: ["user", "add"] + arguments + (try await TestBackend.current().storageArguments(data: data.url)),
            input: Data(password.utf8))
        let status = await process.waitForExit()
        return (status, String(decoding: await process.standardOutput(), as: UTF8.self), await process.standardError())
    }

    @Test func createsAnAccountThatCanSignIn() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let created = try await run(["Ada", "--display-name", "Ada Lovelace"], password: "analytical engine\n", data: data)
        #expect(created.status == 0)
        #expect(created.output.contains("created user ada"))
        #expect(!created.output.contains("analytical") && !created.errors.contains("analytical"))

        let storage = try await TestBackend.current().storageArguments(data: data.url)
        let server = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path] + storage)
        try await server.waitUntilListening()
        var browser = SocketBrowser(port: try #require(server.port))
        let signIn = try await browser.submit("/login", [("username", "ada"), ("password", "analytical engine")], formPage: "/login")
        #expect(signIn.status == 303)
        #expect(try await browser.get("/users/ada").text.contains("Ada Lovelace"))
        #expect(await server.stop() == 0)
    }

    @Test func refusesATakenOrInvalidNameAndAShortPasswordWithStatus65() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        #expect(try await run(["ada"], password: "long enough", data: data).status == 0)
        let taken = try await run(["ADA"], password: "long enough", data: data)
        #expect(taken.status == 65)
        #expect(taken.errors.contains("taken"))
        let invalid = try await run(["a b"], password: "long enough", data: data)
        #expect(invalid.status == 65)
        #expect(invalid.errors.contains("invalid username"))
        let short = try await run(["bob"], password: "short", data: data)
        #expect(short.status == 65)
        #expect(short.errors.contains("at least 8"))
    }

    @Test func aMissingNameIsAUsageError() async throws {
        let process = try QuotebookProcess(arguments: ["user", "add"])
        #expect(await process.waitForExit() == 64)
    }
}
