import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Characters no field may hold (SPEC.md "Rules and answers"), typed into every field a person
/// types into, over a real socket: each is a 422 page with a message naming the character beside
/// its field, what was typed kept (never a password), nothing stored, and never a 500. A search
/// ignores them. A quote's text may hold tabs and line breaks.
/// Serialized: each case starts a server and signs up (a memory-hard hash), and 20 of them at
/// once on two cores under ThreadSanitizer outlast the browser's 10 s patience.
@Suite(.serialized) struct TypedInputTests {
    /// NUL, a C0 control (BEL), a C1 control (CSI), and U+202E RIGHT-TO-LEFT OVERRIDE.
    static let refused: [Unicode.Scalar] = ["\u{0}", "\u{7}", "\u{9B}", "\u{202E}"]

    /// A server in this process on a fresh app, and a browser with no cookies.
    static func withServer(_ body: (TestApp, inout SocketBrowser) async throws -> Void) async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        var browser = SocketBrowser(port: live.port)
        do {
            try await body(app, &browser)
        } catch {
            Issue.record(error)
        }
        await live.stop()
        await app.close()
    }

    /// The text of the field error `id` on `page`, or nil.
    static func fieldError(_ id: String, in page: ClientResponse) -> String? {
        guard let start = page.text.range(of: "id=\"\(id)\">") else { return nil }
        return String(page.text[start.upperBound...].prefix { $0 != "<" })
    }

    /// `page` is the form again with status 422 and, beside field `errorID`, a message naming
    /// `scalar`; a control character it echoes is shown as U+FFFD, so the page stays valid HTML.
    static func expectRefused(
        _ page: ClientResponse, _ scalar: Unicode.Scalar, beside errorID: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(page.status == 422, sourceLocation: sourceLocation)
        let message = fieldError(errorID, in: page) ?? "no message"
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let codePoint = "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        #expect(message.contains(codePoint), "\(message)", sourceLocation: sourceLocation)
        if scalar.value < 0xA0 { #expect(!page.text.unicodeScalars.contains(scalar), sourceLocation: sourceLocation) }
    }

    @Test(arguments: refused)
    func signUpRefusesTheCharacterInEachField(_ scalar: Unicode.Scalar) async throws {
        let c = String(scalar)
        try await Self.withServer { app, browser in
            let password = "correct horse battery"
            let username = try await browser.submit(
                "/signup", [("username", "ada" + c), ("display_name", "Ada"), ("password", password), ("password_confirmation", password)],
                formPage: "/signup")
            Self.expectRefused(username, scalar, beside: "username-error")
            #expect(username.text.contains("value=\"ada"))
            #expect(!username.text.contains(password))

            let name = try await browser.submit(
                "/signup", [("username", "ada"), ("display_name", "Ada" + c), ("password", password), ("password_confirmation", password)],
                formPage: "/signup")
            Self.expectRefused(name, scalar, beside: "display-name-error")
            #expect(name.text.contains("value=\"ada\""))

            // Before the rule, a NUL here reached crypt, which refused it: a 500.
            let refusedPassword = "aaaaaaaa" + c
            let secret = try await browser.submit(
                "/signup",
                [("username", "ada"), ("display_name", "Ada"), ("password", refusedPassword), ("password_confirmation", refusedPassword)],
                formPage: "/signup")
            Self.expectRefused(secret, scalar, beside: "password-error")
            #expect(!secret.text.contains("aaaaaaaa"))
            #expect(secret.text.contains("value=\"ada\""))
            #expect(app.store.state.users.isEmpty)
        }
    }

    @Test(arguments: refused)
    func signInRefusesTheCharacterInTheUsernameAndFailsItInThePassword(_ scalar: Unicode.Scalar) async throws {
        let c = String(scalar)
        try await Self.withServer { app, browser in
            #expect(try await browser.signUp("ada").status == 303)
            var visitor = SocketBrowser(port: browser.port)
            let username = try await visitor.submit(
                "/login", [("username", "ada" + c), ("password", "correct horse battery")], formPage: "/login")
            Self.expectRefused(username, scalar, beside: "username-error")
            #expect(!username.text.contains("correct horse battery"))
            let password = try await visitor.submit(
                "/login", [("username", "ada"), ("password", "correct horse battery" + c)], formPage: "/login")
            #expect(password.status == 401)
            #expect(visitor.cookies["quotebook_session"] == nil)
        }
    }

    @Test(arguments: refused)
    func quotesRefuseTheCharacterInTextAndAuthorWhenAddedAndEdited(_ scalar: Unicode.Scalar) async throws {
        let c = String(scalar)
        try await Self.withServer { app, browser in
            #expect(try await browser.signUp("ada").status == 303)
            let before = app.store.state.quotes
            let newText = try await browser.submit("/quotes", [("text", "Fi" + c + "ne"), ("author", "Ada")], formPage: "/quotes/new")
            Self.expectRefused(newText, scalar, beside: "text-error")
            #expect(newText.text.contains("value=\"Ada\""))
            let newAuthor = try await browser.submit("/quotes", [("text", "Fine"), ("author", "A" + c + "da")], formPage: "/quotes/new")
            Self.expectRefused(newAuthor, scalar, beside: "author-error")
            #expect(newAuthor.text.contains(">Fine</textarea>"))

            let editText = try await browser.submit(
                "/quotes/1", [("text", c + "Fine"), ("author", "Ada"), ("version", "1")], formPage: "/quotes/1/edit")
            Self.expectRefused(editText, scalar, beside: "text-error")
            let editAuthor = try await browser.submit(
                "/quotes/1", [("text", "Fine"), ("author", "Ada" + c), ("version", "1")], formPage: "/quotes/1/edit")
            Self.expectRefused(editAuthor, scalar, beside: "author-error")
            #expect(app.store.state.quotes == before)
        }
    }

    @Test(arguments: refused)
    func theDisplayNameOfAProfileRefusesTheCharacter(_ scalar: Unicode.Scalar) async throws {
        try await Self.withServer { app, browser in
            #expect(try await browser.signUp("ada").status == 303)
            let page = try await browser.submit(
                "/profile/name", [("display_name", "Ada " + String(scalar) + "Lovelace")], formPage: "/profile/edit")
            Self.expectRefused(page, scalar, beside: "name-error")
            #expect(app.store.state.user(named: try #require(Username("ada")))?.displayName == "ada")
        }
    }

    @Test(arguments: refused)
    func aSearchIgnoresTheCharacter(_ scalar: Unicode.Scalar) async throws {
        try await Self.withServer { _, browser in
            let page = try await browser.get("/quotes?q=" + URLEncodedForm.encode("Ein" + String(scalar) + "stein"))
            #expect(page.status == 200)
            #expect(page.text.contains("Two things are infinite"))
            #expect(page.text.contains("Quotes matching “Einstein”"))
            #expect(!page.text.unicodeScalars.contains(scalar))
        }
    }

    @Test func aQuoteTextMayHoldTabsAndLineBreaksButItsAuthorMayNot() async throws {
        try await Self.withServer { app, browser in
            #expect(try await browser.signUp("ada").status == 303)
            let text = "Line one,\r\n\tline two,\nline three."
            let added = try await browser.submit("/quotes", [("text", text), ("author", "Ada")], formPage: "/quotes/new")
            #expect(added.status == 303)
            #expect(added.header("Location") == "/quotes/2")
            #expect(app.store.state.quotes[QuoteID(2)]?.text == text)
            let edited = try await browser.submit(
                "/quotes/2", [("text", "Tab\tseparated"), ("author", "Ada"), ("version", "1")], formPage: "/quotes/2/edit")
            #expect(edited.status == 303)
            #expect(app.store.state.quotes[QuoteID(2)]?.text == "Tab\tseparated")
            let author = try await browser.submit("/quotes", [("text", "Fine"), ("author", "Ada\tLovelace")], formPage: "/quotes/new")
            #expect(author.status == 422)
            #expect(Self.fieldError("author-error", in: author) == "Please write who said it on one line, without tabs or line breaks.")
        }
    }
}
