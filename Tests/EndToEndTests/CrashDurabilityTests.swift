import Foundation
import TestSupport
import Testing

/// A save answered with a 303 is durable (SPEC "Data"), however many saves were committed with
/// it: the real server is killed with SIGKILL (or stopped with SIGTERM) while people save at
/// once, and restarted.
@Suite(.timeLimit(.minutes(3))) struct CrashDurabilityTests {
    /// How far one person's saves got before the server died.
    struct SaveRecord: Sendable {
        let username: String
        /// The number of the last save answered 303 (0: none was).
        var acknowledged = 0
        /// The number of the last save sent, answered or not.
        var sent = 0
        /// The status of the first answer that was not 303, if one came.
        var refusal: Int?
    }

    /// The display name of save `number` by `username`.
    static func name(_ username: String, save number: Int) -> String {
        "\(username) save \(number)"
    }

    /// Saves `browser`'s display name again and again (each save waiting for the answer to the
    /// one before) until a save is not answered 303 — the server died — or `limit` saves were
    /// made; yields to `acknowledged` for every 303.
    static func saveUntilRefused(
        _ username: String, _ browser: SocketBrowser, limit: Int, acknowledged: AsyncStream<Void>.Continuation
    ) async -> SaveRecord {
        var browser = browser
        var record = SaveRecord(username: username)
        while record.sent < limit {
            record.sent += 1
            let answer = try? await browser.submit(
                "/profile/name", [("display_name", name(username, save: record.sent))], formPage: "/profile/edit")
            guard answer?.status == 303 else {
                record.refusal = answer?.status
                break
            }
            record.acknowledged = record.sent
            acknowledged.yield()
        }
        return record
    }

    /// Six people signed up on the real server (in a fresh data folder) save their display
    /// names at once; once `answers` saves were answered 303, the server gets `signal`, and
    /// the saving stops at the first save not answered 303. Returns each person's record, the
    /// signal's exit status, and the server's arguments (to restart it on the same data).
    static func saveAtOnce(
        stoppingWith signal: Int32, after answers: Int, data: TemporaryDirectory
    ) async throws -> (saves: [SaveRecord], exitStatus: Int32, arguments: [String]) {
        let storage = try await TestBackend.current().storageArguments(data: data.url)
        let arguments = ["--port", "0", "--root", RepositoryPaths.root.path, "--log-level", "warning"] + storage
        let server = try QuotebookProcess(arguments: arguments)
        try await server.waitUntilListening()
        let port = try #require(server.port)
        var people: [(String, SocketBrowser)] = []
        for index in 1...6 {
            var browser = SocketBrowser(port: port)
            #expect(try await browser.signUp("writer\(index)").status == 303)
            people.append(("writer\(index)", browser))
        }
        // Each stops after 300 saves, so the load outlasts the signal.
        let (acknowledgements, acknowledged) = AsyncStream.makeStream(of: Void.self)
        async let records = withTaskGroup(of: SaveRecord.self) { group in
            for (username, browser) in people {
                group.addTask { await Self.saveUntilRefused(username, browser, limit: 300, acknowledged: acknowledged) }
            }
            var records: [SaveRecord] = []
            for await record in group { records.append(record) }
            acknowledged.finish()
            return records
        }
        var answered = 0
        for await _ in acknowledgements {
            answered += 1
            if answered == answers { break }
        }
        let status = await server.stop(signal: signal)
        let saves = await records
        #expect(answered == answers)
        #expect(saves.allSatisfy { $0.sent < 300 }, "everyone was still saving when the server stopped")
        return (saves, status, arguments)
    }

    /// Restarts the server on the same data and checks that each person's page shows a save
    /// between the last one answered 303 and the last one sent.
    static func expectKept(_ saves: [SaveRecord], arguments: [String]) async throws {
        let restarted = try QuotebookProcess(arguments: arguments)
        try await restarted.waitUntilListening()
        var reader = SocketBrowser(port: try #require(restarted.port))
        for save in saves {
            let page = try await reader.get("/users/\(save.username)").text
            let number = Self.saveNumber(in: page, of: save.username)
            #expect(
                number.map { (save.acknowledged...save.sent).contains($0) } == true,
                "\(save.username): shows save \(number.map(String.init) ?? "none"); answered up to \(save.acknowledged), sent up to \(save.sent)")
        }
        #expect(await restarted.stop() == 0)
    }

    @Test func everySaveAnswered303SurvivesSIGKILLDuringConcurrentSaves() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let (saves, status, arguments) = try await Self.saveAtOnce(stoppingWith: SIGKILL, after: 90, data: data)
        #expect(status == SIGKILL)
        try await Self.expectKept(saves, arguments: arguments)
    }

    /// SIGTERM with saves in flight: the server answers what it took, refuses nothing with a 5xx
    /// (a save reaching a closed store would be a 500), exits cleanly, and keeps every
    /// acknowledged save. (That `run()` also awaits tasks whose connection is already gone, so
    /// the store closes after them, is proven in `OwnedTaskTests`.)
    @Test func everySaveInFlightAtSIGTERMIsAnsweredBeforeTheStoreCloses() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let (saves, status, arguments) = try await Self.saveAtOnce(stoppingWith: SIGTERM, after: 60, data: data)
        #expect(status == 0)
        for save in saves {
            #expect(save.refusal == nil, "\(save.username)'s save \(save.sent) was answered \(save.refusal ?? 0)")
        }
        try await Self.expectKept(saves, arguments: arguments)
    }

    /// The save number in the profile heading of `username`'s page: 0 for the name given at sign-up.
    static func saveNumber(in page: String, of username: String) -> Int? {
        guard let start = page.range(of: "<h1 id=\"profile-heading\">"),
            let end = page.range(of: "</h1>", range: start.upperBound..<page.endIndex)
        else { return nil }
        let heading = String(page[start.upperBound..<end.lowerBound])
        if heading == username { return 0 }
        let prefix = name(username, save: 0).dropLast()
        guard heading.hasPrefix(prefix) else { return nil }
        return Int(heading.dropFirst(prefix.count))
    }
}
