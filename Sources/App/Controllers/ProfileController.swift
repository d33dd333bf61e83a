import Basics
package import Foundation
import Images
package import Store

/// The logic of profiles (seed 003's logic controller): loads a profile through the cache,
/// changes the display name and the photo, and signs out. No HTTP, no HTML.
///
/// A class of constants, not a struct: its dependencies (the photo pipeline's limits, the
/// uploads' attempt limit) make it over 400 bytes, which the coordinator copied whole, with a
/// retain and a release of each reference in it, to call ``load(_:viewer:page:moderation:)``
/// on every profile page.
package final class ProfileController: Sendable {
    /// Largest photo accepted, in bytes of image (SPEC.md, issue 19: 20 MiB).
    package static let maximumPhotoBytes = 20 * 1024 * 1024

    private let store: any StateStore
    private let cache: any ProfileCaching
    private let photos: PhotoKeeper
    private let processing: PhotoProcessing
    /// Photos each account may send for processing per window (``PhotoUploadLimits``).
    private let uploads: AttemptLimit
    private let sessions: SessionKeeper
    private let now: @Sendable () -> Date

    /// The storage namespace of the uploads' counts.
    package static let uploadsNamespace = "photo"

    /// `attempts`: where the uploads are counted (shared by every instance on PostgreSQL).
    package init(
        store: any StateStore, cache: any ProfileCaching, photos: PhotoKeeper, processing: PhotoProcessing = PhotoProcessing(),
        attempts: any SignInFailureStorage = InMemorySignInFailures(), sessions: SessionKeeper, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.cache = cache
        self.photos = photos
        self.processing = processing
        uploads = AttemptLimit(
            namespace: Self.uploadsNamespace, limit: processing.limits.uploadsPerAccount, window: processing.limits.window,
            storage: attempts)
        self.sessions = sessions
        self.now = now
    }

    /// How many of a person's quotes a page of their profile lists (as a page of the book).
    package static let addedPerPage = QuoteController.pageSize

    /// The profile of `username` with page `page` of the quotes they added, from the cache when
    /// it has it, else built from the store.
    package func load(
        _ username: Username, viewer: UserID?, page: Int = 1, moderation: ProfileModeration = ProfileModeration()
    ) -> ProfileState {
        guard let profile = profile(for: username) else { return .notFound }
        guard Paging(page: page, of: profile.addedQuotes.count, size: Self.addedPerPage) != nil else {
            return .noSuchPage(
                profile.user.username, pageCount: Paging.pageCount(of: profile.addedQuotes.count, size: Self.addedPerPage))
        }
        // Read through the shared state, not a copy of it or of its moderation (``PublishedState``).
        let published = store.publishedState
        let mayModerate =
            viewer != profile.user.id && published.state.moderation.isModerator(viewer)
            && !published.state.moderation.isModerator(profile.user.id)
        return .presenting(profile, isOwn: profile.user.id == viewer, moderation: mayModerate ? moderation : nil, page: page)
    }

    /// The edit forms for `user`, filled in.
    package func edit(_ user: UserID) -> ProfileState {
        guard let profile = profile(of: user) else { return .notFound }
        return .editing(profile, displayName: profile.user.displayName, problem: nil)
    }

    package func changeDisplayName(of user: UserID, to name: String) async throws(StoreError) -> ProfileState {
        switch try await store.dispatch(.changeDisplayName(user, to: name, at: now())) {
        case .success:
            return updated(user)
        case .failure(.invalidDisplayName(let problem)):
            guard let profile = profile(of: user) else { return .notFound }
            return .editing(profile, displayName: name, problem: problem)
        case .failure:
            return .notFound
        }
    }

    /// Makes `user`'s photo from `bytes`, a JPEG, PNG, WebP, GIF or HEIC image of at most
    /// ``maximumPhotoBytes``: processed on the photo pool into 512 px and 96 px WebP squares with
    /// no metadata (``PhotoProcessing``), both stored; the journal records only their hashes, and
    /// the photo it replaces is deleted once nobody refers to it (``PhotoKeeper``).
    ///
    /// - Throws: ``StoreError``, or ``PhotoProcessingError`` when the server failed at it (not the
    ///   upload); one whose file the server could not even write or read does not count against
    ///   the account's uploads an hour.
    package func changePhoto(of user: UserID, to upload: UploadedFile?, from client: String? = nil) async throws -> ProfileState {
        guard let profile = profile(of: user) else { return .notFound }
        guard let upload, upload.count > 0 else { return .failed(profile, .noPhotoChosen) }
        guard upload.count <= Self.maximumPhotoBytes else { return .failed(profile, .photoTooLarge(maximumBytes: Self.maximumPhotoBytes)) }
        let attempt: AttemptLimit.Attempt
        switch try await uploads.reserve(String(user.rawValue), now: now()) {
        case .allowed(let allowed): attempt = allowed
        case .refused(let seconds): return .failed(profile, .tooManyPhotos(retryAfter: seconds))
        }
        let made: ProcessedPhoto
        do {
            switch try await processing.process(upload, of: user, from: client) {
            case .success(let photo): made = photo
            case .failure(.unsupportedFormat): return .failed(profile, .unsupportedPhoto)
            case .failure(.tooLarge(let width, let height)): return .failed(profile, .photoHasTooManyPixels(width: width, height: height))
            case .failure(.damaged): return .failed(profile, .photoDamaged)
            case .failure(let fault):
                // A file the server could not write or read was never decoded: like a busy pool's
                // refusal, it does not count. A failure once decoding began (libvips encoding, say)
                // counts, since an upload that could provoke one must not buy unlimited work.
                if case .unreadableFile = fault { try await uploads.release(attempt) }
                throw fault
            }
        } catch is BlockingThreadPool.Overloaded {
            try await uploads.release(attempt)  // never processed: it does not count
            return .failed(profile, .photoProcessingBusy)
        }
        let large = Self.stored(made.large), small = Self.stored(made.small)
        return answer(try await photos.setPhoto(large: large, small: small, of: user), for: user)
    }

    /// The edit page saying the photo was too large: its upload was over the server's body
    /// limit, so it never arrived.
    package func refuseOversizedPhoto(of user: UserID) -> ProfileState {
        guard let profile = profile(of: user) else { return .notFound }
        return .failed(profile, .photoTooLarge(maximumBytes: Self.maximumPhotoBytes))
    }

    private static func stored(_ photo: EncodedPhoto) -> StoredPhoto {
        StoredPhoto(reference: PhotoReference(hash: SHA256.hexDigest(photo.bytes), mediaType: EncodedPhoto.mediaType), bytes: photo.bytes)
    }

    /// Frees the photo of an account that was deleted, once nothing refers to it.
    package func free(_ photo: PhotoReference) async {
        await photos.free(photo)
    }

    /// Removes `user`'s photo; its bytes are deleted once nobody refers to them.
    package func removePhoto(of user: UserID) async throws(StoreError) -> ProfileState {
        answer(try await photos.setPhoto(nil, of: user), for: user)
    }

    /// The photo of `username` (its 96 px version if `small`), if they have one (the new one,
    /// when it was replaced meanwhile).
    package func photo(of username: Username, small: Bool = false) async throws(StoreError) -> ProfilePhotoState {
        guard let photo = try await photos.photo(of: username, small: small) else { return .notFound }
        return .photo(photo)
    }

    /// Ends `session`: its token no longer signs anyone in.
    package func signOut(_ session: SessionRecord) async throws(StoreError) -> ProfileState {
        try await sessions.end(session)
        return .signedOut
    }

    /// Every live session of `user`, `current` (the one asking) marked.
    package func sessions(of user: UserID, current: SessionRecord) async throws(StoreError) -> SessionsState {
        .listing(try await sessions.sessions(of: user, now: now()), current: current.id)
    }

    /// Ends `user`'s session whose id is `id`, on every instance; someone else's ends nothing.
    package func endSession(_ id: [UInt8], of user: UserID) async throws(StoreError) -> SessionsState {
        try await sessions.end(id: id, of: user) ? .ended : .notFound
    }

    /// Ends every session of `user` but `current`, on every instance.
    package func endOtherSessions(of user: UserID, current: SessionRecord) async throws(StoreError) -> SessionsState {
        try await sessions.endSessions(of: user, except: current.id)
        return .ended
    }

    /// The state after the store's `answer` to a change of `user`'s profile.
    private func answer(_ answer: Result<AppEvent, ActionRejection>, for user: UserID) -> ProfileState {
        switch answer {
        case .success: updated(user)
        case .failure: .notFound
        }
    }

    private func updated(_ user: UserID) -> ProfileState {
        guard let username = store.state.users[user]?.username else { return .notFound }
        return .updated(username)
    }

    private func profile(of user: UserID) -> Profile? {
        store.state.users[user].flatMap { profile(for: $0.username) }
    }

    private func profile(for username: Username) -> Profile? {
        if let cached = cache.profile(for: username) { return cached }
        let generation = cache.generation
        let state = store.state
        guard let user = state.user(named: username) else { return nil }
        // Once per profile and version of the state: the ids found in place, then only their quotes copied.
        let added = state.quotes.ids(addedBy: user.id).reversed().compactMap { state.quotes[$0] }
        let profile = Profile(
            user: user, favourite: user.favourite.flatMap { state.quotes[$0] }, addedQuotes: added,
            suspension: state.moderation.suspended[user.id])
        cache.store(profile, generation: generation)
        return profile
    }
}
