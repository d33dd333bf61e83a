import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Uploads over a real socket with the app's body rules (issue 19): a body over its limit gets
/// the app's page in the layout, sent whole as a browser sends it; a large upload is written to
/// an unlinked file as it arrives and reaches the photo pipeline without being held in memory;
/// and the disk those files take is bounded, whatever many clients do at once.
@Suite(.serialized) struct UploadBodyTests {
    /// A server in this process on a fresh app: uploads up to `uploadLimit`, those over 64 KiB
    /// spooled to a directory of their own (its path passed on), `spoolBudget` of them at once.
    static func withServer(
        uploadLimit: Int = 512 * 1024, spoolBudget: Int = 64 * 1024 * 1024,
        _ body: (TestApp, Int, String) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try await TestApp()
        var configuration = HTTPServerConfiguration(port: 0, eventLoopCount: 1)
        configuration.limits.uploadBody = uploadLimit
        var spool = BodySpool(directory: directory)
        spool.budget = spoolBudget
        configuration.bodySpool = spool
        let live = try LiveServer(responder: app.coordinator, configuration: configuration)
        do {
            try await body(app, live.port, directory)
        } catch {
            Issue.record(error)
        }
        await live.stop()
        await app.close()
    }

    static func signedIn(_ username: String, port: Int) async throws -> SocketBrowser {
        var browser = SocketBrowser(port: port)
        #expect(try await browser.signUp(username).status == 303)
        return browser
    }

    @Test func aPhotoSentWholeOverTheUploadLimitGetsTheEditPageWithTheMessageBesideTheField() async throws {
        try await Self.withServer { app, port, _ in
            var ada = try await Self.signedIn("ada", port: port)
            let huge = [UInt8](repeating: 0xFF, count: 2 * 1024 * 1024)
            let response = try await ada.upload(
                "/profile/photo", field: "photo", filename: "phone.jpg", fileType: "image/jpeg", file: huge, formPage: "/profile/edit")
            #expect(response.status == 413)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Connection") == "close")
            let page = response.text
            #expect(page.contains("<nav"), "the page is in the layout")
            #expect(page.contains("aria-describedby=\"photo-hint photo-error\" aria-invalid=\"true\""))
            #expect(page.contains("<p class=\"field-error\" id=\"photo-error\" role=\"alert\">That photo is larger than 20 MiB."))
            #expect(app.store.state.users.values.first?.photo == nil)
            // Everyone else, ada included, goes on being served.
            #expect(try await ada.get("/profile/edit").status == 200)
        }
    }

    @Test func aFormOverItsLimitGetsThe413PageInTheLayoutAndChangesNothing() async throws {
        try await Self.withServer { app, port, _ in
            var ada = try await Self.signedIn("ada", port: port)
            let long = String(repeating: "a", count: 1024 * 1024 + 1)
            let response = try await ada.submit("/quotes", [("text", long), ("author", "Ada")], formPage: "/quotes/new")
            #expect(response.status == 413)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text.contains("<nav"))
            #expect(response.text.contains("Too much to send"))
            #expect(response.text.contains("more than the 1 MiB this form takes"))
            #expect(app.store.state.quotes.count == 1)
        }
    }

    @Test func withoutCookiesThatCanCarryATokenTheRefusalIsStillThe403() async throws {
        try await Self.withServer { _, port, _ in
            let client = try SocketClient(port: port)
            defer { client.close() }
            try await client.send(
                "POST /profile/photo HTTP/1.1\r\nHost: test\r\nContent-Type: \(MultipartBody.contentType)\r\nContent-Length: 9000000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 403)
        }
    }

    @Test func aLargePhotoIsSpooledToAnUnlinkedFileAndArrivesWhole() async throws {
        try await Self.withServer { app, port, directory in
            var ada = try await Self.signedIn("ada", port: port)
            let photo = try await TestPhotos.file("detailed.jpg")
            #expect(photo.count > 64 * 1024, "over the spool threshold")
            let saved = try await ada.upload(
                "/profile/photo", field: "photo", filename: "phone.jpg", fileType: "image/jpeg", file: photo, formPage: "/profile/edit")
            #expect(saved.status == 303)
            let reference = try #require(app.store.state.users.values.first?.photo)
            let served = try await ada.get("/users/ada/photo")
            #expect(served.status == 200)
            #expect(Array(served.body.prefix(4)) == Array("RIFF".utf8))
            #expect(reference.small != nil)
            // A damaged one takes the same path to its own refusal.
            let cut = try await TestPhotos.file("truncated.jpg")
            let damaged = try await ada.upload(
                "/profile/photo", field: "photo", filename: "cut.jpg", fileType: "image/jpeg", file: cut, formPage: "/profile/edit")
            #expect(damaged.status == 422)
            #expect(damaged.text.contains("That image could not be read"))
            // The files were unlinked as they were made: nothing is left to name them.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    /// One client address may hold half the loop's spool budget: with 1000 KiB, one 400 KiB
    /// upload in flight at a time. Eight sent at once while it is held get 503 with `Retry-After`, at
    /// once and unread; once it ends, the next is accepted.
    @Test func manyUploadsAtOnceCannotHoldMoreDiskThanTheBudget() async throws {
        try await Self.withServer(spoolBudget: 1000 * 1024) { _, port, _ in
            var ada = try await Self.signedIn("ada", port: port)
            let token = try await ada.csrfToken(from: "/profile/edit")
            let body = MultipartBody(
                token: token, field: "photo", filename: "noise.jpg", fileType: "image/jpeg",
                file: [UInt8](repeating: 7, count: 400 * 1024)
            ).bytes
            let head = Array(
                ("POST /profile/photo HTTP/1.1\r\nHost: test\r\nCookie: \(ada.cookies.header)\r\n"
                    + "Content-Type: \(MultipartBody.contentType)\r\nContent-Length: \(body.count)\r\n\r\n").utf8)
            let holder = try SocketClient(port: port)
            defer { holder.close() }
            try await holder.send(head + body.prefix(1000))
            try await Task.sleep(for: .milliseconds(100))  // its head is read and its place held
            let statuses = try await SocketClient.statusesAtOnce(port: port, Array(repeating: head + body, count: 8))
            #expect(statuses == Array(repeating: 503, count: 8))
            try await holder.send(Array(body.dropFirst(1000)))
            let held = try await holder.readResponse()
            #expect(held.status == 415, "no image, but it was read: \(held.text)")
            let next = try await SocketClient.exchangeOnce(port: port, head + body)
            #expect(next.status == 415, "\(next.text)")
        }
    }
}
