import App
import Basics
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Replacing or removing a photo frees its bytes once nobody refers to them, on the run's
/// backend (SQLite, or PostgreSQL with `QUOTEBOOK_TEST_BACKEND=postgres`): uploads cannot fill
/// the disk, and a page shown during a replacement never meets a missing photo.
@Suite struct PhotoLifecycleTests {
    /// A PNG (by its signature) unlike every other `variant`.
    static func png(_ variant: Int) -> [UInt8] {
        ProfileFlowTests.png + Array("variant \(variant)".utf8)
    }

    static func hash(_ bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(bytes)) }

    func upload(_ bytes: [UInt8], as browser: inout TestBrowser) async throws -> HTTPStatus {
        try await browser.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes).status
    }

    @Test func aLoopOfUploadsLeavesOnePhotoAndRemovingItLeavesNone() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        for variant in 1...12 {
            #expect(try await upload(Self.png(variant), as: &ada) == .seeOther)
            #expect(try await app.photoStorage.storedHashes() == [Self.hash(Self.png(variant))], "after upload \(variant)")
        }
        // The same photo again: still one copy, and it stays.
        #expect(try await upload(Self.png(12), as: &ada) == .seeOther)
        #expect(try await app.photoStorage.storedHashes() == [Self.hash(Self.png(12))])
        #expect(await app.get("/users/ada/photo").body == Self.png(12))
        #expect(try await ada.submit("/profile/photo/delete", [:]).status == .seeOther)
        #expect(try await app.photoStorage.storedHashes().isEmpty)
        #expect(await app.get("/users/ada/photo").status == .notFound)
        await app.close()
    }

    @Test func aPhotoTwoPeopleUploadedStaysUntilNeitherHasIt() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        var bob = try await app.signedIn("bob")
        #expect(try await upload(Self.png(1), as: &ada) == .seeOther)
        #expect(try await upload(Self.png(1), as: &bob) == .seeOther)
        #expect(try await upload(Self.png(2), as: &ada) == .seeOther)
        #expect(Set(try await app.photoStorage.storedHashes()) == [Self.hash(Self.png(1)), Self.hash(Self.png(2))])
        #expect(await app.get("/users/bob/photo").body == Self.png(1), "bob's is still there")
        #expect(try await bob.submit("/profile/photo/delete", [:]).status == .seeOther)
        #expect(try await app.photoStorage.storedHashes() == [Self.hash(Self.png(2))])
        await app.close()
    }

    /// A script uploading as fast as it can, several at once: whatever order the uploads finish
    /// in, one photo is left, the one the profile shows.
    @Test func concurrentUploadsOfOnePersonLeaveOnlyTheirCurrentPhoto() async throws {
        let app = try await TestApp()
        let ada = try await app.signedIn("ada")
        for round in 0..<4 {
            try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for variant in 0..<8 {
                    group.addTask {
                        var browser = ada
                        return try await upload(Self.png(round * 8 + variant), as: &browser)
                    }
                }
                for try await status in group { #expect(status == .seeOther) }
            }
            let current = try #require(app.store.state.user(named: Username("ada")!)?.photo)
            #expect(try await app.photoStorage.storedHashes() == [current.hash], "round \(round)")
        }
        await app.close()
    }

    /// The profile names `/users/ada/photo`; while the photo is replaced again and again, every
    /// request for that address answers 200 with one of the uploaded photos, its ETag its hash.
    @Test func aPageShownDuringReplacementsNeverMeetsAMissingPhoto() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        #expect(try await upload(Self.png(0), as: &ada) == .seeOther)
        let page = await app.get("/users/ada").text
        #expect(page.contains("<img class=\"avatar\" src=\"/users/ada/photo\""))
        let uploaded = Dictionary(uniqueKeysWithValues: (0...40).map { (Self.hash(Self.png($0)), Self.png($0)) })
        let replacing = Task { [ada] in
            var browser = ada
            for variant in 1...40 { _ = try await upload(Self.png(variant), as: &browser) }
        }
        var reads = 0
        while reads < 100_000 {
            let photo = await app.get("/users/ada/photo")
            reads += 1
            #expect(photo.status == .ok, "read \(reads)")
            let tag = photo.headers["ETag"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            #expect(tag.flatMap { uploaded[$0] } == photo.body, "read \(reads): the body is the photo its ETag names")
            if app.store.state.user(named: Username("ada")!)?.photo?.hash == Self.hash(Self.png(40)) { break }
        }
        try await replacing.value
        #expect(reads > 1)
        #expect(try await app.photoStorage.storedHashes() == [Self.hash(Self.png(40))])
        await app.close()
    }
}
