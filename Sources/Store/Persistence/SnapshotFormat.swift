import Foundation

/// The snapshot's stored form: ``AppState`` in a compact binary encoding of its own. With 100,000
/// quotes the JSON it replaced made start-up take 1.4 s, nearly all in `JSONDecoder`.
///
/// Layout, version 4 (integers are LEB128, signed ones zig-zag; strings are a byte length and
/// UTF-8; dates the 8 little-endian bytes of their `timeIntervalSinceReferenceDate`):
///
///     "QBSS" version
///     nextQuoteID nextUserID lastChangedQuote?
///     foldFingerprint quoteBlockCount chunkBlockCount
///     { byteCount as UInt64 LE }                  (one per section below, in their order)
///     quote blocks: quoteCount { id text author version addedBy? addedAt updatedBy? updatedAt }
///                                                 (block k: ids k × quotesPerBlock + 1 onwards, by id)
///     order:        orderCount { id − previous id }
///     users:        userCount { id username displayName photo? favourite? joinedAt }   (by id)
///                     photo: 0, or 1 hash mediaType, or 2 hash mediaType smallHash
///                   nameCount { username id }                                           (by name)
///     chunk blocks: chunkCount { byteCount bytes ends[256] as UInt32 LE }
///                                                 (at most chunksPerBlock each, in order)
///     moderation (SnapshotFormat+Moderation.swift)
///     "END."
///
/// The table of section lengths lets the sections be read at once on every core
/// (``SnapshotSections``): most of a 100,000-quote book's start-up is reading its snapshot. A
/// block of quotes fills whole chunks of the ``QuoteTable``, which are then joined without
/// copying a quote. Version 3 held the same sections in one pass, without the table, with all the
/// quotes in quoteOrder and the fingerprint before the chunks; version 2 had no moderation; version 1 also held each person's password
/// hash after their display name. All three are still read, so a book of an earlier build starts
/// without a replay, and ``isCurrent(_:)`` tells its owner to write it again in this version.
///
/// The search index is stored as it is, so start-up copies it instead of folding 100,000
/// quotes; when ``SearchFolding/fingerprint`` differs (a toolchain with other Unicode tables, or a
/// changed fold) it is rebuilt from the quotes instead, so queries and keys are always folded
/// the same way. A version this build does not know, or bytes that do not parse, are an error:
/// the snapshot is derived data, and the store then replays the whole journal.
package enum SnapshotFormat {
    static let magic: [UInt8] = Array("QBSS".utf8)
    static let version: UInt64 = 4
    /// The last version written in one pass, without a table of sections.
    package static let versionInOnePass: UInt64 = 3
    /// The version before moderation (``encodeModeration(_:into:)``): read as having none.
    static let versionBeforeModeration: UInt64 = 2
    /// The version whose users carried a password hash.
    static let versionWithSecrets: UInt64 = 1
    /// How many quotes, and how many chunks of the search index (256 quote ids each), one block
    /// holds: 25 blocks of each at 100,000 quotes, enough for every core to take its share.
    static let quotesPerBlock = 4_096
    static let chunksPerBlock = 16

    /// How many of a snapshot's first bytes ``isCurrent(_:)`` needs: the magic and the version.
    package static var headerLength: Int { magic.count + 1 }

    /// Whether `bytes` are a snapshot in this build's version (an earlier one is read, then
    /// written again).
    package static func isCurrent(_ bytes: [UInt8]) -> Bool {
        bytes.count > magic.count && Array(bytes[..<magic.count]) == magic && UInt64(bytes[magic.count]) == version
    }
    static let trailer: [UInt8] = Array("END.".utf8)

    /// `state` in this format; `fingerprint` is the fold's (``SearchFolding/fingerprint``), and
    /// only tests pass another, to stand for a process that folds differently, or an earlier
    /// `version` (``versionInOnePass``), to stand for an earlier build's snapshot.
    package static func encode(
        _ state: AppState, fingerprint: UInt64 = SearchFolding.fingerprint, version: UInt64 = version
    ) -> [UInt8] {
        let chunkBytes = state.searchIndex.chunks.reduce(0) { $0 + $1.bytes.count + 4 * $1.ends.count + 4 }
        var writer = SnapshotWriter(capacity: 2 * chunkBytes + 64 * state.quotes.count + 256 * state.users.count + 64)
        writer.raw(magic)
        writer.unsigned(version)
        writer.signed(state.nextQuoteID.rawValue)
        writer.signed(state.nextUserID.rawValue)
        writer.optional(state.lastChangedQuote?.rawValue)

        let highestID = max(state.nextQuoteID.rawValue - 1, state.quotes.highestID?.rawValue ?? 0)
        let quoteBlocks = stride(from: 1, through: highestID, by: quotesPerBlock).map { $0...$0 + quotesPerBlock - 1 }
        let chunks = state.searchIndex.chunks
        let chunkBlocks = stride(from: 0, to: chunks.count, by: chunksPerBlock).map { chunks[$0..<min($0 + chunksPerBlock, chunks.count)] }

        guard version > versionInOnePass else {
            // Every quote is in quoteOrder (the reducer keeps them in step), so its order is both
            // deterministic and free; a state that broke that would still be written whole.
            let ordered = state.quoteOrder.count == state.quotes.count ? state.quoteOrder : state.quotes.keys
            let quotes = ordered.compactMap { state.quotes[$0] }
            writer.count(quotes.count)
            for quote in quotes { encode(quote, into: &writer) }
            encodeOrder(state.quoteOrder, into: &writer)
            encodeUsers(of: state, into: &writer)
            writer.fixed64(fingerprint)
            encodeChunks(chunks[...], into: &writer)
            encodeModeration(state.moderation, into: &writer)
            writer.raw(trailer)
            return writer.bytes
        }
        writer.fixed64(fingerprint)
        writer.count(quoteBlocks.count)
        writer.count(chunkBlocks.count)
        var table = writer.reserveTable(quoteBlocks.count + chunkBlocks.count + 3)
        for block in quoteBlocks { writer.section(in: &table) { encodeQuotes(block, of: state.quotes, into: &$0) } }
        writer.section(in: &table) { encodeOrder(state.quoteOrder, into: &$0) }
        writer.section(in: &table) { encodeUsers(of: state, into: &$0) }
        for block in chunkBlocks { writer.section(in: &table) { encodeChunks(block, into: &$0) } }
        writer.section(in: &table) { encodeModeration(state.moderation, into: &$0) }
        writer.raw(trailer)
        return writer.bytes
    }

    /// The state in `buffer`, the state after journal entry `sequence`, its search index rebuilt
    /// when it was folded another way.
    ///
    /// Every id was given by one of those entries, so none may exceed `sequence`: damaged bytes
    /// cannot make the quote table reach for a slot far past the book.
    ///
    /// - Throws: ``SnapshotFormatError`` for anything but complete, consistent bytes of a version
    ///   this build reads.
    package static func decode(_ buffer: UnsafeRawBufferPointer, through sequence: Int64) throws(SnapshotFormatError) -> AppState {
        var reader = SnapshotReader(buffer)
        guard try reader.raw(magic.count) == magic else { throw SnapshotFormatError(description: "not a binary snapshot") }
        let found = try reader.unsigned()
        guard (versionWithSecrets...version).contains(found) else {
            throw SnapshotFormatError(description: "snapshot version \(found), not \(version)")
        }
        var state = AppState()
        let ids = 1...Int(clamping: sequence + 1)
        state.nextQuoteID = QuoteID(try reader.signed())
        state.nextUserID = UserID(try reader.signed())
        guard ids.contains(state.nextQuoteID.rawValue), ids.contains(state.nextUserID.rawValue) else {
            throw SnapshotFormatError(description: "next ids past the journal's \(sequence) entries")
        }
        let bounds = SnapshotBounds(quoteIDs: 1..<state.nextQuoteID.rawValue, version: found)
        state.lastChangedQuote = try reader.optional().map { QuoteID($0) }

        let sections: [SnapshotSection]
        let fingerprint: UInt64
        if found > versionInOnePass {
            fingerprint = try reader.fixed64()
            sections = try SnapshotSections.read(from: &reader, trailer: trailer.count).decodedOnEveryCore(buffer, bounds)
        } else {
            var parts = [
                try SnapshotSection.read(.quotes, from: &reader, bounds), try .read(.order, from: &reader, bounds),
                try .read(.users, from: &reader, bounds),
            ]
            fingerprint = try reader.fixed64()
            parts.append(try .read(.chunks, from: &reader, bounds))
            if found > versionBeforeModeration { parts.append(try .read(.moderation, from: &reader, bounds)) }
            sections = parts
        }
        guard try reader.raw(trailer.count) == trailer, reader.isAtEnd else {
            throw SnapshotFormatError(description: "does not end where it should")
        }
        var chunks: [QuoteSearchIndex.Chunk] = []
        for section in sections {
            switch section {
            case let .quotes(quotes):
                for quote in quotes {
                    guard state.quotes[quote.id] == nil else { throw SnapshotFormatError(description: "quote id \(quote.id) repeated") }
                    state.quotes[quote.id] = quote
                }
            case let .quoteBlock(run): state.quotes.append(run)
            case let .order(order): state.quoteOrder = order
            case let .users(users, names): (state.users, state.userIDsByName) = (users, names)
            case let .chunks(block): chunks += block
            case let .moderation(moderation): state.moderation = moderation
            }
        }
        if fingerprint == SearchFolding.fingerprint {
            state.searchIndex.chunks = chunks
        } else {
            for id in state.quoteOrder {
                guard let quote = state.quotes[id] else { continue }
                state.searchIndex.update(id, text: quote.text, author: quote.author)
            }
        }
        return state
    }
}
