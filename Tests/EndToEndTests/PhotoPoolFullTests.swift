import App
import Basics
import Dispatch
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// The photo pool full: `POST /profile/photo` is refused at once with the 503 edit page, in the
/// layout, with `Retry-After`, and nothing changes; once the pool frees, the same upload is taken.
@Suite struct PhotoPoolFullTests {
    @Test func aFullPoolIs503WithRetryAfterAndTheSameUploadWorksOnceItFrees() async throws {
        // One thread and one place in the queue, both taken by jobs the test lets go.
        let pool = BlockingThreadPool(name: "test-photo", threadCount: 1, queueLimit: 1)
        let app = try await TestApp(photoProcessing: PhotoProcessing(pool: pool))
        var ada = try await app.signedIn("ada")
        let bytes = try await TestPhotos.png(9)
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await pool.run {
                running.signal()
                release.wait()
            }
        }
        await offPool { running.wait() }
        let waiting = Task { try await pool.run {} }
        #expect(try await eventually { pool.queuedJobCount == 1 })

        let refused = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes)
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.headers["Retry-After"] == "5")
        #expect(refused.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(refused.text.hasPrefix("<!doctype html>") && refused.text.contains("<title>Edit profile · Quotebook</title>"))
        #expect(refused.text.contains("<nav aria-label=\"Main\">"), "in the layout")
        #expect(
            refused.text.contains(
                "<p class=\"field-error\" id=\"photo-error\" role=\"alert\">Quotebook is busy with other photos right now. Please try again in a few seconds.</p>"))
        #expect(refused.text.contains("<form method=\"post\" action=\"/profile/photo\""), "the form again, to try again")
        #expect(app.store.state.user(named: Username("ada")!)?.photo == nil)
        #expect(try await app.photoStorage.storedHashes().isEmpty)

        release.signal()
        try await holding.value
        try await waiting.value
        let taken = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes)
        #expect(taken.status == .seeOther)
        #expect(taken.headers["Location"] == "/users/ada")
        #expect(app.store.state.user(named: Username("ada")!)?.photo != nil)
        await app.close()
    }
}
