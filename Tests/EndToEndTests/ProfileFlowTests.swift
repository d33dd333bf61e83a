import App
import Basics
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Profiles, photos and favourites through the coordinator tree.
@Suite struct ProfileFlowTests {
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

    @Test func aPhotoIsServedAsTwoWebPSquaresWithETagsAnd304() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        #expect(await app.get("/users/ada/photo").status == .notFound)
        let jpeg = try await TestPhotos.file("oriented.jpg")
        let upload = try await browser.upload("/profile/photo", field: "photo", filename: "me.txt", contentType: "text/plain", bytes: jpeg)
        #expect(upload.status == .seeOther)
        #expect(upload.headers["Location"] == "/users/ada")
        // The journal records the two hashes, never the bytes.
        let reference = try #require(app.store.state.users[UserID(1)]?.photo)
        let small = try #require(reference.small)
        let (largeURL, smallURL) = ("/users/ada/photo?v=\(reference.hash.prefix(16))", "/users/ada/photo/small?v=\(small.prefix(16))")
        for (path, hash) in [(largeURL, reference.hash), (smallURL, small)] {
            let photo = await app.get(path)
            #expect(photo.status == .ok)
            #expect(photo.headers["Content-Type"] == "image/webp")
            #expect(Array(photo.body.prefix(4)) == Array("RIFF".utf8))
            #expect(Hex.encode(SHA256.hash(photo.body)) == hash)
            let etag = try #require(photo.headers["ETag"])
            #expect(etag == "\"\(hash)\"")
            #expect(photo.headers["Cache-Control"] == "public, max-age=31536000, immutable")
            #expect(photo.headers["X-Content-Type-Options"] == "nosniff")
            let again = await app.respond(HTTPRequest(method: .get, target: path, headers: ["Host": "t", "If-None-Match": etag]))
            #expect(again.status == .notModified)
            #expect(again.body.isEmpty)
        }
        // oriented.jpg carries EXIF (a GPS position), XMP, IPTC and a comment, each with the secret.
        let secret = Array(try await offPool { try PhotoFixtures.shared().text("secret") }.utf8)
        #expect(Self.contains(jpeg, secret))
        for path in [largeURL, smallURL] {
            let body = await app.get(path).body
            #expect(!Self.contains(body, secret) && !Self.contains(body, Array("Exif".utf8)) && !Self.contains(body, Array("GPS".utf8)))
        }
        let unversioned = await app.get("/users/ada/photo")
        #expect(unversioned.headers["Cache-Control"] == "public, no-cache", "an address without the current version is revalidated")
        #expect(await app.get("/users/ada/photo?v=0000").headers["Cache-Control"] == "public, no-cache")
        #expect(unversioned.body != jpeg)
        let page = await app.get("/users/ada").text
        #expect(page.contains(
            "<img class=\"avatar\" src=\"\(smallURL)\" srcset=\"\(smallURL) 96w, \(largeURL) 512w\" sizes=\"96px\" alt=\"Photo of Ada\" width=\"96\" height=\"96\">"))

        let removed = try await browser.submit("/profile/photo/delete", [:])
        #expect(removed.status == .seeOther)
        #expect(await app.get("/users/ada/photo").status == .notFound)
        #expect(await app.get("/users/ada/photo/small").status == .notFound)
        #expect(try await app.photoStorage.storedHashes().isEmpty)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test func aFileThatIsNotAnImageIs415AndNothingChanges() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        for bytes in [Array("<svg xmlns='http://www.w3.org/2000/svg'></svg>".utf8), try await TestPhotos.file("text.jpg")] {
            let response = try await browser.upload("/profile/photo", field: "photo", filename: "cat.jpg", contentType: "image/jpeg", bytes: bytes)
            #expect(response.status == .unsupportedMediaType)
            #expect(response.text.contains("<p class=\"field-error\" id=\"photo-error\" role=\"alert\">That file is not a JPEG, PNG, WebP, GIF or HEIC image."))
        }
        #expect(app.store.state.users[UserID(1)]?.photo == nil)
    }

    @Test(arguments: [
        ("truncated.jpg", "That image could not be read"),
        ("bomb.png", "That image is too large to process (60000 × 60000 pixels"),
    ])
    func aDamagedImageOrABombIs422(_ name: String, message: String) async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let bytes = try await TestPhotos.file(name)
        let response = try await browser.upload("/profile/photo", field: "photo", filename: name, contentType: "image/png", bytes: bytes)
        #expect(response.status == .unprocessableContent)
        #expect(response.text.contains("<p class=\"field-error\" id=\"photo-error\" role=\"alert\">\(message)"))
        #expect(response.text.contains("<form method=\"post\" action=\"/profile/photo\""), "the form again, in the layout")
        #expect(app.store.state.users[UserID(1)]?.photo == nil)
    }

    @Test(arguments: ["photo.heic", "alpha.png", "animated.gif", "photo.webp"])
    func phonePhotosAndEveryOtherAcceptedFormatAreAccepted(_ name: String) async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = try await browser.upload(
            "/profile/photo", field: "photo", filename: name, contentType: "application/octet-stream", bytes: try await TestPhotos.file(name))
        #expect(response.status == .seeOther)
        #expect(await app.get("/users/ada/photo").headers["Content-Type"] == "image/webp")
    }

    @Test func anImageOver20MiBIs413() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let big = try await TestPhotos.png(0) + [UInt8](repeating: 0, count: 20 * 1024 * 1024)
        let response = try await browser.upload("/profile/photo", field: "photo", filename: "big.png", contentType: "image/png", bytes: big)
        #expect(response.status == .contentTooLarge)
        #expect(response.text.contains("larger than 20 MiB"))
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
        _ = try await browser.upload("/profile/photo", field: "photo", filename: "a.png", contentType: "image/png", bytes: try await TestPhotos.png(2))
        for path in ["/users/ada", "/users/ada/photo", "/users/ada/photo/small", "/quotes"] {
            #expect(await app.respond(HTTPRequest(method: .head, target: path, headers: ["Host": "t"])).status == .ok)
        }
    }

    /// A profile lists the quotes its person added 20 a page, newest first, as the book does:
    /// a pager past the first page, the numbering going on, its own title, and a 404 naming the
    /// pages for a page that is not there. Quotes added by others are not theirs.
    @Test func theProfilePagesTheQuotesTheyAdded() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        let id = try #require(app.store.state.user(named: Username("ada")!)?.id)
        for index in 1...25 {
            _ = try await app.store.dispatch(.addQuote(QuoteDraft(text: "Mine \(index)", author: "A"), by: id, at: TestApp.fixedNow)).get()
        }
        _ = try await app.store.dispatch(.addQuote(QuoteDraft(text: "Not hers", author: "B"), by: nil, at: TestApp.fixedNow)).get()
        func shown(_ text: String) -> [Int] {
            text.matches(of: #/“Mine (\d+)”/#).compactMap { Int($0.1) }
        }
        let first = await app.get("/users/ada")
        #expect(first.status == .ok && shown(first.text) == Array((6...25).reversed()))
        #expect(first.text.contains("<ol class=\"quote-list\">") && first.text.contains("Page 1 of 2"))
        #expect(first.text.contains("<a href=\"/users/ada?page=2\" rel=\"next\">Older</a>") && !first.text.contains("rel=\"prev\""))
        #expect(!first.text.contains("Not hers"))
        let second = await ada.get("/users/ada?page=2")
        #expect(second.status == .ok && shown(second.text) == Array((1...5).reversed()))
        #expect(second.text.contains("<ol class=\"quote-list\" start=\"21\">") && second.text.contains("Page 2 of 2"))
        #expect(second.text.contains("<a href=\"/users/ada\" rel=\"prev\">Newer</a>") && !second.text.contains("rel=\"next\""))
        #expect(second.text.contains("<title>Ada, page 2 · Quotebook</title>"), "\(second.text.prefix(400))")
        for missing in [
            "/users/ada?page=3", "/users/ada?page=0", "/users/ada?page=x", "/users/ada?page=02", "/users/ada?page=-1",
            "/users/ada?page=9223372036854775807", "/users/ada?page=99999999999999999999999",
        ] {
            let page = await app.get(missing)
            #expect(page.status == .notFound, "\(missing)")
            #expect(page.text.contains("There is no such page of ada’s quotes. There are 2 pages; the first is at /users/ada."), "\(missing)")
        }
        // Someone with no quotes: one page, no pager.
        _ = try await app.signedIn("bob")
        let bob = await app.get("/users/bob")
        #expect(bob.status == .ok && bob.text.contains("None yet.") && !bob.text.contains("class=\"pager\""))
        #expect(await app.get("/users/bob?page=2").status == .notFound)
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
        #expect(first.contains("<ol class=\"quote-list\">"), "the first page counts from 1")
        let second = await app.get("/quotes?page=2").text
        #expect(second.contains("Two things are infinite"))
        #expect(second.contains("<ol class=\"quote-list\" start=\"21\">"), "the second page counts on from the first")
        #expect(second.contains("href=\"/quotes\""))
        for bad in ["/quotes?page=3", "/quotes?page=0", "/quotes?page=x", "/quotes?page=-1"] {
            #expect(await app.get(bad).status == .notFound)
        }
    }
}
