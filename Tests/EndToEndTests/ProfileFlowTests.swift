import App
import Basics
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Profiles, photos and favourites through the coordinator tree.
@Suite struct ProfileFlowTests {
    /// A real 1×1 PNG.
    static let png: [UInt8] = Hex.decode(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e5e9d90000000049454e44ae426082"
    )!

    @Test func aProfileShowsTheNameAPlaceholderAndTheQuotesAdded() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada", displayName: "Ada Lovelace")
        let page = await browser.get("/users/ada")
        #expect(page.status == .ok)
        #expect(page.text.contains("<h1 id=\"profile-heading\">Ada Lovelace</h1>"))
        #expect(page.text.contains(">AL</span>"))
        #expect(page.text.contains("href=\"/profile/edit\""))
        let other = await app.get("/users/ada")
        #expect(!other.text.contains("href=\"/profile/edit\""), "only the owner is offered Edit profile")
        let mine = await browser.get("/profile")
        #expect(mine.status == .seeOther)
        #expect(mine.headers["Location"] == "/users/ada")
    }

    @Test func changingTheDisplayNameShowsEverywhere() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = try await browser.submit("/profile/name", ["display_name": "  The Countess  "])
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/users/ada")
        #expect(await browser.get("/users/ada").text.contains(">The Countess</h1>"))
        #expect(await browser.get("/").text.contains(">The Countess</a>"))
        let empty = try await browser.submit("/profile/name", ["display_name": "   "])
        #expect(empty.status == .unprocessableContent)
        #expect(empty.text.contains("Please enter the name others see."))
    }

    @Test func aPhotoIsServedWithItsTypeAndAnETagAnd304() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        #expect(await app.get("/users/ada/photo").status == .notFound)
        let upload = try await browser.upload("/profile/photo", field: "photo", filename: "me.txt", contentType: "text/plain", bytes: Self.png)
        #expect(upload.status == .seeOther)
        #expect(upload.headers["Location"] == "/users/ada")
        let photo = await app.get("/users/ada/photo")
        #expect(photo.status == .ok)
        #expect(photo.body == Self.png)
        #expect(photo.headers["Content-Type"] == "image/png")
        let etag = try #require(photo.headers["ETag"])
        #expect(etag == "\"\(Hex.encode(SHA256.hash(Self.png)))\"")
        #expect(photo.headers["Cache-Control"]?.contains("no-cache") == true)
        #expect(photo.headers["X-Content-Type-Options"] == "nosniff")
        let again = await app.respond(HTTPRequest(method: .get, target: "/users/ada/photo", headers: ["Host": "t", "If-None-Match": etag]))
        #expect(again.status == .notModified)
        #expect(again.body.isEmpty)
        #expect(again.headers["X-Content-Type-Options"] == "nosniff")
        let page = await app.get("/users/ada").text
        #expect(page.contains("<img class=\"avatar\" src=\"/users/ada/photo\""))
        // The journal records the hash, never the bytes.
        #expect(app.store.state.users[UserID(1)]?.photo == PhotoReference(hash: Hex.encode(SHA256.hash(Self.png)), mediaType: "image/png"))

        let removed = try await browser.submit("/profile/photo/delete", [:])
        #expect(removed.status == .seeOther)
        #expect(await app.get("/users/ada/photo").status == .notFound)
    }

    @Test func aFileThatIsNotAnImageIs415AndNothingChanges() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        for bytes in [Array("<svg xmlns='http://www.w3.org/2000/svg'></svg>".utf8), Array("<html><script>x</script>".utf8)] {
            let response = try await browser.upload("/profile/photo", field: "photo", filename: "cat.png", contentType: "image/png", bytes: bytes)
            #expect(response.status == .unsupportedMediaType)
            #expect(response.text.contains("not a PNG, JPEG, GIF or WebP image"))
        }
        #expect(app.store.state.users[UserID(1)]?.photo == nil)
    }

    @Test func anImageOver2MiBIs413() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let big = Self.png + [UInt8](repeating: 0, count: 2 * 1024 * 1024)
        let response = try await browser.upload("/profile/photo", field: "photo", filename: "big.png", contentType: "image/png", bytes: big)
        #expect(response.status == .contentTooLarge)
        #expect(response.text.contains("larger than 2 MiB"))
        #expect(app.store.state.users[UserID(1)]?.photo == nil)
    }

    @Test func aMalformedUploadIs400() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = await browser.send(
            HTTPRequest(
                method: .post, target: "/profile/photo",
                headers: ["Host": "t", "Content-Type": "multipart/form-data; boundary=xyz"], body: Array("--xyz\r\nno end".utf8)))
        #expect(response.status == .badRequest)
    }

    @Test func makingAFavouriteShowsOnHomeProfileAndQuote() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = try await browser.submit("/quotes/1/favorite", [:])
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/quotes/1")
        #expect(await browser.get("/quotes/1").text.contains("Your favourite"))
        #expect(await browser.get("/users/ada").text.contains("Two things are infinite"))
        #expect(try await browser.submit("/quotes/9/favorite", [:]).status == .notFound)
    }

    @Test func aQuotePageNamesWhoAddedItLinkedToTheirProfile() async throws {
        let app = try await TestApp()
        _ = try await app.store.dispatch(.signUp(Username("bob")!, displayName: "Bob <B>", at: TestApp.fixedNow))
        _ = try await app.store.dispatch(.addQuote(QuoteDraft(text: "Hi", author: "B"), by: UserID(1), at: TestApp.fixedNow))
        let page = await app.get("/quotes/2").text
        #expect(page.contains("by <a href=\"/users/bob\">Bob &lt;B&gt;</a>"))
        #expect(await app.get("/quotes/1").text.contains("by no one"))
    }

    @Test func headWorksOnProfilesAndPhotos() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        _ = try await browser.upload("/profile/photo", field: "photo", filename: "a.png", contentType: "image/png", bytes: Self.png)
        for path in ["/users/ada", "/users/ada/photo", "/quotes"] {
            #expect(await app.respond(HTTPRequest(method: .head, target: path, headers: ["Host": "t"])).status == .ok)
        }
    }

    @Test func theListPagesTheBook() async throws {
        let app = try await TestApp()
        for index in 2...25 {
            _ = try await app.store.dispatch(.addQuote(QuoteDraft(text: "Quote \(index)", author: "A"), by: nil, at: TestApp.fixedNow))
        }
        let first = await app.get("/quotes").text
        #expect(first.contains("Quote 25"))
        #expect(first.contains("href=\"/quotes?page=2\""))
        #expect(!first.contains("Two things are infinite"))
        let second = await app.get("/quotes?page=2").text
        #expect(second.contains("Two things are infinite"))
        #expect(second.contains("href=\"/quotes\""))
        for bad in ["/quotes?page=3", "/quotes?page=0", "/quotes?page=x", "/quotes?page=-1"] {
            #expect(await app.get(bad).status == .notFound)
        }
    }
}
