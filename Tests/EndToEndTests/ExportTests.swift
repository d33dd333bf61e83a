import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// `GET /profile/export` over a real socket: a JSON download of the person's profile, the quotes
/// they added and every version they made (deleted quotes' too), and no secret.
@Suite(.serialized) struct ExportTests {
    static let seedText = "Two things are infinite: the universe and human stupidity; and I'm not sure about the universe."

    /// A server in this process on a fresh app.
    static func withServer(_ body: (TestApp, Int) async throws -> Void) async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        do {
            try await body(app, live.port)
        } catch {
            Issue.record(error)
        }
        await live.stop()
        await app.close()
    }

    /// The export `browser` downloads, checked for its headers, parsed.
    static func export(_ browser: inout SocketBrowser, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (
        json: [String: Any], response: ClientResponse
    ) {
        let response = try await browser.get("/profile/export")
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8", sourceLocation: sourceLocation)
        #expect(response.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
        #expect(response.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
        #expect(response.header("Content-Security-Policy")?.contains("default-src 'self'") == true, sourceLocation: sourceLocation)
        #expect(response.header("Referrer-Policy") == "same-origin", sourceLocation: sourceLocation)
        #expect(response.header("ETag") == nil, "a download is not revalidated", sourceLocation: sourceLocation)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (json, response)
    }

    /// Each version as `[quote_id, version, kind]`.
    static func versionKeys(_ json: [String: Any]) -> [[String]] {
        (json["versions"] as? [[String: Any]] ?? []).map { version in
            ["quote_id", "version", "kind"].map { "\(version[$0] ?? "missing")" }
        }
    }

    @Test func theExportHoldsTheProfileQuotesAndEveryVersionMadeAndNoSecret() async throws {
        try await Self.withServer { app, port in
            var ada = SocketBrowser(port: port)
            #expect(try await ada.signUp("ada").status == 303)
            let edit = try await ada.get("/profile/edit")
            #expect(edit.text.contains("<a href=\"/profile/export\">Download your data</a>"))
            // Quote 1 is the seed, no one's: ada edits it (v2), then restores v1 (v3).
            let added = try await ada.submit("/quotes", [("text", "Ada's own"), ("author", "Ada")], formPage: "/quotes/new")
            #expect(added.header("Location") == "/quotes/2")
            let edited = try await ada.submit(
                "/quotes/1", [("text", "Edited by Ada"), ("author", "Einstein"), ("version", "1")], formPage: "/quotes/1/edit")
            #expect(edited.status == 303)
            let restore = try await ada.submit("/quotes/1/restore", [("version", "1")], formPage: "/quotes/1/history")
            #expect(restore.status == 303)
            #expect(try await ada.submit("/quotes/2/favorite", [], formPage: "/quotes/2").status == 303)
            // Quote 3: added, then deleted; its version stays in the export.
            #expect(try await ada.submit("/quotes", [("text", "Gone soon"), ("author", "Ada")], formPage: "/quotes/new").status == 303)
            #expect(try await ada.submit("/quotes/3/delete", [], formPage: "/quotes/3").status == 303)
            // Bob edits ada's quote (its v2) and adds one of his own (4).
            var bob = SocketBrowser(port: port)
            #expect(try await bob.signUp("bob").status == 303)
            let bobsEdit = try await bob.submit(
                "/quotes/2", [("text", "Bob was here"), ("author", "Ada"), ("version", "1")], formPage: "/quotes/2/edit")
            #expect(bobsEdit.status == 303)
            #expect(try await bob.submit("/quotes", [("text", "Bob's"), ("author", "Bob")], formPage: "/quotes/new").status == 303)

            let (json, response) = try await Self.export(&ada)
            #expect(response.header("Content-Disposition") == "attachment; filename=\"quotebook-ada.json\"")
            #expect(json["format"] as? String == "quotebook-export-1")
            #expect(json["exported_at"] as? String == "2026-11-22T07:00:00Z")

            let profile = try #require(json["profile"] as? [String: Any])
            #expect(profile["username"] as? String == "ada")
            #expect(profile["display_name"] as? String == "ada")
            #expect(profile["joined_at"] as? String == "2026-11-22T07:00:00Z")
            #expect(profile["has_photo"] as? Bool == false)
            #expect(profile["photo_path"] is NSNull)
            let favourite = try #require(profile["favourite"] as? [String: Any])
            #expect(favourite["id"] as? Int == 2 && favourite["author"] as? String == "Ada")
            #expect(favourite["text"] as? String == "Bob was here", "as it reads now")

            let quotes = try #require(json["quotes"] as? [[String: Any]])
            #expect(quotes.count == 1, "quote 3 was deleted, quote 1 is the seed's")
            #expect(quotes.first?["id"] as? Int == 2 && quotes.first?["text"] as? String == "Bob was here")
            #expect(quotes.first?["version"] as? Int == 2 && quotes.first?["added_at"] as? String == "2026-11-22T07:00:00Z")

            #expect(
                Self.versionKeys(json) == [["2", "1", "added"], ["1", "2", "edited"], ["1", "3", "restored"], ["3", "1", "added"]])
            let versions = try #require(json["versions"] as? [[String: Any]])
            #expect(versions.map { $0["text"] as? String } == ["Ada's own", "Edited by Ada", Self.seedText, "Gone soon"])
            #expect(versions[2]["restored_from"] as? Int == 1 && versions[0]["restored_from"] is NSNull)
            #expect(versions.allSatisfy { $0["made_at"] as? String == "2026-11-22T07:00:00Z" })

            // Nothing secret: no password hash, no cookie value (the session's token among them),
            // no CSRF token, nor their names.
            let text = response.text
            let token = try await ada.csrfToken(from: "/profile/edit")
            #expect(!text.contains("$y$") && !text.contains("password") && !text.contains(SocketBrowser.testPassword))
            #expect(!ada.cookies.isEmpty)
            for value in ada.cookies.values.values { #expect(!text.contains(value)) }
            #expect(!text.contains(token) && !text.lowercased().contains("csrf") && !text.contains("session"))

            // Bob's export has his own versions and none of ada's.
            let (bobs, _) = try await Self.export(&bob)
            #expect(Self.versionKeys(bobs) == [["2", "2", "edited"], ["4", "1", "added"]])
            #expect((bobs["quotes"] as? [[String: Any]])?.map { $0["id"] as? Int } == [4])
            #expect((bobs["profile"] as? [String: Any])?["favourite"] is NSNull)
        }
    }

    @Test func signedOutItIsASignIn() async throws {
        try await Self.withServer { app, port in
            var visitor = SocketBrowser(port: port)
            let response = try await visitor.get("/profile/export")
            #expect(response.status == 303)
            #expect(response.header("Location") == "/login?return_to=/profile/export")
            #expect(!response.text.contains("format"))
        }
    }
}

extension SocketBrowser {
    /// The password ``signUp(_:password:)`` gives by default.
    fileprivate static let testPassword = "correct horse battery"
}
