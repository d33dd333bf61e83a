import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Issue 29's lockout, over real sockets: three attacker addresses keep guessing at Ada's
/// username (each guess refused by the lock still costs its address), while the browser she
/// signed up in, carrying the signed `quotebook_device` cookie, signs in, and her own password
/// change goes through. A browser that does not know her still meets the lock.
@Suite struct KnownDeviceTests {
    static let attackers = ["198.51.100.21", "198.51.100.22", "198.51.100.23"]

    @Test func threeAttackerAddressesCannotLockTheOwnersKnownBrowserOut() async throws {
        let app = try await TestApp()
        let live = try AddressLimitTests.serve(app)
        var owner = AddressLimitTests.browser(live, from: AddressLimitTests.neighbour)
        let signUp = try await owner.signUp("ada")
        #expect(signUp.status == 303)
        let cookie = try #require(signUp.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("quotebook_device=") }?.1)
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Max-Age=31536000"), "\(cookie)")
        #expect(try await owner.submit("/logout", [], formPage: "/profile/edit").status == 303)
        #expect(owner.cookies["quotebook_device"] != nil, "signing out keeps the browser known")

        // Seven wrong guesses from each attacker address, all at once.
        var guesses: [[UInt8]] = []
        for address in Self.attackers {
            var attacker = AddressLimitTests.browser(live, from: address)
            let token = try await attacker.csrfToken(from: "/login")
            for _ in 0..<7 { guesses.append(attacker.preparedPost("/login", [("username", "ada"), ("password", "a guess")], token: token)) }
        }
        let statuses = try await SocketClient.statusesAtOnce(port: live.port, guesses)
        // At most five are checked (401); the rest are refused unchecked (429), by the username's
        // limit or by the address's share of the hashing pool.
        #expect(statuses.filter { $0 == 401 }.count <= 5, "\(statuses.sorted())")
        #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 } && statuses.count == 21, "\(statuses.sorted())")

        var stranger = AddressLimitTests.browser(live, from: "203.0.113.77")
        let refused = try await stranger.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
        #expect(refused.status == 429, "a browser Ada never used meets the lock, right password or not")

        let known = try await owner.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
        #expect(known.status == 303, "her own browser signs in")
        #expect(try await owner.get("/profile/edit").status == 200)
        let changed = try await owner.submit(
            "/profile/password",
            [("current_password", TestApp.password), ("password", "a new passphrase"), ("password_confirmation", "a new passphrase")],
            formPage: "/profile/password")
        #expect(changed.status == 303, "and changes her password while the username is locked")

        // Each address spent 7 of its 20 sign-ins, refused or not: 13 more each, then 429 for it alone.
        var attacker = AddressLimitTests.browser(live, from: Self.attackers[0])
        let token = try await attacker.csrfToken(from: "/login")
        var last = 0
        for _ in 0..<14 {
            last = try await SocketClient.exchangeOnce(
                port: live.port, attacker.preparedPost("/login", [("username", "bob"), ("password", "a guess")], token: token)
            ).status
        }
        #expect(last == 429)
        await live.stop()
    }
}
