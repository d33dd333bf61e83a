import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// A person's photo beside the quotes they added, on every page that shows quote cards (home,
/// the list, a search, the quote's page), through the coordinator tree; none without a photo or
/// after the account is deleted, and never an old one from a kept page, skeleton or `ETag`.
@Suite struct PhotosBesideQuotesTests {
    static let text = "Zebras never change their stripes"

    /// Ada (with `photo` when given) adds a quote; the app, her browser and the quote's id.
    func adaAddsAQuote(photo variant: Int?) async throws -> (TestApp, TestBrowser, QuoteID) {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada", displayName: "Ada Lovelace")
        if let variant { #expect(try await upload(variant, as: &ada) == .seeOther) }
        #expect(try await ada.submit("/quotes", ["text": Self.text, "author": "A proverb"], formPage: "/quotes/new").status == .seeOther)
        let id = try #require(app.store.state.newestQuotes(limit: 1).first?.id)
        return (app, ada, id)
    }

    func upload(_ variant: Int, as browser: inout TestBrowser) async throws -> HTTPStatus {
        let bytes = try await TestPhotos.png(variant)
        return try await browser.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes).status
    }

    /// Every page that shows the quote as a card: home, the list, a search, its own page.
    func pages(of id: QuoteID) -> [String] { ["/", "/quotes", "/quotes?q=zebras", "/quotes/\(id)"] }

    /// Ada's photo as the page at `path` shows it beside her quote, at the versions `app` holds now.
    func adasPhoto(on path: String, in app: TestApp) throws -> String {
        let photo = try #require(app.store.state.user(named: Username("ada")!)?.photo)
        let (small, large) = (String(photo.small!.prefix(16)), String(photo.hash.prefix(16)))
        // On the quote's page it goes before her name, a line high, and adds no text; in lists it says who added the quote.
        let (alt, size) = path.hasPrefix("/quotes/") ? ("", 28) : ("Added by Ada Lovelace", 48)
        return "<img class=\"avatar\" src=\"/users/ada/photo/small?v=\(small)\" srcset=\"/users/ada/photo/small?v=\(small) 96w, "
            + "/users/ada/photo?v=\(large) 512w\" sizes=\"\(size)px\" alt=\"\(alt)\" width=\"\(size)\" height=\"\(size)\">"
    }

    @Test func aQuoteOfSomeoneWithAPhotoShowsItOnEveryPageThatListsIt() async throws {
        let (app, ada, id) = try await adaAddsAQuote(photo: 5)
        for path in pages(of: id) {
            for var browser in [app.browser(), ada] {
                let page = await browser.get(path)
                #expect(page.status == .ok, "\(path)")
                let expected = try adasPhoto(on: path, in: app)
                #expect(page.text.contains(expected), "\(path): \(page.text)")
                // Einstein's quote, added by no one, has none; Ada's has one, beside it on home twice (favourite and list).
                #expect(page.text.components(separatedBy: "<img ").count - 1 == (path == "/" ? 2 : 1), "\(path)")
            }
        }
        // On the quote's page it is in the link to her profile, before her name.
        let quotePage = await app.get("/quotes/\(id)").text
        let photo = try adasPhoto(on: "/quotes/\(id)", in: app)
        #expect(quotePage.contains("<a href=\"/users/ada\">\(photo)Ada Lovelace</a>"))
        await app.close()
    }

    @Test func aQuoteOfSomeoneWithoutAPhotoShowsNone() async throws {
        let (app, ada, id) = try await adaAddsAQuote(photo: nil)
        for path in pages(of: id) {
            let page = await app.get(path)
            #expect(page.status == .ok && page.text.contains("Zebras"), "\(path)")
            #expect(!page.text.contains("<img"), "\(path)")
        }
        // A photo removed goes from every page too.
        var browser = ada
        #expect(try await upload(7, as: &browser) == .seeOther)
        #expect(await app.get("/quotes").text.contains("<img class=\"avatar\""))
        #expect(try await browser.submit("/profile/photo/delete", [:]).status == .seeOther)
        for path in pages(of: id) { #expect(!(await browser.get(path)).text.contains("<img"), "\(path)") }
        await app.close()
    }

    @Test func aDeletedAccountsQuotesShowNoPhoto() async throws {
        let (app, ada, id) = try await adaAddsAQuote(photo: 5)
        var browser = ada
        #expect(try await browser.submit("/profile/delete", ["password": TestApp.password], formPage: "/profile/delete").status == .seeOther)
        for path in pages(of: id) {
            let page = await app.get(path)
            #expect(page.status == .ok && page.text.contains("Zebras"), "\(path)")
            #expect(!page.text.contains("<img") && !page.text.contains("/users/ada"), "\(path)")
        }
        #expect(await app.get("/quotes/\(id)").text.contains("a former member"))
        await app.close()
    }

    /// A new photo gives every page that shows it a new `ETag` and its new address, signed out
    /// (the kept finished pages) and signed in (the pages' shared skeletons), with no render
    /// in between that could have been told.
    @Test func aNewPhotoIsOnEveryPageAtOnceNeverAKeptOldOne() async throws {
        let (app, ada, id) = try await adaAddsAQuote(photo: 5)
        var browser = ada
        var before: [String: (tag: String, photo: String)] = [:]
        for path in pages(of: id) {
            // Twice each, so the second answer comes from what was kept.
            for _ in 0..<2 {
                let photo = try adasPhoto(on: path, in: app)
                let signedIn = await browser.get(path)
                let signedOut = await app.get(path)
                #expect(signedOut.text.contains(photo) && signedIn.text.contains(photo), "\(path)")
                let tag = try #require(signedOut.headers["ETag"])
                before[path] = (tag, photo)
                #expect(await app.get(path, ifNoneMatch: tag).status == .notModified, "\(path): unchanged")
            }
        }
        #expect(try await upload(6, as: &browser) == .seeOther)
        for path in pages(of: id) {
            let old = try #require(before[path])
            let now = try adasPhoto(on: path, in: app)
            #expect(now != old.photo)
            let signedOut = await app.get(path, ifNoneMatch: old.tag)
            #expect(signedOut.status == .ok, "\(path): the old ETag no longer matches")
            #expect(signedOut.headers["ETag"] != old.tag)
            #expect(signedOut.text.contains(now) && !signedOut.text.contains(old.photo), "\(path) signed out")
            let signedIn = await browser.get(path)
            #expect(signedIn.text.contains(now) && !signedIn.text.contains(old.photo), "\(path) signed in")
        }
        await app.close()
    }
}

extension TestApp {
    /// A signed-out GET revalidating the page it was given `tag` for.
    fileprivate func get(_ target: String, ifNoneMatch tag: String) async -> HTTPResponse {
        await respond(HTTPRequest(method: .get, target: target, headers: ["Host": "test", "If-None-Match": tag]))
    }
}
