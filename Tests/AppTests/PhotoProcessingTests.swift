import App
import Foundation
import HTTPServer
import Images
import Store
import TestSupport
import Testing

/// Uploads are processed from a temporary file that is gone afterwards, whatever the outcome,
/// and a full queue refuses at once instead of holding more photos in memory.
@Suite struct PhotoProcessingTests {
    @Test func theTemporaryFileIsRemovedOnEveryOutcome() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photo-processing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let processing = PhotoProcessing(directory: directory)

        let made = try await processing.process(UploadedFile(bytes: TestPhotos.file("oriented.jpg")), of: UserID(1), from: nil).get()
        #expect([made.large.width, made.small.width] == [512, 96] as [Int])
        #expect(made.sourceFormat == .jpeg)
        let refused = try await processing.process(UploadedFile(bytes: TestPhotos.file("truncated.jpg")), of: UserID(1), from: nil)
        #expect(throws: PhotoProcessingError.self) { try refused.get() }
        let text = try await processing.process(UploadedFile(bytes: Array("not an image".utf8)), of: UserID(1), from: nil)
        #expect(throws: PhotoProcessingError.unsupportedFormat) { try text.get() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aMissingDirectoryIsAServerFaultNotTheUploads() async throws {
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-dir-\(UUID().uuidString)")
        let result = try await PhotoProcessing(directory: nowhere).process(UploadedFile(bytes: TestPhotos.png(0)), of: UserID(1), from: nil)
        #expect(throws: PhotoProcessingError.unreadableFile(operation: "create", errno: ENOENT)) { try result.get() }
    }
}

/// Each refusal of a photo has its status and a message for the field (ProfileView).
@Suite struct PhotoRefusalViewTests {
    @Test(arguments: [
        (ProfileFailure.unsupportedPhoto, 415, "not a JPEG, PNG, WebP, GIF or HEIC image"),
        (.photoTooLarge(maximumBytes: 20 * 1024 * 1024), 413, "larger than 20 MiB"),
        (.photoHasTooManyPixels(width: 60000, height: 60000), 422, "too large to process (60000 × 60000 pixels"),
        (.photoDamaged, 422, "could not be read"),
        (.photoProcessingBusy, 503, "busy with other photos"),
        (.noPhotoChosen, 422, "Please choose a photo"),
    ])
    func eachRefusalHasItsStatusAndMessage(_ failure: ProfileFailure, code: Int, message: String) {
        #expect(ProfileView.status(for: failure).code == code)
        #expect(ProfileView.message(for: failure).contains(message))
    }
}
