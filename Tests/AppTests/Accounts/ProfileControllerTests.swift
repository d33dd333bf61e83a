import App
import Basics
import Foundation
import HTTPServer
import Logging
import Store
import TestSupport
import Testing

/// Every ``ProfileState`` the profile logic controller returns, with the store, the cache and
/// the photo storage replaced by doubles.
@Suite struct ProfileControllerTests {
    let clock = TestClock()

    func make(_ actions: [AppAction], failing: Bool = false) throws -> (ProfileController, StateStoreDouble, ProfileCacheDouble, AccountStorageDouble) {
        let store = try StateStoreDouble(actions, failing: failing)
        let cache = ProfileCacheDouble()
        let storage = AccountStorageDouble()
        let clock = self.clock
        let photos = PhotoKeeper(store: store, storage: storage, now: { clock.now }, logger: .discarding())
        let controller = ProfileController(
            store: store, cache: cache, photos: photos, sessions: SessionKeeper(storage: storage), now: { clock.now })
        return (controller, store, cache, storage)
    }

    @Test func presentsAProfileWithFavouriteAndTheQuotesTheyAddedNewestFirst() throws {
        let (controller, _, _, _) = try make([
            AccountFixtures.signUp("ada"), AccountFixtures.signUp("bob"),
            .addQuote(QuoteDraft(text: "One", author: "A"), by: UserID(1), at: AccountFixtures.date),
            .addQuote(QuoteDraft(text: "Two", author: "B"), by: UserID(2), at: AccountFixtures.date),
            .addQuote(QuoteDraft(text: "Three", author: "C"), by: UserID(1), at: AccountFixtures.date),
            .setFavourite(UserID(1), QuoteID(2), at: AccountFixtures.date),
        ])
        guard case let .presenting(profile, isOwn, _, _) = controller.load(AccountFixtures.ada, viewer: UserID(2)) else {
            Issue.record("not presenting")
            return
        }
        #expect(!isOwn)
        #expect(profile.user.displayName == "Ada")
        #expect(profile.favourite?.text == "Two")
        #expect(profile.addedQuotes.map(\.text) == ["Three", "One"])
        guard case .presenting(_, let own, _, _) = controller.load(AccountFixtures.ada, viewer: UserID(1)) else { return }
        #expect(own)
    }

    @Test func loadsThroughTheCacheSoTheSecondLoadDoesNotRebuild() throws {
        let (controller, _, cache, _) = try make([AccountFixtures.signUp("ada")])
        _ = controller.load(AccountFixtures.ada, viewer: nil)
        _ = controller.load(AccountFixtures.ada, viewer: nil)
        #expect(cache.stores == 1)
        #expect(cache.hits == 1)
    }

    @Test func aProfileBuiltBeforeAnInvalidationIsNotCached() throws {
        let cache = ProfileCache()
        let user = try #require(try StateStoreDouble([AccountFixtures.signUp("ada")]).state.users[UserID(1)])
        let generation = cache.generation
        cache.invalidateAll()  // a change lands while the profile is being built
        cache.store(Profile(user: user, favourite: nil, addedQuotes: []), generation: generation)
        #expect(cache.profile(for: AccountFixtures.ada) == nil)
        cache.store(Profile(user: user, favourite: nil, addedQuotes: []), generation: cache.generation)
        #expect(cache.profile(for: AccountFixtures.ada) != nil)
    }

    @Test func anUnknownUsernameIsNotFound() throws {
        let (controller, _, _, _) = try make([])
        #expect(controller.load(AccountFixtures.ada, viewer: nil) == .notFound)
        #expect(controller.edit(UserID(4)) == .notFound)
    }

    @Test func editingStartsFromTheCurrentName() throws {
        let (controller, _, _, _) = try make([AccountFixtures.signUp("ada", displayName: "Ada L.")])
        guard case let .editing(_, name, problem) = controller.edit(UserID(1)) else { Issue.record("not editing"); return }
        #expect(name == "Ada L.")
        #expect(problem == nil)
    }

    @Test func changingTheDisplayNameRecordsAnActionAndEndsTheFlow() async throws {
        let (controller, store, _, _) = try make([AccountFixtures.signUp("ada")])
        #expect(try await controller.changeDisplayName(of: UserID(1), to: "  Countess  ") == .updated(AccountFixtures.ada))
        #expect(store.state.users[UserID(1)]?.displayName == "Countess")
        #expect(store.dispatched == [.changeDisplayName(UserID(1), to: "  Countess  ", at: clock.now)])
    }

    @Test func anEmptyOrLongDisplayNameIsEditingWithTheProblemAndTheTypedText() async throws {
        let (controller, store, _, _) = try make([AccountFixtures.signUp("ada")])
        guard case let .editing(_, typed, problem) = try await controller.changeDisplayName(of: UserID(1), to: "   ") else {
            Issue.record("not editing")
            return
        }
        #expect(typed == "   ")
        #expect(problem == .empty)
        let long = String(repeating: "x", count: 51)
        guard case .editing(_, _, .tooLong(50)) = try await controller.changeDisplayName(of: UserID(1), to: long) else {
            Issue.record("not too long")
            return
        }
        #expect(store.dispatched.isEmpty)
    }

