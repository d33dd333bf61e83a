import App
import Basics
import Foundation
import HTTPServer
import Store
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
    /// the other 55 and the right password are refused while the five are still under way. Each
    /// guess comes from an address of its own, so only the username's limit stands in the way.
    @Test func sixtyWrongPasswordsAtOnceGetFiveChecksAndTheRightOneIsRefused() async throws {
        let crypt = CountingPasswordCrypt(holdingChecks: true)
        let app = try await TestApp(passwordCrypt: crypt.client)
        _ = try await app.signedIn("ada")
        let live = try AddressLimitTests.serve(app)
        defer { crypt.open() }
        var attacker = SocketBrowser(port: live.port)
        let token = try await attacker.csrfToken(from: "/login")
        let guesses = (1...60).map { index in
            attacker.extraHeaders = [("X-Forwarded-For", "198.51.100.\(index)")]
            return attacker.preparedPost("/login", [("username", "ada"), ("password", "not the password")], token: token)
        }

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for guess in guesses { group.addTask { try await SocketClient.exchangeOnce(port: live.port, guess).status } }
            var statuses: [Int] = []
            // Five checks are held at the gate, so only the refused can answer before it opens.
            while statuses.count < 55, let status = try await group.next() { statuses.append(status) }
            #expect(statuses == Array(repeating: 429, count: 55))
            #expect(crypt.checkCount <= 5)

            var owner = AddressLimitTests.browser(live, from: AddressLimitTests.neighbour)
            let right = try await owner.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
            #expect(right.status == 429)
            #expect(right.header("Retry-After") == "60")
            #expect(right.text.contains("Too many failed tries for this username. Please try again in a minute."))
            #expect(owner.cookies["quotebook_session"] == nil)

            crypt.open()
            while let status = try await group.next() { statuses.append(status) }
            return statuses
        }
        #expect(statuses.filter { $0 == 401 }.count == 5)
        #expect(statuses.filter { $0 == 429 }.count == 55)
        #expect(crypt.checkCount == 5)

        // The fifth failure locked the username: the right password is still refused, unchecked.
        var owner = AddressLimitTests.browser(live, from: AddressLimitTests.neighbour)
        #expect(try await owner.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login").status == 429)
        #expect(crypt.checkCount == 5)
        await live.stop()
    }

    /// Issue 16: a loop of sign-ins with random usernames from one address (one cookie and token)
    /// kept the hashing queue full, and everyone else's sign-ins got 503. Now the address holds
    /// its share of the pool (2 places); the rest of its flood is refused at once, and a
    /// sign-in from another address queues behind at most those two and gets in. The two are
    /// held at the gate meanwhile, so the pool's threads are as busy as a flood can make them.
    @Test func aFloodFromOneAddressLeavesSignInsFromAnotherWorking() async throws {
        let crypt = CountingPasswordCrypt(holdingChecks: true)
        var limits = AccountLimits()
        limits.signInsPerClient = 1_000
        // A queue of 4 behind 2 threads: without shares, the flood alone would fill it.
        let app = try await TestApp(hashingQueueLimit: 4, passwordCrypt: crypt.client, accountLimits: limits)
        _ = try await app.signedIn("ada")
        let live = try AddressLimitTests.serve(app)
        defer { crypt.open() }
        var attacker = AddressLimitTests.browser(live, from: AddressLimitTests.attacker)
        let token = try await attacker.csrfToken(from: "/login")
        let guesses = (0..<30).map { attacker.preparedPost("/login", [("username", "user\($0)"), ("password", "a guess")], token: token) }

        try await withThrowingTaskGroup(of: ClientResponse.self) { group in
            for guess in guesses { group.addTask { try await SocketClient.exchangeOnce(port: live.port, guess) } }
            var refused: [ClientResponse] = []
            // Without shares the flood's jobs fill the queue, fewer answer at once, and this
            // waits out the client's read timeout.
            while refused.count < 28, let response = try await group.next() { refused.append(response) }
            #expect(refused.allSatisfy { $0.status == 429 && $0.header("Retry-After") == "1" })
            #expect(refused.first?.text.contains("Your network has too many sign-ins and sign-ups under way at once.") == true)
            #expect(app.hashingPool.jobCount(of: AddressLimitTests.attacker) == 2)

            var neighbour = AddressLimitTests.browser(live, from: AddressLimitTests.neighbour)
            let form = try await neighbour.preparedSubmit(
                "/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
            async let signedIn = SocketClient.exchangeOnce(port: live.port, form)
            #expect(try await eventually { app.hashingPool.jobCount(of: AddressLimitTests.neighbour) == 1 })
            crypt.open()
            let answer = try await signedIn
            #expect(answer.status == 303)
            #expect(answer.headers.contains { $0.0 == "Set-Cookie" && $0.1.hasPrefix("quotebook_session=") })
            for try await flood in group { #expect(flood.status == 401) }
        }
        #expect(crypt.checkCount == 3)
        await live.stop()
    }
}

/// Sign-ins and sign-ups per client address, with the client named by a trusted proxy's
/// `X-Forwarded-For` (the server's `--trusted-proxies` set-up), so one test has many addresses.
@Suite struct AddressLimitTests {
    static let attacker = "198.51.100.7"
    static let neighbour = "203.0.113.5"

    /// A server in front of `app` that believes `X-Forwarded-For` from 127.0.0.1, as behind nginx.
    static func serve(_ app: TestApp) throws -> LiveServer {
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.trustedProxies = TrustedProxies([try #require(IPAddress("127.0.0.1"))])
        return try LiveServer(responder: app.coordinator, configuration: configuration)
    }

    static func browser(_ live: LiveServer, from address: String) -> SocketBrowser {
        var browser = SocketBrowser(port: live.port)
        browser.extraHeaders = [("X-Forwarded-For", address)]
        return browser
    }

    @Test func anAddressPastItsSignInsGets429InTheLayoutAndOthersStillSignIn() async throws {
        var limits = AccountLimits()
        limits.signInsPerClient = 4
        let app = try await TestApp(accountLimits: limits)
        _ = try await app.signedIn("ada")
        let live = try Self.serve(app)
        var attacker = Self.browser(live, from: Self.attacker)
        for name in ["ada", "bob", "cyd", "dan"] {
            let guess = try await attacker.submit("/login", [("username", name), ("password", "a guess")], formPage: "/login")
            #expect(guess.status == 401)
        }
        let refused = try await attacker.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "600")
        #expect(refused.text.hasPrefix("<!doctype html>"))
        #expect(refused.text.contains("Too many sign-in attempts have come from your network. Please try again in 10 minutes."))
        #expect(refused.text.contains("<form method=\"post\" action=\"/login\""))
        #expect(attacker.cookies["quotebook_session"] == nil)

        var neighbour = Self.browser(live, from: Self.neighbour)
        let signedIn = try await neighbour.submit("/login", [("username", "ada"), ("password", TestApp.password)], formPage: "/login")
        #expect(signedIn.status == 303)
        #expect(neighbour.cookies["quotebook_session"] != nil)
        await live.stop()
    }

    @Test func anAddressPastItsSignUpsGets429AndMakesNoAccount() async throws {
        var limits = AccountLimits()
        limits.signUpsPerClient = 2
        let app = try await TestApp(accountLimits: limits)
        let live = try Self.serve(app)
        for name in ["ada", "bob"] {
            var browser = Self.browser(live, from: Self.attacker)
            #expect(try await browser.signUp(name).status == 303)
        }
        var third = Self.browser(live, from: Self.attacker)
        let refused = try await third.signUp("cyd")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "600")
        #expect(refused.text.contains("Many accounts have been made from your network lately. Please try again in 10 minutes."))
        #expect(refused.text.contains("value=\"cyd\""))
        #expect(app.store.state.user(named: try #require(Username("cyd"))) == nil)

        var neighbour = Self.browser(live, from: Self.neighbour)
        #expect(try await neighbour.signUp("cyd").status == 303)
        await live.stop()
    }
}
