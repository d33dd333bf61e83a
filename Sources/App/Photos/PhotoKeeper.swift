package import Foundation
package import Logging
package import Store

/// Keeps each person's photo and frees the bytes nobody refers to any more: replacing or
/// removing a photo deletes the old one once nothing refers to it, so a loop of uploads leaves
/// one photo per person in storage.
///
/// Who refers to a photo is known only from the journal (the state), which is written apart
/// from the photo storage, so every change goes the same way (``PhotoStorage`` says why it is
/// safe): store and claim the bytes, dispatch the action, release the claim with the journal
/// entry the action was applied through, then offer for deletion the photo the action replaced
/// and the one it set (a concurrent change may already have replaced it, or it was refused). A
/// photo is offered against the state through a journal entry, after catching up with a shared
/// journal, and the storage deletes it only when no claim is open and no reference was
/// recorded after that entry; whichever of two overlapping changes finishes last frees what the
/// other left. A failure to free is logged, never the person's problem: the start-up sweep
/// (``collectUnreferenced()``) takes what was left.
package struct PhotoKeeper: Sendable {
    /// How long a claim that was never released (a process killed mid-upload) keeps its photo.
    package static let claimLifetime: TimeInterval = 3600

    private let store: any StateStore
    private let storage: any PhotoStorage
    private let now: @Sendable () -> Date
    private let logger: Logger

    package init(store: any StateStore, storage: any PhotoStorage, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.storage = storage
        self.now = now
        self.logger = logger
    }

    /// Makes `photo` (nil: none) `user`'s photo, and frees the one it replaced once nothing
    /// refers to it. Returns what the store answered.
    ///
    /// - Throws: ``StoreError`` when the bytes cannot be stored or the action made durable.
    package func setPhoto(_ photo: StoredPhoto?, of user: UserID) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        try await setPhoto(photo?.reference, storing: photo.map { [$0] } ?? [], of: user)
    }

    /// Makes `large`, with `small` as its 96 px version, `user`'s photo: both stored, one
    /// reference naming both in the journal; frees the photo it replaced as ``setPhoto(_:of:)`` does.
    package func setPhoto(large: StoredPhoto, small: StoredPhoto, of user: UserID) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        var reference = large.reference
        reference.small = small.reference.hash
        return try await setPhoto(reference, storing: [large, small], of: user)
    }

    private func setPhoto(
        _ reference: PhotoReference?, storing photos: [StoredPhoto], of user: UserID
    ) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        guard let reference else {
            let answer = try await store.dispatch(.setPhoto(user, nil, at: now()))
            if case .success(.photoChanged(_, let replaced?)) = answer { await collect(replaced.hashes) }
            return answer
        }
        let hashes = photos.map(\.reference.hash)
        for photo in photos { try await storage.save(photo) }
        // A dispatch that throws may yet have been applied (PostgreSQL: the connection lost during
        // COMMIT), so its claims are left to lapse (``claimLifetime``): by then any state shows
        // whether the photo is referred to, and the start-up sweep frees it if not.
        let answer = try await store.dispatch(.setPhoto(user, reference, at: now()))
        var offered = hashes
        switch answer {
        case .success(let event):
            // Read after the answer, so it includes the action's own entry.
            let sequence = store.appliedJournalSequence
            for hash in hashes { await release(hash, referencedThrough: sequence) }
            if case .photoChanged(_, let replaced?) = event { offered += replaced.hashes.filter { !hashes.contains($0) } }
        case .failure:
            for hash in hashes { await release(hash, referencedThrough: nil) }
        }
        await collect(offered)
        return answer
    }

    /// The photo `username` has now, if any. When its bytes are gone between reading the state
    /// and reading them (a replacement freed them), the state is read again, after catching up
    /// with a shared journal: the new photo is served, so a page shown before a replacement never
    /// meets a missing photo.
    /// `small`: its 96 px version (the photo itself when it has none, as stored before issue 19).
    package func photo(of username: Username, small: Bool = false) async throws(StoreError) -> StoredPhoto? {
        var reference = store.state.user(named: username)?.photo
        for _ in 0..<3 {
            guard let wanted = reference else { return nil }
            let hash = small ? wanted.small ?? wanted.hash : wanted.hash
            if let photo = try await storage.photo(hash: hash) { return photo }
            await store.catchUpWithJournal()
            reference = store.state.user(named: username)?.photo
            guard reference != wanted else { return nil }
        }
        return nil
    }

    /// Deletes every stored photo nobody refers to: what a failed deletion or a process killed
    /// mid-upload left, and the photos earlier versions never deleted. Run at start-up, where a
    /// claim older than `claimsLapseAfter` seconds no longer counts: ``claimLifetime`` when other
    /// instances may be uploading, 0 when no upload can be in flight (a journal only this
    /// process writes, before it serves). Returns how many were deleted.
    @discardableResult
    package func collectUnreferenced(claimsLapseAfter lifetime: TimeInterval) async throws(StoreError) -> Int {
        await store.catchUpWithJournal()
        let sequence = store.appliedJournalSequence
        let referenced = Set(store.state.users.values.flatMap { $0.photo?.hashes ?? [] })
        var deleted = 0
        for hash in try await storage.storedHashes() where !referenced.contains(hash) {
            if try await storage.delete(hash: hash, unreferencedThrough: sequence, abandoningClaimsOlderThan: lifetime) { deleted += 1 }
        }
        if deleted > 0 { await settle() }
        return deleted
    }

    /// Frees `photo`, left behind by a deleted account, once nothing refers to it.
    package func free(_ photo: PhotoReference) async {
        // The person is gone: their photo leaves the database's files now, not at some later checkpoint.
        if await collect(photo.hashes) { await settle() }
    }

    /// Makes the deletions so far leave the storage's files (``DeletionSettling``); one a reader
    /// held up is logged, and the next checkpoint or the close finishes it.
    private func settle() async {
        if await !storage.settleDeletions() {
            logger.warning("a deleted photo's pages wait in the database's log for its next checkpoint: a reader (a backup?) held it up")
        }
    }

    /// Offers `hashes` for deletion: each that nobody in the state refers to (through the journal
    /// entry read first, after catching up) is deleted unless the storage still keeps it. Returns
    /// whether any was.
    @discardableResult
    private func collect(_ hashes: [String]) async -> Bool {
        await store.catchUpWithJournal()
        let sequence = store.appliedJournalSequence
        let state = store.state
        let referenced = Set(state.users.values.flatMap { $0.photo?.hashes ?? [] })
        var deleted = false
        for hash in hashes where !referenced.contains(hash) {
            do {
                let gone = try await storage.delete(
                    hash: hash, unreferencedThrough: sequence, abandoningClaimsOlderThan: Self.claimLifetime)
                deleted = deleted || gone
            } catch {
                logger.warning("could not delete photo \(hash.prefix(12)), which nobody refers to (the next start-up will): \(error)")
            }
        }
        return deleted
    }

    /// Ends the upload's claim; a failure is logged (the claim then lapses after ``claimLifetime``).
    private func release(_ hash: String, referencedThrough sequence: Int64?) async {
        do {
            try await storage.release(hash: hash, referencedThrough: sequence)
        } catch {
            logger.warning("could not release the claim on photo \(hash.prefix(12)): \(error)")
        }
    }

}