    @Test func aPhotoIsStoredAsTwoWebPSquaresByHashAndTheJournalRecordsOnlyTheirHashes() async throws {
        let (controller, store, _, storage) = try make([AccountFixtures.signUp("ada")])
        let upload = try await TestPhotos.file("oriented.jpg")
        #expect(try await controller.changePhoto(of: UserID(1), to: UploadedFile(bytes: upload)) == .updated(AccountFixtures.ada))
        let reference = try #require(store.state.users[UserID(1)]?.photo)
        #expect(reference.mediaType == "image/webp")
        let small = try #require(reference.small)
        let large = try #require(await storage.photos[reference.hash]?.bytes)
        let smallBytes = try #require(await storage.photos[small]?.bytes)
        #expect(reference.hash == Hex.encode(SHA256.hash(large)) && small == Hex.encode(SHA256.hash(smallBytes)))
        #expect(Array(large.prefix(4)) == Array("RIFF".utf8) && Array(large[8..<12]) == Array("WEBP".utf8))
        #expect(smallBytes.count < large.count)
        #expect(large != upload)
        #expect(try await controller.photo(of: AccountFixtures.ada) == .photo(StoredPhoto(reference: PhotoReference(hash: reference.hash, mediaType: "image/webp"), bytes: large)))
        guard case .photo(let served) = try await controller.photo(of: AccountFixtures.ada, small: true) else {
            Issue.record("no small photo")
            return
        }
        #expect(served.bytes == smallBytes)
        #expect(store.dispatched == [.setPhoto(UserID(1), reference, at: clock.now)])
    }

    @Test(arguments: [
        ("text.jpg", ProfileFailure.unsupportedPhoto), ("drawing.svg", .unsupportedPhoto), ("truncated.jpg", .photoDamaged),
        ("bomb.png", .photoHasTooManyPixels(width: 60000, height: 60000)),
    ])
    func uploadsThatAreNotPhotosFailWithAReason(_ name: String, failure: ProfileFailure) async throws {
        let (controller, store, _, storage) = try make([AccountFixtures.signUp("ada")])
        guard case .failed(_, let got) = try await controller.changePhoto(of: UserID(1), to: UploadedFile(bytes: try await TestPhotos.file(name))) else {
            Issue.record("\(name) accepted")
            return
        }
        #expect(got == failure)
        #expect(store.dispatched.isEmpty)
        #expect(await storage.photos.isEmpty)
    }

    @Test func photosThatAreTooLargeOrMissingFailWithAReason() async throws {
        let (controller, store, _, storage) = try make([AccountFixtures.signUp("ada")])
        let huge = try await TestPhotos.png(0) + [UInt8](repeating: 0, count: ProfileController.maximumPhotoBytes)
        guard case .failed(_, .photoTooLarge) = try await controller.changePhoto(of: UserID(1), to: UploadedFile(bytes: huge)) else {
            Issue.record("huge accepted")
            return
        }
        guard case .failed(_, .noPhotoChosen) = try await controller.changePhoto(of: UserID(1), to: nil) else {
            Issue.record("nothing accepted")
            return
        }
        #expect(store.dispatched.isEmpty)
        #expect(await storage.photos.isEmpty)
    }

    @Test func removingThePhotoLeavesNone() async throws {
        let (controller, store, _, storage) = try make([AccountFixtures.signUp("ada")])
        _ = try await controller.changePhoto(of: UserID(1), to: UploadedFile(bytes: try await TestPhotos.png(1)))
        #expect(await storage.photos.count == 2)
        #expect(try await controller.removePhoto(of: UserID(1)) == .updated(AccountFixtures.ada))
        #expect(store.state.users[UserID(1)]?.photo == nil)
        #expect(try await controller.photo(of: AccountFixtures.ada) == .notFound)
        #expect(await storage.photos.isEmpty)
    }

    @Test func signingOutDeletesTheSession() async throws {
        let (controller, _, _, storage) = try make([AccountFixtures.signUp("ada")])
        let sessions = SessionKeeper(storage: storage)
        let issued = try await sessions.startWithoutPassword(for: UserID(1), now: clock.now)
        #expect(try await controller.signOut(issued.record) == .signedOut)
        #expect(await storage.sessions.isEmpty)
    }

    @Test func aStoreThatCannotWriteThrows() async throws {
        let (controller, _, _, _) = try make([AccountFixtures.signUp("ada")], failing: true)
        await #expect(throws: StoreError.self) { try await controller.changeDisplayName(of: UserID(1), to: "New") }
    }
}
