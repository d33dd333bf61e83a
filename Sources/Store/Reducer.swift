/// The pure reducer: the only code that changes ``AppState``. No I/O, no clock, no randomness —
/// everything it needs is in the action, so replaying the journal rebuilds the same state.
package enum AppReducer {
    /// Applies `action` to `state`, returning what happened, or throws why it was refused
    /// (leaving `state` unchanged).
    package static func reduce(_ state: inout AppState, _ action: AppAction) throws(ActionRejection) -> AppEvent {
        switch action {
        case let .addQuote(draft, user, date):
            let problems = draft.problems
            guard problems.isEmpty else { throw .invalidQuote(problems) }
            let clean = draft.trimmed
            let id = state.nextQuoteID
            state.quotes[id] = Quote(
                id: id, text: clean.text, author: clean.author, version: 1,
                addedBy: user, addedAt: date, updatedBy: user, updatedAt: date
            )
            state.quoteOrder.append(id)
            state.history[id] = [QuoteVersion(version: 1, text: clean.text, author: clean.author, editedBy: user, editedAt: date)]
            state.lastChangedQuote = id
            state.nextQuoteID = QuoteID(id.rawValue + 1)
            return .quoteAdded(id)

        case let .editQuote(id, draft, baseVersion, user, date):
            guard var quote = state.quotes[id] else { throw .quoteNotFound(id) }
            guard quote.version == baseVersion else { throw .staleVersion(current: quote) }
            let problems = draft.problems
            guard problems.isEmpty else { throw .invalidQuote(problems) }
            let clean = draft.trimmed
            quote.text = clean.text
            quote.author = clean.author
            quote.version += 1
            quote.updatedBy = user
            quote.updatedAt = date
            state.quotes[id] = quote
            state.history[id, default: []].append(
                QuoteVersion(version: quote.version, text: clean.text, author: clean.author, editedBy: user, editedAt: date)
            )
            state.lastChangedQuote = id
            return .quoteEdited(id, version: quote.version)

        case let .signUp(username, displayName, passwordHash, date):
            guard state.userIDsByName[username] == nil else { throw .usernameTaken(username) }
            if let problem = User.problem(withDisplayName: displayName) { throw .invalidDisplayName(problem) }
            let id = state.nextUserID
            state.users[id] = User(
                id: id, username: username, displayName: QuoteDraft.trimmingWhitespace(displayName),
                passwordHash: passwordHash, joinedAt: date
            )
            state.userIDsByName[username] = id
            state.nextUserID = UserID(id.rawValue + 1)
            return .userSignedUp(id)

        case let .changeDisplayName(id, name, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }
            if let problem = User.problem(withDisplayName: name) { throw .invalidDisplayName(problem) }
            state.users[id]?.displayName = QuoteDraft.trimmingWhitespace(name)
            return .profileChanged(id)

        case let .setPhoto(id, photo, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }
            state.users[id]?.photo = photo
            return .profileChanged(id)

        case let .setFavourite(id, quoteID, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }
            guard state.quotes[quoteID] != nil else { throw .quoteNotFound(quoteID) }
            state.users[id]?.favourite = quoteID
            return .profileChanged(id)
        }
    }
}
