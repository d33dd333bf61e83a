package import Store

/// A reported quote as the moderation queue shows it: the quote, who added it, its open reports
/// (the newest ``ModerationController/reportsShownPerQuote``, oldest first, each with its
/// reporter) and how many it has in all.
package struct ReportedQuote: Sendable, Equatable {
    package var quote: Quote
    package var addedBy: User?
    package var reports: [(report: Report, reporter: User?)]
    package var reportCount: Int

    package static func == (left: ReportedQuote, right: ReportedQuote) -> Bool {
        left.quote == right.quote && left.addedBy == right.addedBy && left.reports.map(\.report) == right.reports.map(\.report)
            && left.reportCount == right.reportCount
    }
}

/// One page of a list a moderator reads, of `pageCount` (at least 1).
package struct ModerationPage<Item: Sendable & Equatable>: Sendable, Equatable {
    package var items: [Item]
    package var page: Int
    package var pageCount: Int
    /// Where the first item stands in the whole list, from 1 (a numbered list goes on counting
    /// from the page before).
    package var firstNumber = 1
}

/// What `/moderation` shows: a page of reported quotes, the most recently reported first; the
/// quotes hidden most recently and how many are hidden; `problem` when a moderator's reason
/// could not be kept.
package struct ModerationQueue: Sendable, Equatable {
    package var reported: ModerationPage<ReportedQuote>
    package var recentlyHidden: [HiddenQuote]
    package var hiddenCount: Int
    package var problem: FieldProblem?
}

/// One line of `/moderation/log`, with the people it names as they are now (nil: a former
/// member, or for `moderator` the operator's command line).
package struct ModerationLogLine: Sendable, Equatable {
    package var entry: ModerationEntry
    package var moderator: User?
    package var user: User?
}

/// How reporting a quote went.
package enum ReportState: Sendable, Equatable {
    /// Reported (or already reported by this person: one open report a person and quote).
    case reported
    case notFound
    case invalidReason(FieldProblem)
    /// ``ModerationController/reportsPerPersonHour`` reports this hour; the next in this many seconds.
    case limited(retryAfter: Int)
}

/// How a moderator's action went.
package enum ModerationActionState: Sendable, Equatable {
    case done
    /// The report or quote is gone (another moderator acted first).
    case notFound
    /// Refused: the target is a moderator, or the asker no longer is one.
    case notAllowed
    case invalidReason(FieldProblem)
}
