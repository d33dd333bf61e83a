import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// No session outlives its password (SPEC.md "Sessions and security", issue 29): the owner
/// changes the password while an attacker who knows the old one signs in, sent at offsets from
/// 10 ms before the change to 130 ms after it, over real sockets with real yescrypt, on the
/// run's backend (SQLite, and PostgreSQL in CI's second run). Whatever the attacker's sign-in
/// answered, once both are done its cookie must open nothing. Each offset races on an account
/// of its own, so no round's failures lock the next.
@Suite struct PasswordRaceTests {
    static let offsets = [-10, 0, 2, 5, 10, 15, 20, 30, 40, 50, 60, 80, 100, 130]

    @Test func noSignInWithTheOldPasswordOutlivesTheChangeAtAnyOffset() async throws {
        let app = try await TestApp()
        let live = try AddressLimitTests.serve(app)
        var outcomes: [String] = []
        var survivors: [Int] = []
        for (round, offset) in Self.offsets.enumerated() {
            let name = "victim\(round)"
            var owner = AddressLimitTests.browser(live, from: "192.0.2.\(round + 1)")
            #expect(try await owner.signUp(name).status == 303)
            let change = try await owner.preparedSubmit(
                "/profile/password",
                [("current_password", TestApp.password), ("password", "new pass \(round)!"), ("password_confirmation", "new pass \(round)!")],
                formPage: "/profile/password")
            var attacker = AddressLimitTests.browser(live, from: "198.51.100.\(round + 1)")
            let signIn = try await attacker.preparedSubmit(
                "/login", [("username", name), ("password", TestApp.password)], formPage: "/login")

            async let changed = Self.send(change, to: live.port, after: max(0, -offset))
            async let signedIn = Self.send(signIn, to: live.port, after: max(0, offset))
            let (changeAnswer, signInAnswer) = try await (changed, signedIn)
            #expect(changeAnswer.status == 303, "round \(round): the owner's change")
            outcomes.append("\(offset) ms: \(signInAnswer.status)")

            // The attacker's browser, with whatever cookie its sign-in set.
            var after = attacker
            after.keepCookies(of: signInAnswer)
            if signInAnswer.status == 303 {
                let page = try await after.get("/profile/edit")
                if page.status != 303 { survivors.append(offset) }
            }
            // And the new password works, so the change really held.
            var fresh = AddressLimitTests.browser(live, from: "203.0.113.\(round + 1)")
            let again = try await fresh.submit("/login", [("username", name), ("password", "new pass \(round)!")], formPage: "/login")
            #expect(again.status == 303, "round \(round): the new password signs in")
        }
        print("PasswordRaceTests: the attacker's sign-in at each offset: \(outcomes.joined(separator: ", "))")
        #expect(survivors.isEmpty, "sessions that outlived the change, by offset: \(survivors)")
        await live.stop()
    }

    static func send(_ request: [UInt8], to port: Int, after milliseconds: Int) async throws -> ClientResponse {
        if milliseconds > 0 { try await Task.sleep(for: .milliseconds(milliseconds)) }
        return try await SocketClient.exchangeOnce(port: port, request)
    }
}
