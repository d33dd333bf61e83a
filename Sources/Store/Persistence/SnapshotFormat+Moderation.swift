import Foundation

/// The moderation section of a version 3 snapshot (``SnapshotFormat``), after the search index:
///
///     moderatorCount { id }                                            (by id)
///     suspendedCount { id note }                                       (by id)
///     hiddenCount { id text author version addedBy? addedAt updatedBy? updatedAt note }   (by id)
///     nextReportID reportCount { id quote reporter reason at }        (by id)
///     logCount { kind note user? quote? reverted hidden }             (oldest first)
///       note: by? reason at; kind: its name
///
/// Version 2 snapshots predate moderation: they decode to none.
extension SnapshotFormat {
    static func encodeModeration(_ moderation: ModerationState, into writer: inout SnapshotWriter) {
        writer.count(moderation.moderators.count)
        for id in moderation.moderators.sorted(by: { $0.rawValue < $1.rawValue }) { writer.signed(id.rawValue) }
        writer.count(moderation.suspended.count)
        for (id, note) in moderation.suspended.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            writer.signed(id.rawValue)
            encode(note, into: &writer)
        }
        writer.count(moderation.hidden.count)
        for (_, hidden) in moderation.hidden.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            encode(hidden.quote, into: &writer)
            encode(hidden.note, into: &writer)
        }
        writer.signed(moderation.nextReportID.rawValue)
        writer.count(moderation.reports.count)
        for report in moderation.reports.values.sorted(by: { $0.id < $1.id }) {
            writer.signed(report.id.rawValue)
            writer.signed(report.quote.rawValue)
            writer.signed(report.reporter.rawValue)
            writer.string(report.reason)
            writer.date(report.at)
        }
        writer.count(moderation.log.count)
        for entry in moderation.log {
            writer.string(entry.kind.rawValue)
            encode(entry.note, into: &writer)
            writer.optional(entry.user?.rawValue)
            writer.optional(entry.quote?.rawValue)
            writer.count(entry.reverted)
            writer.count(entry.hidden)
        }
    }

    static func decodeModeration(from reader: inout SnapshotReader, quoteIDs: Range<Int>) throws(SnapshotFormatError) -> ModerationState {
        var moderation = ModerationState()
        for _ in 0..<(try reader.count()) { moderation.moderators.insert(UserID(try reader.signed())) }
        for _ in 0..<(try reader.count()) { moderation.suspended[UserID(try reader.signed())] = try note(from: &reader) }
        for _ in 0..<(try reader.count()) {
            let quote = try self.quote(from: &reader)
            guard quoteIDs.contains(quote.id.rawValue) else { throw SnapshotFormatError(description: "hidden quote id \(quote.id) out of range") }
            moderation.hidden[quote.id] = HiddenQuote(quote: quote, note: try note(from: &reader))
        }
        moderation.nextReportID = ReportID(try reader.signed())
        for _ in 0..<(try reader.count()) {
            let report = Report(
                id: ReportID(try reader.signed()), quote: QuoteID(try reader.signed()), reporter: UserID(try reader.signed()),
                reason: try reader.string(), at: try reader.date())
            guard report.id < moderation.nextReportID else { throw SnapshotFormatError(description: "report id \(report.id) out of range") }
            moderation.reports[report.id] = report
        }
        let logCount = try reader.count()
        moderation.log.reserveCapacity(logCount)
        for _ in 0..<logCount {
            let name = try reader.string()
            guard let kind = ModerationEntry.Kind(rawValue: name) else { throw SnapshotFormatError(description: "moderation kind \(name)") }
            moderation.log.append(
                ModerationEntry(
                    kind: kind, note: try note(from: &reader), user: try reader.optional().map { UserID($0) },
                    quote: try reader.optional().map { QuoteID($0) }, reverted: try reader.count(), hidden: try reader.count()))
        }
        return moderation
    }

    static func encode(_ quote: Quote, into writer: inout SnapshotWriter) {
        writer.signed(quote.id.rawValue)
        writer.string(quote.text)
        writer.string(quote.author)
        writer.signed(quote.version)
        writer.optional(quote.addedBy?.rawValue)
        writer.date(quote.addedAt)
        writer.optional(quote.updatedBy?.rawValue)
        writer.date(quote.updatedAt)
    }

    static func quote(from reader: inout SnapshotReader) throws(SnapshotFormatError) -> Quote {
        Quote(
            id: QuoteID(try reader.signed()), text: try reader.string(), author: try reader.string(),
            version: try reader.signed(), addedBy: try reader.optional().map { UserID($0) }, addedAt: try reader.date(),
            updatedBy: try reader.optional().map { UserID($0) }, updatedAt: try reader.date())
    }

    private static func encode(_ note: ModerationNote, into writer: inout SnapshotWriter) {
        writer.optional(note.by?.rawValue)
        writer.string(note.reason)
        writer.date(note.at)
    }

    private static func note(from reader: inout SnapshotReader) throws(SnapshotFormatError) -> ModerationNote {
        ModerationNote(by: try reader.optional().map { UserID($0) }, reason: try reader.string(), at: try reader.date())
    }
}
