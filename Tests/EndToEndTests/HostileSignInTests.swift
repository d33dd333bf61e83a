import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Sign-in and sign-up under attack (SPEC.md "Hostile clients", issue 16), over real sockets to
/// the real server in front of the app: password checks are counted by an injected
/// ``CountingPasswordCrypt`` (real yescrypt behind it), which can also hold them while the rest
/// of a burst answers.
@Suite struct HostileSignInTests {
    /// The race of issue 16: 60 wrong passwords for one username at once all got a password
    /// check (60 × 401), and the right one in the same burst got in. Now five tries are counted
    /// before their checks start; the checks are held until everything else has answered, so
    /// the other 55 and the right password are refused while the five are still under way.
    @Test func sixtyWrongPasswordsAtOnceGetFiveChecksAndTheRightOneIsRefused() async throws {
        let crypt = CountingPasswordCrypt(holdingChecks: true)
        let app = try await TestApp(passwordCrypt: crypt.client)
        _ = try await app.signedIn("ada")
        let live = try LiveServer(responder: app.coordinator)
        defer { crypt.open() }
        var attacker = SocketBrowser(port: live.port)
        let guess = try await attacker.preparedSubmit(
            "/login", [("username", "ada"), ("password", "not the password")], formPage: "/login")

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<60 { group.addTask { try await SocketClient.exchangeOnce(port: live.port, guess).status } }
            var statuses: [Int] = []
            // Five checks are held at the gate, so only the refused can answer before it opens.
            while statuses.count < 55, let status = try await group.next() { statuses.append(status) }
            #expect(statuses == Array(repeating: 429, count: 55))
            #expect(crypt.checkCount <= 5)

            var owner = SocketBrowser(port: live.port)
            let right = try await owner.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
            #expect(right.status == 429)
            #expect(right.header("Retry-After") == "60")
            #expect(owner.cookies["quotebook_session"] == nil)

            crypt.open()
            while let status = try await group.next() { statuses.append(status) }
            return statuses
        }
        #expect(statuses.filter { $0 == 401 }.count == 5)
        #expect(statuses.filter { $0 == 429 }.count == 55)
        #expect(crypt.checkCount == 5)

        // The fifth failure locked the username: the right password is still refused, unchecked.
        var owner = SocketBrowser(port: live.port)
        #expect(try await owner.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login").status == 429)
        #expect(crypt.checkCount == 5)
        await live.stop()
    }
}
