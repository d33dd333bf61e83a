import App
import Basics
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Replacing or removing a photo frees its bytes (both its versions) once nobody refers to
/// them, on the run's backend (SQLite, or PostgreSQL with `QUOTEBOOK_TEST_BACKEND=postgres`):
/// uploads cannot fill the disk, and a page shown during a replacement never meets a missing photo.
@Suite struct PhotoLifecycleTests {
    static func hash(_ bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(bytes)) }

    func upload(_ variant: Int, as browser: inout TestBrowser) async throws -> HTTPStatus {
        let bytes = try await TestPhotos.png(variant)
        return try await browser.upload("/profile/photo", field: "photo", filename: "me.png", contentType: "image/png", bytes: bytes).status
    }

    /// Both stored photos of `username`'s current photo, as a set of hashes; empty without one.
    func current(_ username: String, in app: TestApp) -> Set<String> {
        Set(app.store.state.user(named: Username(username)!)?.photo?.hashes ?? [])
    }

    @Test func aLoopOfUploadsLeavesOnePhotoAndRemovingItLeavesNone() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        var seen: Set<String> = []
        for variant in 1...12 {
            #expect(try await upload(variant, as: &ada) == .seeOther)
            let hashes = current("ada", in: app)
            #expect(hashes.count == 2 && seen.isDisjoint(with: hashes), "after upload \(variant): a new photo")
            seen.formUnion(hashes)
            #expect(Set(try await app.photoStorage.storedHashes()) == hashes, "after upload \(variant)")
        }
        // The same photo again: still one copy of each version, and it stays.
        let last = current("ada", in: app)
        #expect(try await upload(12, as: &ada) == .seeOther)
        #expect(current("ada", in: app) == last)
        #expect(Set(try await app.photoStorage.storedHashes()) == last)
        #expect(last.contains(Self.hash(await app.get("/users/ada/photo").body)))
        #expect(last.contains(Self.hash(await app.get("/users/ada/photo/small").body)))
        #expect(try await ada.submit("/profile/photo/delete", [:]).status == .seeOther)
        #expect(try await app.photoStorage.storedHashes().isEmpty)
        #expect(await app.get("/users/ada/photo").status == .notFound)
        await app.close()
    }

    @Test func aPhotoTwoPeopleUploadedStaysUntilNeitherHasIt() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        var bob = try await app.signedIn("bob")
        #expect(try await upload(1, as: &ada) == .seeOther)
        #expect(try await upload(1, as: &bob) == .seeOther)
        let first = current("bob", in: app)
        #expect(current("ada", in: app) == first, "the same upload makes the same photo")
        #expect(try await upload(2, as: &ada) == .seeOther)
        let second = current("ada", in: app)
        #expect(Set(try await app.photoStorage.storedHashes()) == first.union(second))
        #expect(first.contains(Self.hash(await app.get("/users/bob/photo").body)), "bob's is still there")
        #expect(try await bob.submit("/profile/photo/delete", [:]).status == .seeOther)
        #expect(Set(try await app.photoStorage.storedHashes()) == second)
        await app.close()
    }

    /// Processing that lets one person have six photos at once and a hundred an hour: these
    /// tests are about what is kept when uploads overlap (the fair shares are PhotoShareTests').
    static func generousProcessing() -> PhotoProcessing {
        var limits = PhotoUploadLimits()
        limits.jobsPerPerson = 6
        limits.uploadsPerAccount = 100
        return PhotoProcessing(limits: limits)
    }

    /// A script uploading as fast as it can, several at once: whatever order the uploads finish
    /// in, one photo is left, the one the profile shows.
    @Test func concurrentUploadsOfOnePersonLeaveOnlyTheirCurrentPhoto() async throws {
        let app = try await TestApp(photoProcessing: Self.generousProcessing())
        let ada = try await app.signedIn("ada")
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for variant in 0..<6 {
                    group.addTask {
                        var browser = ada
                        return try await upload(round * 6 + variant, as: &browser)
                    }
                }
                for try await status in group { #expect(status == .seeOther) }
            }
            #expect(Set(try await app.photoStorage.storedHashes()) == current("ada", in: app), "round \(round)")
        }
        await app.close()
    }

    /// The profile names the photo's address; while the photo is replaced again and again, every
    /// request for `/users/ada/photo` answers 200 with a WebP whose ETag is its own hash.
    @Test func aPageShownDuringReplacementsNeverMeetsAMissingPhoto() async throws {
        let app = try await TestApp(photoProcessing: Self.generousProcessing())
        var ada = try await app.signedIn("ada")
        // The photo the last replacement makes, learnt from bob (the same upload makes the same photo).
        var bob = try await app.signedIn("bob")
        #expect(try await upload(20, as: &bob) == .seeOther)
        let final = try #require(app.store.state.user(named: Username("bob")!)?.photo)
        #expect(try await bob.submit("/profile/photo/delete", [:]).status == .seeOther)
        #expect(try await upload(0, as: &ada) == .seeOther)
        let page = await app.get("/users/ada").text
        #expect(page.contains("<img class=\"avatar\" src=\"/users/ada/photo/small?v="))
        let replacing = Task { [ada] in
            var browser = ada
            for variant in 1...20 { _ = try await upload(variant, as: &browser) }
        }
        var reads = 0
        while reads < 100_000 {
            let photo = await app.get("/users/ada/photo")
            reads += 1
            #expect(photo.status == .ok, "read \(reads)")
            let tag = photo.headers["ETag"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            #expect(tag == Self.hash(photo.body), "read \(reads): the body is the photo its ETag names")
            if app.store.state.user(named: Username("ada")!)?.photo == final { break }
        }
        try await replacing.value
        #expect(reads > 1)
        #expect(Set(try await app.photoStorage.storedHashes()) == Set(final.hashes))
        await app.close()
    }
}
