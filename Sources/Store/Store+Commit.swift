import Logging
import Synchronization

/// Group commit (see ``Store``): the leader commits its batch, publishes it and hands the lead on.
extension Store {
    /// The leader's turn: commits `first` and everything queued behind it in one transaction,
    /// publishes the batch and answers its followers (or fails them all, and whatever queued
    /// meanwhile), then hands the lead on. Returns `first`'s own answer.
    func commit(leading first: ValidatedAction) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        let followers = queued
        queued = []
        var batch = [first] + followers.map(\.validated)
        var answers: [ValidatedAction.Answer]
        do {
            answers = try await append(&batch)
        } catch {
            logger.error("could not commit \(batch.count) actions (and \(queued.count) queued behind them): \(error)")
            answers = batch.map { _ in .failure(error) }
            for late in queued { late.waiter.resume(returning: .answered(.failure(error))) }
            queued = []
            tentative = self.state
        }
        let own = answers.removeFirst()
        for (follower, answer) in zip(followers, answers) { follower.waiter.resume(returning: .answered(answer)) }
        handOffLead()
        return try own.get()
    }

    /// Makes the accepted actions of `batch` durable and publishes the batch; returns every
    /// action's answer. On a shared journal, when the journal refuses the append as behind (or,
    /// before a batch of refusals alone is answered, in any case), catches up with the journal,
    /// validates `batch` again on the new state and retries; after ``optimisticCatchUps`` such
    /// refusals it appends holding the journal's head (``appendHoldingHead(_:)``), which cannot
    /// be refused, so a save never fails merely because other instances keep appending first.
    func append(_ batch: inout [ValidatedAction]) async throws(StoreError) -> [ValidatedAction.Answer] {
        var catchUps = 0
        while true {
            if let (records, resultingState) = Self.acceptedRecords(of: batch) {
                do {
                    let sequences = try await writer.append(records, basedOn: appliedSequence, resulting: resultingState)
                    appliedSequence = sequences.last ?? appliedSequence
                    return publish(batch, sequences: sequences)
                } catch {
                    guard case .journalBehind(let head) = error else { throw error }
                    guard catchUps < Self.optimisticCatchUps else { return try await appendHoldingHead(&batch) }
                    logger.debug("the journal is at \(head), this store at \(appliedSequence): catching up before appending")
                }
            } else if !followsJournal || catchUps > 0 {
                // A batch of refusals alone writes nothing: the batch before it is already durable.
                return publish(batch, sequences: [])
            }
            catchUps += 1
            if try await catchUp() {
                revalidate(&batch)
            } else if Self.acceptedRecords(of: batch) == nil {
                return publish(batch, sequences: [])
            }
        }
    }

    /// The pessimistic append, for a batch others keep overtaking: holds the shared journal's
    /// head (PostgreSQL: `journal_head`'s row lock, in a transaction) while it catches up,
    /// validates `batch` again and appends, so no one can append in between and the append
    /// cannot be refused as behind.
    ///
    /// Why this design: optimistic appends cost one round trip and no lock while instances
    /// rarely collide, which is the common case, but under contention each retry can lose again
    /// and nothing bounds the losing streak. Taking the head's lock up front orders this batch
    /// among the others by the lock's queue, so it waits at most for the appends already queued
    /// on the row, each a short transaction — progress is guaranteed. The lock is held for one
    /// catch-up read and one validation, both quick; the other instances' appends wait that long.
    /// Batching is unchanged: the whole group commit goes through in this one transaction.
    func appendHoldingHead(_ batch: inout [ValidatedAction]) async throws(StoreError) -> [ValidatedAction.Answer] {
        logger.debug("appending \(batch.count) actions holding the journal's head after \(Self.optimisticCatchUps) refusals")
        try await writer.lockHead()
        do {
            if try await catchUp() { revalidate(&batch) }
            guard let (records, resultingState) = Self.acceptedRecords(of: batch) else {
                await writer.unlockHead()
                return publish(batch, sequences: [])
            }
            let sequences = try await writer.append(records, basedOn: appliedSequence, resulting: resultingState)
            appliedSequence = sequences.last ?? appliedSequence
            return publish(batch, sequences: sequences)
        } catch {
            await writer.unlockHead()
            throw error
        }
    }

    /// The journal records of `batch`'s accepted actions and the state after the last of them;
    /// nil when every action was refused.
    static func acceptedRecords(
        of batch: [ValidatedAction]
    ) -> (records: [JournalRecord], state: AppState)? {
        var records: [JournalRecord] = []
        var resultingState: AppState?
        for item in batch {
            guard case .accepted(let event, let state) = item.outcome else { continue }
            records.append(JournalRecord(item.action, event: event))
            resultingState = state
        }
        return resultingState.map { (records, $0) }
    }

    /// Publishes a durable batch, action by action in order: the state and revision, then
    /// middleware (with the action's own `sequences` entry), then observers; refusals
    /// go to middleware in their place. Returns every action's answer.
    func publish(_ batch: [ValidatedAction], sequences: [Int64]) -> [ValidatedAction.Answer] {
        defer { publishedSequence.store(appliedSequence, ordering: .releasing) }
        var answers: [ValidatedAction.Answer] = []
        answers.reserveCapacity(batch.count)
        var nextSequence = sequences.startIndex
        for item in batch {
            switch item.outcome {
            case .accepted(let event, let state):
                // The writer returns one sequence per accepted action (it checks the journal's count).
                let sequence = sequences[nextSequence]
                nextSequence += 1
                publish(state)
                for link in middleware { link.applied(item.action, event: event, sequence: sequence) }
                announce(event)
                answers.append(.success(.success(event)))
            case .refused(let rejection):
                for link in middleware { link.refused(item.action, because: rejection) }
                answers.append(.success(.failure(rejection)))
            }
        }
        return answers
    }

    /// Tells observers about `event`, whose state is already published.
    func announce(_ event: AppEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
    }

    /// Ends a leader's turn: the first queued dispatch leads the next batch, or, with nothing
    /// queued, the store is idle and waiting ``close()`` calls go on.
    func handOffLead() {
        guard queued.isEmpty else {
            let next = queued.removeFirst()
            next.waiter.resume(returning: .lead(next.validated))
            return
        }
        isCommitting = false
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters.removeAll()
    }
}
