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

/// Fair shares of photo processing (issue 29): one person's photo in the pool leaves the rest of
/// it to everyone else, and an account's uploads an hour are limited.
@Suite struct PhotoShareTests {
    @Test func aPersonsSecondPhotoIsRefusedAtOnceWhileOthersAreTaken() async throws {
        let pool = BlockingThreadPool(name: "test-photo", threadCount: 2, queueLimit: 4)
        let app = try await TestApp(photoProcessing: PhotoProcessing(pool: pool))
        var ada = try await app.signedIn("ada")
        var bob = try await app.signedIn("bob")
        let adaID = try #require(app.store.state.user(named: Username("ada")!)?.id)
        // Ada's first photo, still being processed: held on one of the two threads.
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await pool.run(for: [BlockingThreadPool.Share(owner: "person:\(adaID.rawValue)", limit: 1)]) {
                running.signal()
                release.wait()
            }
        }
        await offPool { running.wait() }

        let second = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(1))
        #expect(second.status == .serviceUnavailable, "her share is in use, though a thread is free")
        #expect(second.headers["Retry-After"] == "5")
        let bobs = try await bob.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(2))
        #expect(bobs.status == .seeOther, "Bob's photo takes the other thread")
        #expect(app.store.state.user(named: Username("bob")!)?.photo != nil)

        release.signal()
        try await first.value
        let again = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(1))
        #expect(again.status == .seeOther, "once hers is done, the next is taken")
        await app.close()
    }

    @Test func anAccountsUploadsAnHourAreLimitedWith429() async throws {
        var limits = PhotoUploadLimits()
        limits.uploadsPerAccount = 2
        let app = try await TestApp(photoProcessing: PhotoProcessing(limits: limits))
        var ada = try await app.signedIn("ada")
        for variant in 1...2 {
            let taken = try await ada.upload(
                "/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(variant))
            #expect(taken.status == .seeOther)
        }
        let refused = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(3))
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] == "3600")
        #expect(refused.text.contains("You have sent many photos this hour. Please try again in 60 minutes."))
        #expect(refused.text.contains("<form method=\"post\" action=\"/profile/photo\""))
        var bob = try await app.signedIn("bob")
        let bobs = try await bob.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: TestPhotos.png(4))
        #expect(bobs.status == .seeOther, "another account has its own")
        await app.close()
    }
}
