package import Foundation

/// What an account may do besides what everyone may: moderate (SPEC.md "Moderation"). Given and
/// taken only by the operator (`quotebook user role`).
package enum Role: String, Codable, Sendable, CaseIterable {
    case member
    case moderator
}

/// Identifies a report; assigned by the reducer in order, starting at 1.
package struct ReportID: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    package let rawValue: Int

    package init(rawValue: Int) { self.rawValue = rawValue }
    package init(_ rawValue: Int) { self.rawValue = rawValue }

    package var description: String { String(rawValue) }
    package static func < (lhs: ReportID, rhs: ReportID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An open report of a quote: who thinks it should not be there, and why.
package struct Report: Sendable, Equatable, Identifiable {
    package var id: ReportID
    package var quote: QuoteID
    package var reporter: UserID
    package var reason: String
    package var at: Date

    package init(id: ReportID, quote: QuoteID, reporter: UserID, reason: String, at: Date) {
        self.id = id
        self.quote = quote
        self.reporter = reporter
        self.reason = reason
        self.at = at
    }
}

/// Who did a moderation action, why and when: what a hidden quote or a suspension shows.
package struct ModerationNote: Sendable, Equatable {
    /// The moderator; nil for the operator's command line.
    package var by: UserID?
    package var reason: String
    package var at: Date

    package init(by: UserID?, reason: String, at: Date) {
        self.by = by
        self.reason = reason
        self.at = at
    }
}

/// One line of the moderation log (`/moderation/log`): every moderation action, as it happened.
package struct ModerationEntry: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case roleGiven = "role_given", roleTaken = "role_taken"
        case reportDismissed = "report_dismissed"
        case quoteHidden = "quote_hidden", quoteUnhidden = "quote_unhidden"
        case suspended, unsuspended
        case reverted
    }

    package var kind: Kind
    package var note: ModerationNote
    /// The person acted on (a role, a suspension, a revert), if any.
    package var user: UserID?
    /// The quote acted on (a report's, a hidden one), if any.
    package var quote: QuoteID?
    /// How many quotes a revert went back on, and hid.
    package var reverted: Int
    package var hidden: Int

    package init(kind: Kind, note: ModerationNote, user: UserID? = nil, quote: QuoteID? = nil, reverted: Int = 0, hidden: Int = 0) {
        self.kind = kind
        self.note = note
        self.user = user
        self.quote = quote
        self.reverted = reverted
        self.hidden = hidden
    }
}

/// The moderation part of ``AppState``: roles, suspensions, hidden quotes, open reports and the
/// log. A hidden quote leaves ``AppState/quotes`` (and with it every list, search, profile and
/// feed) for ``hidden``, which only moderators' pages read.
package struct ModerationState: Sendable, Equatable {
    package var moderators: Set<UserID> = []
    package var suspended: [UserID: ModerationNote] = [:]
    /// Hidden quotes, as they were when hidden, and why.
    package var hidden: [QuoteID: HiddenQuote] = [:]
    /// Open reports by id.
    package var reports: [ReportID: Report] = [:]
    package var nextReportID = ReportID(1)
    /// Every moderation action, oldest first.
    package var log: [ModerationEntry] = []

    package init() {}

    /// Whether `user` may moderate.
    package func isModerator(_ user: UserID?) -> Bool {
        user.map { moderators.contains($0) } ?? false
    }

    /// The open report `reporter` made of `quote`, if any (one a person and quote).
    package func openReport(of quote: QuoteID, by reporter: UserID) -> Report? {
        reports.values.first { $0.quote == quote && $0.reporter == reporter }
    }
}

/// A quote taken out of the book by a moderator, kept whole to be brought back.
package struct HiddenQuote: Sendable, Equatable {
    package var quote: Quote
    package var note: ModerationNote

    package init(quote: Quote, note: ModerationNote) {
        self.quote = quote
        self.note = note
    }
}

/// What a revert does, planned from the quotes' histories before it is dispatched (the state
/// holds only current versions): the quotes to take back and the ones to hide, each with the
/// version it was at when planned. The reducer acts on a quote only while it is still at that
/// version by the reverted person, so a change since (someone else's) wins, and replay does the
/// same as the first time.
package struct RevertPlan: Codable, Sendable, Equatable {
    /// A quote whose current version the person made, and the newest version someone else made.
    package struct Restore: Codable, Sendable, Equatable {
        package var quote: QuoteID
        package var baseVersion: Int
        package var draft: QuoteDraft
        package var fromVersion: Int

        package init(quote: QuoteID, baseVersion: Int, draft: QuoteDraft, fromVersion: Int) {
            self.quote = quote
            self.baseVersion = baseVersion
            self.draft = draft
            self.fromVersion = fromVersion
        }
    }

    /// A quote only the person ever wrote, at `baseVersion`.
    package struct Hide: Codable, Sendable, Equatable {
        package var quote: QuoteID
        package var baseVersion: Int

        package init(quote: QuoteID, baseVersion: Int) {
            self.quote = quote
            self.baseVersion = baseVersion
        }
    }

    package var restores: [Restore]
    package var hides: [Hide]

    package init(restores: [Restore] = [], hides: [Hide] = []) {
        self.restores = restores
        self.hides = hides
    }
}

/// A version a revert made: quote `quote` is at `version` now.
package struct RevertedVersion: Sendable, Equatable {
    package var quote: QuoteID
    package var version: Int

    package init(quote: QuoteID, version: Int) {
        self.quote = quote
        self.version = version
    }
}

extension ModerationState {
    /// Longest reason, in characters (a report's, or a moderator's).
    package static let maximumReasonLength = 500

    /// What is wrong with a reason as typed, nil when it may be kept (after trimming).
    package static func problem(withReason reason: String) -> FieldProblem? {
        FieldProblem.check(
            QuoteDraft.trimmingWhitespace(reason), layout: .multiline, maximum: maximumReasonLength)
    }
}
