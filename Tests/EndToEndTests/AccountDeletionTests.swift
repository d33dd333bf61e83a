import App
import Foundation
import HTTPServer
import Logging
import Mail
import Store
import StoreBackend
import StoreSQLite
import TestSupport
import Testing

/// Deleting an account (`/profile/delete`): the password confirms it; the account, its sessions,
/// photo, favourite and password go; its quotes and versions stay by "a former member"; and no
/// file of the book holds the person's name or password hash afterwards.
@Suite struct AccountDeletionTests {
    static let username = "zelda_erasable"
    static let displayName = "Zelda Quillfeather"

    @Test func theFormSaysWhatHappensIsPrivateLabelledAndCarriesTheToken() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let page = await browser.get("/profile/delete")
        #expect(page.status == .ok)
        #expect(page.headers["Cache-Control"] == "private, no-cache")
        #expect(page.text.contains("<label for=\"password\">"))
        #expect(page.text.contains("a former member"))
        #expect(page.text.contains("name=\"csrf_token\""))
        #expect(await browser.get("/profile/edit").text.contains("href=\"/profile/delete\""))
        #expect(await app.get("/profile/delete").status == .seeOther, "signed out: to the sign-in page")
        #expect(await app.post("/profile/delete", form: ["password": TestApp.password]).status == .forbidden, "no token")
    }

    @Test func aWrongPasswordIs422CountsTowardsTheThrottleAndDeletesNothing() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        for _ in 0..<5 {
            let wrong = try await browser.submit("/profile/delete", ["password": "not my password"], formPage: "/profile/delete")
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("That is not your current password."))
            #expect(!wrong.text.contains("not my password"))
        }
        let locked = try await browser.submit("/profile/delete", ["password": TestApp.password], formPage: "/profile/delete")
        #expect(locked.status == .tooManyRequests)
        #expect(app.store.state.user(named: Username("ada")!) != nil)
        // Without its token a right password changes nothing either.
        #expect(await browser.post("/profile/delete", ["password": TestApp.password]).status == .forbidden)
        #expect(app.store.state.user(named: Username("ada")!) != nil)
    }

    @Test func markupAndAHugePasswordAreWrongPasswordsNeverShownAndDeleteNothing() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        for typed in ["<script>alert(1)</script>", "<b>" + String(repeating: "x", count: 40_000)] {
            let answer = try await browser.submit("/profile/delete", ["password": typed], formPage: "/profile/delete")
            #expect(answer.status == .unprocessableContent)
            #expect(!answer.text.contains("<script>alert") && !answer.text.contains("<b>xxxx"))
        }
        #expect(app.store.state.user(named: Username("ada")!) != nil)
        #expect(await browser.get("/profile/edit").status == .ok, "still signed in")
    }

    @Test func deletingSignsOutEverywhereKeepsTheQuotesAndLeavesNoTraceInAnyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = SQLiteJournal.path(inDirectory: directory.url)
        let app = try await TestApp(journalPath: path)
        var zelda = try await app.signedIn(Self.username, displayName: Self.displayName)
        var phone = app.browser()
        #expect(try await phone.submit("/login", ["username": Self.username, "password": TestApp.password], formPage: "/login").status == .seeOther)
        #expect(try await zelda.submit("/quotes", ["text": "Words that outlive their maker", "author": "Anonymous"], formPage: "/quotes/new").status == .seeOther)
        let quote = try #require(app.store.state.newestQuotes(limit: 1).first)
        #expect(try await zelda.submit("/quotes/\(quote.id)", ["text": "Words that outlive their maker, edited", "author": "Anonymous", "version": "1"], formPage: "/quotes/\(quote.id)/edit").status == .seeOther)
        #expect(try await zelda.submit("/quotes/\(quote.id)/favorite", [:], formPage: "/quotes/\(quote.id)").status == .seeOther)
        #expect(try await zelda.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: try await TestPhotos.png(3)).status == .seeOther)
        // A verified address, and a new one waiting for its link, whose mail is still in the outbox.
        let addresses = ["zelda@old.example", "zelda@new.example"]
        #expect(try await zelda.submit("/profile/email", ["email": addresses[0], "current_password": TestApp.password], formPage: "/profile/email").status == .seeOther)
        let mail = try #require(await app.deliverMail().last)
        let token = try #require(mail.text.components(separatedBy: "?token=").dropFirst().first?.prefix { !$0.isWhitespace })
        #expect(try await zelda.submit("/email/verify", ["token": String(token)], formPage: "/email/verify?token=\(token)").status == .seeOther)
        #expect(try await zelda.submit("/profile/email", ["email": addresses[1], "current_password": TestApp.password], formPage: "/profile/email").status == .seeOther)
        let id = try #require(app.store.state.user(named: Username(Self.username)!)?.id)
        #expect(try await app.mailStorage.addresses(of: id) == EmailAddresses(verified: addresses[0], pending: addresses[1]))
        let hash = try #require(try await app.sessionStorage.passwordHash(of: id)).encoded
        let photoHashes = try await app.photoStorage.storedHashes()
        #expect(photoHashes.count == 2, "the 512 px and 96 px versions")
        // Runs of each photo's own bytes, from its middle: what a file still holding it would show.
        var photoSamples: [[UInt8]] = []
        for hash in photoHashes {
            let bytes = try #require(try await app.photoStorage.photo(hash: hash)).bytes
            photoSamples.append(Array(bytes[bytes.count / 2..<bytes.count / 2 + 24]))
        }
        /// The files of the book that hold any of what named her (her name, display name,
        /// password hash, addresses, photo hashes) or a run of her photo's bytes.
        func filesHoldingHer() throws -> [String] {
            var holding: [String] = []
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
                let bytes = try #require(FileManager.default.contents(atPath: directory.url.appendingPathComponent(name).path))
                let text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
                for secret in [Self.username, Self.displayName, hash] + photoHashes + addresses where text.contains(secret) {
                    holding.append("\(name): \(secret.prefix(12))…")
                }
                for sample in photoSamples where bytes.firstRange(of: sample) != nil { holding.append("\(name): photo bytes") }
            }
            return holding
        }
        // The book's own files are SQLite's (on PostgreSQL the directory holds none of it).
        let filesAreTheBook = !TestBackend.isPostgres
        if filesAreTheBook { #expect(try filesHoldingHer().count > 0, "the check can see her before the deletion") }

        let deleted = try await zelda.submit("/profile/delete", ["password": TestApp.password], formPage: "/profile/delete")
        #expect(deleted.status == .seeOther)
        #expect(deleted.headers["Location"] == "/")
        #expect(await zelda.get("/profile").status == .seeOther, "signed out here")
        #expect(await phone.get("/profile").status == .seeOther, "and on the phone")
        #expect(try await app.sessionStorage.sessions(of: id).isEmpty)
        #expect(try await app.sessionStorage.passwordHash(of: id) == nil)
        #expect(try await app.mailStorage.addresses(of: id) == EmailAddresses())
        #expect(try await app.mailStorage.claimMail(now: TestApp.fixedNow, lease: 1, limit: 10).isEmpty, "the unsent mail went too")
        #expect(try await app.photoStorage.storedHashes().isEmpty, "the photo's bytes are freed")
        // While the server still runs, as after a crash now: not only once a close checkpoints.
        if filesAreTheBook { #expect(try filesHoldingHer() == [], "right after the deletion") }
        #expect(await app.get("/users/\(Self.username)").status == .notFound)
        let page = await app.get("/quotes/\(quote.id)")
        #expect(page.text.contains("a former member"))
        #expect(!page.text.contains(Self.displayName) && !page.text.contains("/users/\(Self.username)"))
        let history = await app.get("/quotes/\(quote.id)/history")
        #expect(history.text.contains("a former member") && !history.text.contains(Self.displayName))
        // Restoring the version she made brings her words back, never her name.
        var grace = try await app.signedIn("grace")
        let restored = try await grace.submit("/quotes/\(quote.id)/restore", ["version": "1"], formPage: "/quotes/\(quote.id)/history")
        #expect(restored.status == .seeOther)
        let afterRestore = await app.get("/quotes/\(quote.id)/history")
        #expect(afterRestore.text.contains("a former member") && !afterRestore.text.contains(Self.displayName))
        #expect(app.store.state.quotes[quote.id]?.text == "Words that outlive their maker")
        var stranger = app.browser()
        let signIn = try await stranger.submit("/login", ["username": Self.username, "password": TestApp.password], formPage: "/login")
        #expect(signIn.status == .unauthorized)
        await app.close()

        // After the close too: no file of the book holds the name, display name, hash, photo or
        // either address.
        if filesAreTheBook { #expect(try filesHoldingHer() == [], "after the close") }

        // `quotebook check`: the erased journal replays to the snapshot taken after the deletion.
        if try TestBackend.current() == .sqlite {
            let book = try await Backend.sqliteFile(path: path).openForCheck(logger: .discarding())
            let check = CheckCommand.run(journal: book.journal, sessionUserIDs: book.sessionUserIDs, photoHashes: book.photoHashes)
            book.journal.close()
            #expect(check.exitCode == 0, "\(check.differences)")
        }

        // A fresh start replays to the same book, and the username is free for someone new.
        let again = try await TestApp(journalPath: path)
        #expect(again.store.state.quotes[quote.id]?.text == "Words that outlive their maker")
        #expect(await again.get("/quotes/\(quote.id)").text.contains("a former member"))
        let newcomer = try await again.signedIn(Self.username, displayName: "Someone Else")
        _ = newcomer
        #expect(again.store.state.user(named: Username(Self.username)!)?.id != id)
        #expect(await again.get("/quotes/\(quote.id)").text.contains("a former member"), "a new owner of the name is not the old one")
        await again.close()
    }
}
