import Foundation
import TestSupport
import Testing

/// Mail from the real server to the real relay `.ci/smtp.sh start` runs (STARTTLS, AUTH): queued
/// mail survives a `kill -9` while the relay is down and is delivered once it is up; and the
/// forgot-password form costs the same whether or not the address is anyone's.
@Suite(.enabled(if: TestRelay.current != nil, "needs QUOTEBOOK_TEST_SMTP and QUOTEBOOK_TEST_SMTP_MAILDIR (.ci/smtp.sh start)"))
struct EmailProcessTests {
    typealias Relay = TestRelay
    static var relay: Relay? { TestRelay.current }

    /// The link to `path` in a quoted-printable message, decoded (soft breaks joined).
    static func link(_ path: String, in message: String) throws -> String {
        let text = message.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=3D", with: "=")
        guard let range = text.range(of: path + "?token=") else { throw TestFailure("no \(path) link in the message") }
        return path + "?token=" + text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func arguments(data: TemporaryDirectory, smtp: [String]) async throws -> [String] {
        let storage = try await TestBackend.current().storageArguments(data: data.url)
        return ["--port", "0", "--root", RepositoryPaths.root.path, "--log-level", "warning", "--mail-retry-delay", "0.2"]
            + storage + smtp
    }

    @Test(.timeLimit(.minutes(2)))
    func mailQueuedWhileTheRelayIsDownSurvivesKillNineAndIsDeliveredOnce() async throws {
        let relay = try #require(Self.relay)
        let data = try TemporaryDirectory(prefix: "quotebook-mail-e2e")
        defer { data.remove() }
        let address = "e2e-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        // Port 1 on loopback: nothing listens, every try is refused (a relay that is down).
        let down = try QuotebookProcess(arguments: try await arguments(data: data, smtp: ["--smtp", "smtp://127.0.0.1:1"]))
        try await down.waitUntilListening()
        var browser = SocketBrowser(port: try #require(down.port))
        let signedUp = try await browser.submit(
            "/signup",
            [("username", "mia"), ("display_name", "Mia"), ("password", "correct horse battery"),
             ("password_confirmation", "correct horse battery"), ("email", address)], formPage: "/signup")
        #expect(signedUp.status == 303)
        try await Task.sleep(for: .seconds(1))  // a few refused tries
        #expect(await down.stop(signal: SIGKILL) == SIGKILL)
        #expect(try relay.messages().allSatisfy { !$0.contains(address) }, "nothing reached the relay while it was down")

        let up = try QuotebookProcess(
            arguments: try await arguments(data: data, smtp: ["--smtp", relay.url, "--smtp-ca", relay.caFile]))
        try await up.waitUntilListening()
        let delivered = try await relay.messages(to: address)
        #expect(delivered.count == 1)
        #expect(delivered.first?.contains("Subject: Confirm your email address for Quotebook") == true)
        try await Task.sleep(for: .seconds(1))
        #expect(try await relay.messages(to: address, atLeast: 2, seconds: 0).count == 1, "sent once")
        #expect(await up.stop() == 0)
    }

    /// No enumeration by time: the answer for an address nobody has takes as long as for a
    /// verified one, since both only keep the request (the sender looks for the account later).
    /// Medians of 15 each, interleaved, from clients of their own (the per-client limit).
    @Test(.timeLimit(.minutes(3)))
    func theForgotFormTakesAsLongForAnAddressNobodyHas() async throws {
        let relay = try #require(Self.relay)
        let data = try TemporaryDirectory(prefix: "quotebook-mail-timing")
        defer { data.remove() }
        let server = try QuotebookProcess(
            arguments: try await arguments(data: data, smtp: ["--smtp", relay.url, "--smtp-ca", relay.caFile])
                + ["--trusted-proxies", "127.0.0.1"])
        try await server.waitUntilListening()
        let port = try #require(server.port)
        let run = UUID().uuidString.prefix(8).lowercased()
        // Five verified addresses: three requests an hour each.
        var known: [String] = []
        for index in 0..<5 {
            let address = "known\(index)-\(run)@example.org"
            var person = SocketBrowser(port: port)
            person.extraHeaders = [("X-Forwarded-For", "198.51.100.\(index + 1)")]
            let signedUp = try await person.submit(
                "/signup",
                [("username", "known\(index)"), ("display_name", "Known"), ("password", "correct horse battery"),
                 ("password_confirmation", "correct horse battery"), ("email", address)], formPage: "/signup")
            #expect(signedUp.status == 303)
            let message = try #require(try await relay.messages(to: address).first)
            let link = try Self.link("/email/verify", in: message)
            let token = String(link.split(separator: "=", maxSplits: 1)[1])
            #expect(try await person.submit("/email/verify", [("token", token)], formPage: link).status == 303)
            known.append(address)
        }
        var durations: (known: [Duration], unknown: [Duration]) = ([], [])
        for round in 0..<15 {
            for isKnown in [round % 2 == 0, round % 2 != 0] {
                var visitor = SocketBrowser(port: port)
                visitor.extraHeaders = [("X-Forwarded-For", "203.0.113.\(round * 2 + (isKnown ? 1 : 2))")]
                let address = isKnown ? known[round % 5] : "nobody\(round)-\(run)@example.org"
                let token = try await visitor.csrfToken(from: "/password/forgot")
                let start = ContinuousClock.now
                let answer = try await visitor.send(
                    "POST", "/password/forgot", headers: SocketBrowser.formHeaders,
                    body: SocketBrowser.formBody([("email", address)], token: token))
                let elapsed = ContinuousClock.now - start
                #expect(answer.status == 200)
                if isKnown { durations.known.append(elapsed) } else { durations.unknown.append(elapsed) }
            }
        }
        func median(_ values: [Duration]) -> Double {
            let sorted = values.sorted()
            let middle = sorted[sorted.count / 2]
            return Double(middle.components.seconds) * 1000 + Double(middle.components.attoseconds) / 1e15
        }
        let knownMedian = median(durations.known), unknownMedian = median(durations.unknown)
        // Mailing the link inside the request (an SMTP conversation with TLS) would cost tens of
        // milliseconds more for a known address; the same work costs the same within noise.
        #expect(abs(knownMedian - unknownMedian) < max(5, 0.3 * max(knownMedian, unknownMedian)),
            "median \(knownMedian) ms for known addresses, \(unknownMedian) ms for unknown ones")
        // Each account's hour allows three mails: its verification and two of its three resets.
        var resets: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            resets = try relay.messages().filter { $0.contains("Subject: Reset your Quotebook password") && $0.contains(run) }
            if resets.count < 10 { try await Task.sleep(for: .milliseconds(200)) }
        } while resets.count < 10 && ContinuousClock.now < deadline
        #expect(resets.count == 10, "two links to each known address, none to the others")
        #expect(await server.stop() == 0)
    }
}

