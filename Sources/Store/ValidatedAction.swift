/// An action the store has run through the reducer, waiting for its batch to become durable.
struct ValidatedAction: Sendable {
    /// What a dispatch finally answers: the reducer's verdict once its batch is durable, or the
    /// journal's failure.
    typealias Answer = Result<Result<AppEvent, ActionRejection>, StoreError>

    /// The reducer's verdict.
    enum Outcome: Sendable {
        /// Accepted: it did `event`, leaving `state` (the state after every action accepted so far).
        case accepted(AppEvent, state: AppState)
        /// Refused, possibly because of actions accepted but not yet durable.
        case refused(ActionRejection)
    }

    let action: AppAction
    let outcome: Outcome
}

/// A validated action whose dispatch is suspended until the commit in flight ends.
struct QueuedAction {
    /// Validated again, in place, whenever the store catches up with entries other processes appended.
    var validated: ValidatedAction
    /// Resumed once, with its answer or with the lead of the next batch.
    let waiter: CheckedContinuation<CommitTurn, Never>
}

/// What a queued dispatch is woken with.
enum CommitTurn: Sendable {
    /// Its batch ended.
    case answered(ValidatedAction.Answer)
    /// The batch before it ended and it heads the queue: it commits the queue now, starting with
    /// itself as validated last (possibly again, after catching up).
    case lead(ValidatedAction)
}
