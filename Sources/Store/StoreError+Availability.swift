extension StoreError {
    /// True when the failure is the database being out of reach — a connection lost mid-call, a
    /// connection that could not be made, or the server shutting down or still starting — rather
    /// than a fault in what was asked: trying again shortly may well succeed, so the app answers
    /// 503 with `Retry-After` rather than 500. Which of its failures those are, each backend
    /// decides when it makes the ``DatabaseFailure``.
    package var isDatabaseUnavailable: Bool {
        if case .database(let failure) = self { return failure.isUnavailable }
        return false
    }

    /// The ``DatabaseFailure`` this is, if it is one.
    package var databaseFailure: DatabaseFailure? {
        if case .database(let failure) = self { return failure }
        return nil
    }
}
