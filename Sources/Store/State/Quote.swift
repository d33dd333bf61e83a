package import Foundation

/// Identifies a quote; assigned by the reducer in the order quotes are added, starting at 1.
package struct QuoteID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package let rawValue: Int

    package init(rawValue: Int) { self.rawValue = rawValue }
    package init(_ rawValue: Int) { self.rawValue = rawValue }

    package var description: String { String(rawValue) }

    /// The server's own numbers: hashed by ``ServerIDHash``, not SipHash, in dictionaries and sets.
    /// Inlinable, with `==`, so that a dictionary look-up in another module (a list's adders,
    /// twenty a page) inlines them rather than calling each through its conformance.
    @inlinable package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    @inlinable package func _rawHashValue(seed: Int) -> Int { ServerIDHash.mix(rawValue, seed: seed) }
    @inlinable package static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    package static func < (lhs: QuoteID, rhs: QuoteID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A quote as it is now.
package struct Quote: Codable, Sendable, Equatable, Identifiable {
    package var id: QuoteID
    package var text: String
    package var author: String
    /// Starts at 1 and grows by one with every change; a save names the version it started from.
    package var version: Int
    package var addedBy: UserID?
    package var addedAt: Date
    package var updatedBy: UserID?
    package var updatedAt: Date

    package init(
        id: QuoteID, text: String, author: String, version: Int,
        addedBy: UserID?, addedAt: Date, updatedBy: UserID?, updatedAt: Date
    ) {
        self.id = id
        self.text = text
        self.author = author
        self.version = version
        self.addedBy = addedBy
        self.addedAt = addedAt
        self.updatedBy = updatedBy
        self.updatedAt = updatedAt
    }
}

/// One version of a quote: what it said after a change, who made it and when.
package struct QuoteVersion: Sendable, Equatable {
    package var version: Int
    package var text: String
    package var author: String
    package var editedBy: UserID?
    package var editedAt: Date
    /// For a restore, the version whose text it brought back.
    package var restoredFrom: Int?

    package init(version: Int, text: String, author: String, editedBy: UserID?, editedAt: Date, restoredFrom: Int? = nil) {
        self.version = version
        self.text = text
        self.author = author
        self.editedBy = editedBy
        self.editedAt = editedAt
        self.restoredFrom = restoredFrom
    }

    /// Quote `id`'s versions, oldest first, from its journal actions in order (those the journal
    /// indexed under `id`). Versions are numbered as the reducer numbers them: the add is 1, each
    /// edit or restore the next. Empty when the quote was deleted, as it is then gone.
    package static func history(from actions: some Sequence<AppAction>) -> [QuoteVersion] {
        versions(from: actions, startingAt: 1)
    }

    /// Versions `first`, `first + 1`, … from the actions that made them, in journal order: a
    /// page of ``history(from:)`` that starts with the entry that made version `first` (the
    /// entry at that offset among the quote's). Empty when the quote was deleted among them.
    package static func versions(from actions: some Sequence<AppAction>, startingAt first: Int) -> [QuoteVersion] {
        var versions: [QuoteVersion] = []
        for action in actions {
            let number = first + versions.count
            switch action {
            case let .addQuote(draft, user, date):
                let clean = draft.trimmed
                versions.append(QuoteVersion(version: number, text: clean.text, author: clean.author, editedBy: user, editedAt: date))
            case let .editQuote(_, draft, _, user, date):
                let clean = draft.trimmed
                versions.append(QuoteVersion(version: number, text: clean.text, author: clean.author, editedBy: user, editedAt: date))
            case let .restoreQuote(_, draft, from, user, date):
                let clean = draft.trimmed
                versions.append(QuoteVersion(
                    version: number, text: clean.text, author: clean.author, editedBy: user, editedAt: date, restoredFrom: from))
            case .deleteQuote:
                return []
            case .signUp, .changeDisplayName, .setPhoto, .setFavourite, .passwordChanged, .deleteAccount, .erased, .setRole,
                .reportQuote, .dismissReport, .hideQuote, .unhideQuote, .suspend, .unsuspend, .revertEdits:
                continue
            }
        }
        return versions
    }
}
