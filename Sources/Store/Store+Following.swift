import Logging
import Synchronization

/// Following a journal that other processes append to (PostgreSQL behind several instances).
///
/// The journal is one ordered log, and this store's state is always the log up to
/// ``Store/appliedSequence``. Entries other processes appended are read in order, applied with the
/// reducer's total `apply` (they were validated where they were dispatched) and published like
/// this store's own: state and revision, then observers, so a page on this
/// instance sees a save made on another. Middleware is not told: it counts and logs what this
/// instance was asked to do.
///
/// A catch-up holds the lead, as a commit does, so it never overlaps one; dispatches arriving
/// meanwhile queue behind it and are validated again on the new state before they commit.
extension Store {
    /// This many optimistic catch-ups for one batch (each means another process appended
    /// meanwhile) before its append holds the journal's head instead, which cannot be refused.
    static let optimisticCatchUps = 2

    /// Catches up every time the journal wakes the store, until ``close()`` finishes `wakes`.
    /// The task holds the store only while it catches up, so a store dropped without closing is
    /// freed (its journal then stops waking it).
    nonisolated func startFollowing(_ wakes: AsyncStream<Int64?>) {
        Task { [weak self] in
            for await head in wakes {
                guard let self else { return }
                // A head this store has applied (the notification of its own commit, mostly):
                // nothing to read, and no reason to take the lead from the next save.
                if let head, head <= self.appliedJournalSequence { continue }
                await self.followJournal(toward: head)
            }
        }
    }

    /// Reads and applies what other processes appended to the shared journal, now rather than at
    /// the next wake-up, for a caller that knows it is behind (a session for an account another
    /// instance has just made). Returns at once for a journal only this store writes.
    package func catchUpWithJournal() async {
        guard followsJournal else { return }
        await followJournal(toward: nil)
    }

    /// True when other processes append to the journal too (PostgreSQL behind several
    /// instances): only then can this store's state lag behind the log.
    package nonisolated var sharesJournal: Bool {
        followsJournal
    }

    /// The newest journal entry the current ``state`` includes, without waiting for the actor.
    package nonisolated var appliedJournalSequence: Int64 {
        publishedSequence.load(ordering: .acquiring)
    }

    /// Waits until ``state`` includes journal entry `sequence` — say a person's own save, made
    /// on another instance — catching up with the journal meanwhile, for at most `timeout`;
    /// returns whether it does. At once, true, when it already does or the journal is not shared.
    package nonisolated func waitForJournal(through sequence: Int64, timeout: Duration) async -> Bool {
        guard followsJournal, appliedJournalSequence < sequence else { return true }
        // Unstructured, so a catch-up stuck on the database never holds this request past `timeout`.
        Task { await self.catchUpWithJournal() }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while appliedJournalSequence < sequence {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// One wake-up: waits for the lead (a commit in flight checks the journal's head itself),
    /// catches up, and hands the lead on. `head`, when known, is the log's head at the wake-up:
    /// reached meanwhile (by the commit that held the lead), there is nothing to read.
    private func followJournal(toward head: Int64?) async {
        while isCommitting, !isClosed { await withCheckedContinuation { idleWaiters.append($0) } }
        guard !isClosed else { return }
        if let head, head <= appliedSequence { return }
        isCommitting = true
        do {
            var nothingInFlight: [ValidatedAction] = []
            if try await catchUp() { revalidate(&nothingInFlight) }
        } catch {
            logger.warning("could not read the journal's new entries (retried at the next wake-up): \(error)")
        }
        handOffLead()
    }

    /// Reads the entries after ``appliedSequence`` and applies and publishes them in order; true
    /// when there were any. Call it holding the lead, then ``revalidate(_:)``.
    func catchUp() async throws(StoreError) -> Bool {
        let entries = try await writer.entries(after: appliedSequence)
        var state = self.state
        var applied = 0
        for entry in entries where entry.sequence > appliedSequence {
            let event = AppReducer.apply(entry.action, to: &state)
            publish(state)
            appliedSequence = entry.sequence
            applied += 1
            announce(event)
        }
        publishedSequence.store(appliedSequence, ordering: .releasing)
        if applied > 0 { logger.debug("applied \(applied) journal entries from other processes, through \(appliedSequence)") }
        return applied > 0
    }

    /// Validates `batch`, then everything queued, again and in order, on the published state:
    /// what was accepted on a state that turned out stale may now be refused (an edit from a
    /// version someone else replaced), and the other way round.
    func revalidate(_ batch: inout [ValidatedAction]) {
        tentative = self.state
        for index in batch.indices { batch[index] = validate(batch[index].action) }
        for index in queued.indices { queued[index].validated = validate(queued[index].validated.action) }
    }
}