/// The relay `.ci/smtp.sh start` runs: `QUOTEBOOK_TEST_SMTP` (`URL CAFILE`) and its maildir.
struct TestRelay: Sendable {
    let url: String
    let caFile: String
    let maildir: URL

    /// Every message the relay kept, as text.
    func messages() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: maildir.path)
            .filter { $0.hasSuffix(".eml") && !$0.hasPrefix(".") }.sorted()
        return try names.map { try String(contentsOf: maildir.appendingPathComponent($0), encoding: .utf8) }
    }

    /// The messages to `address`, waiting until there are at least `count` (at most `seconds`).
    func messages(to address: String, atLeast count: Int = 1, seconds: Double = 30) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let found = try messages().filter { $0.contains("\r\nTo: \(address)\r\n") }
            if found.count >= count || ContinuousClock.now > deadline { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static let current: TestRelay? = {
        let environment = ProcessInfo.processInfo.environment
        guard let line = environment["QUOTEBOOK_TEST_SMTP"], let maildir = environment["QUOTEBOOK_TEST_SMTP_MAILDIR"] else { return nil }
        let parts = line.split(separator: " ").map(String.init)
        guard parts.count == 2 else { return nil }
        return TestRelay(url: parts[0], caFile: parts[1], maildir: URL(fileURLWithPath: maildir))
    }()
}
