import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// A photo the server itself fails at (here the upload's temporary file cannot be made, as when
/// the temporary directory is gone) is the 500 page in the layout with nothing of the fault in
/// it. Nothing changes, the upload, never read, does not count against the account's uploads an
/// hour, and the server goes on serving.
@Suite struct PhotoServerFaultTests {
    @Test func aServerFaultIs500WithoutInternalsAndDoesNotCountAgainstTheHour() async throws {
        var limits = PhotoUploadLimits()
        limits.uploadsPerAccount = 1
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-dir-\(UUID().uuidString)")
        let app = try await TestApp(photoProcessing: PhotoProcessing(limits: limits, directory: nowhere))
        var ada = try await app.signedIn("ada")
        let bytes = try await TestPhotos.png(5)
        for attempt in 1...2 {
            let failed = try await ada.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes)
            #expect(failed.status == .internalServerError, "attempt \(attempt): a fault, not the hour's limit (429)")
            #expect(failed.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(failed.text.contains("<nav aria-label=\"Main\">"), "in the layout")
            #expect(failed.text.contains("That is our fault, not yours."))
            for detail: String in ["errno", "create", nowhere.path, "quotebook-upload"] {
                #expect(!failed.text.contains(detail), "the page gives away \(detail)")
            }
        }
        #expect(app.store.state.user(named: Username("ada")!)?.photo == nil)
        #expect(try await app.photoStorage.storedHashes().isEmpty)
        #expect(await ada.get("/users/ada").status == .ok, "the server goes on serving")
        await app.close()
    }
}
