import Foundation

/// The snapshot's stored form: ``AppState`` in a compact binary encoding of its own. With 100,000
/// quotes the JSON it replaced made start-up take 1.4 s, nearly all in `JSONDecoder`; this one
/// (28 MB, half of it the search index) loads in about 46 ms (`ScaleBenchmark phases`).
///
/// Layout, version 3 (integers are LEB128, signed ones zig-zag; strings are a byte length and
/// UTF-8; dates the 8 little-endian bytes of their `timeIntervalSinceReferenceDate`):
///
///     "QBSS" version
///     nextQuoteID nextUserID lastChangedQuote?
///     quoteCount { id text author version addedBy? addedAt updatedBy? updatedAt }   (in quoteOrder)
///     orderCount { id − previous id }
///     userCount { id username displayName photo? favourite? joinedAt }              (by id)
///       photo: 0, or 1 hash mediaType, or 2 hash mediaType smallHash
///     nameCount { username id }                                                      (by name)
///     foldFingerprint chunkCount { byteCount bytes ends[256] as UInt32 LE }
///     moderation (SnapshotFormat+Moderation.swift; not in version 2)
///     "END."
///
/// The search index is stored as it is, so start-up copies it instead of folding 100,000
/// quotes; when ``SearchFolding/fingerprint`` differs (a toolchain with other Unicode tables, or a
/// changed fold) it is rebuilt from the quotes instead, so queries and keys are always folded
/// the same way. Version 1 also held each person's password hash after their display name: it is
/// read (the hash skipped) so that a book of an earlier build starts without a replay, and
/// ``isCurrent(_:)`` tells its owner to write it again without. A version this build does not know, or bytes that do not parse, are an error:
/// the snapshot is derived data, and the store then replays the whole journal.
package enum SnapshotFormat {
    static let magic: [UInt8] = Array("QBSS".utf8)
    static let version: UInt64 = 3
    /// The version whose users carried a password hash.
    static let versionWithSecrets: UInt64 = 1
    /// The version before moderation (``encodeModeration(_:into:)``): read as having none.
    static let versionBeforeModeration: UInt64 = 2

    /// Whether `bytes` are a snapshot in this build's version (a version 1 snapshot holds
    /// password hashes and should be replaced).
    /// How many of a snapshot's first bytes ``isCurrent(_:)`` needs: the magic and the version.
    package static var headerLength: Int { magic.count + 1 }

    package static func isCurrent(_ bytes: [UInt8]) -> Bool {
        bytes.count > magic.count && Array(bytes[..<magic.count]) == magic && UInt64(bytes[magic.count]) == version
    }
    static let trailer: [UInt8] = Array("END.".utf8)

    /// `state` in this format; `fingerprint` is the fold's (``SearchFolding/fingerprint``), and
    /// only tests pass another, to stand for a process that folds differently.
    package static func encode(_ state: AppState, fingerprint: UInt64 = SearchFolding.fingerprint) -> [UInt8] {
        let chunkBytes = state.searchIndex.chunks.reduce(0) { $0 + $1.bytes.count + 4 * $1.ends.count + 4 }
        var writer = SnapshotWriter(capacity: 2 * chunkBytes + 64 * state.quotes.count + 256 * state.users.count + 64)
        writer.raw(magic)
        writer.unsigned(version)
        writer.signed(state.nextQuoteID.rawValue)
        writer.signed(state.nextUserID.rawValue)
        writer.optional(state.lastChangedQuote?.rawValue)

        // Every quote is in quoteOrder (the reducer keeps them in step), so its order is both
        // deterministic and free; a state that broke that would still be written whole.
        let ordered = state.quoteOrder.count == state.quotes.count ? state.quoteOrder : state.quotes.keys.sorted()
        writer.count(ordered.count)
        for id in ordered {
            guard let quote = state.quotes[id] else { continue }
            encode(quote, into: &writer)
        }
        writer.count(state.quoteOrder.count)
        var previous = 0
        for id in state.quoteOrder {
            writer.signed(id.rawValue - previous)
            previous = id.rawValue
        }

        writer.count(state.users.count)
        for user in state.users.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            writer.signed(user.id.rawValue)
            writer.string(user.username.rawValue)
            writer.string(user.displayName)
            if let photo = user.photo {
                writer.raw([photo.small == nil ? 1 : 2])
                writer.string(photo.hash)
                writer.string(photo.mediaType)
                if let small = photo.small { writer.string(small) }
            } else {
                writer.raw([0])
            }
            writer.optional(user.favourite?.rawValue)
            writer.date(user.joinedAt)
        }
        writer.count(state.userIDsByName.count)
        for (name, id) in state.userIDsByName.sorted(by: { $0.key < $1.key }) {
            writer.string(name.rawValue)
            writer.signed(id.rawValue)
        }

        writer.fixed64(fingerprint)
        writer.count(state.searchIndex.chunks.count)
        for chunk in state.searchIndex.chunks {
            writer.count(chunk.bytes.count)
            writer.raw(chunk.bytes)
            writer.fixed32(chunk.ends)
        }
        encodeModeration(state.moderation, into: &writer)
        writer.raw(trailer)
        return writer.bytes
    }

    /// The state in `buffer`, the state after journal entry `sequence`, its search index rebuilt
    /// when it was folded another way.
    ///
    /// Every id was given by one of those entries, so none may exceed `sequence`: damaged bytes
    /// cannot make the quote table reach for a slot far past the book.
    ///
    /// - Throws: ``SnapshotFormatError`` for anything but this version's complete, consistent bytes.
    package static func decode(_ buffer: UnsafeRawBufferPointer, through sequence: Int64) throws(SnapshotFormatError) -> AppState {
        var reader = SnapshotReader(buffer)
        guard try reader.raw(magic.count) == magic else { throw SnapshotFormatError(description: "not a binary snapshot") }
        let found = try reader.unsigned()
        guard found == version || found == versionBeforeModeration || found == versionWithSecrets else {
            throw SnapshotFormatError(description: "snapshot version \(found), not \(version)")
        }
        var state = AppState()
        let ids = 1...Int(clamping: sequence + 1)
        state.nextQuoteID = QuoteID(try reader.signed())
        state.nextUserID = UserID(try reader.signed())
        guard ids.contains(state.nextQuoteID.rawValue), ids.contains(state.nextUserID.rawValue) else {
            throw SnapshotFormatError(description: "next ids past the journal's \(sequence) entries")
        }
        let quoteIDs = 1..<state.nextQuoteID.rawValue
        state.lastChangedQuote = try reader.optional().map { QuoteID($0) }

        let quoteCount = try reader.count()
        for _ in 0..<quoteCount {
            let quote = try self.quote(from: &reader)
            guard quoteIDs.contains(quote.id.rawValue), state.quotes[quote.id] == nil else {
                throw SnapshotFormatError(description: "quote id \(quote.id) repeated or out of range")
            }
            state.quotes[quote.id] = quote
        }
        let orderCount = try reader.count()
        state.quoteOrder.reserveCapacity(orderCount)
        var previous = 0
        for _ in 0..<orderCount {
            previous += try reader.signed()
            guard quoteIDs.contains(previous) else { throw SnapshotFormatError(description: "quote id \(previous) out of range") }
            state.quoteOrder.append(QuoteID(previous))
        }

        let userCount = try reader.count()
        for _ in 0..<userCount {
            let id = UserID(try reader.signed())
            let name = try reader.string()
            guard let username = Username(name), username.rawValue == name else {
                throw SnapshotFormatError(description: "not a username: \(name.debugDescription)")
            }
            let displayName = try reader.string()
            if found == versionWithSecrets { _ = try reader.string() }  // the hash, now in account storage
            let photo: PhotoReference? =
                switch try reader.byte() {
                case 0: nil
                case 1: PhotoReference(hash: try reader.string(), mediaType: try reader.string())
                case 2: PhotoReference(hash: try reader.string(), mediaType: try reader.string(), small: try reader.string())
                case let flag: throw SnapshotFormatError(description: "bad photo flag \(flag)")
                }
            state.users[id] = User(
                id: id, username: username, displayName: displayName, photo: photo,
                favourite: try reader.optional().map { QuoteID($0) }, joinedAt: try reader.date())
        }
        let nameCount = try reader.count()
        for _ in 0..<nameCount {
            let name = try reader.string()
            guard let username = Username(name), username.rawValue == name else {
                throw SnapshotFormatError(description: "not a username: \(name.debugDescription)")
            }
            state.userIDsByName[username] = UserID(try reader.signed())
        }

        let fingerprint = try reader.fixed64()
        let chunkCount = try reader.count()
        var chunks: [QuoteSearchIndex.Chunk] = []
        chunks.reserveCapacity(chunkCount)
        for _ in 0..<chunkCount {
            var chunk = QuoteSearchIndex.Chunk()
            chunk.bytes = try reader.raw(try reader.count())
            chunk.ends = try reader.fixed32(QuoteSearchIndex.slotsPerChunk)
            // Ranges must stay inside the bytes, whatever the disk held.
            guard zip(chunk.ends, chunk.ends.dropFirst()).allSatisfy({ $0 <= $1 }), chunk.ends.last.map(Int.init) == chunk.bytes.count
            else { throw SnapshotFormatError(description: "search index chunk \(chunks.count) is inconsistent") }
            chunk.deriveFilters()
            chunks.append(chunk)
        }
        if found == version { state.moderation = try decodeModeration(from: &reader, quoteIDs: quoteIDs) }
        guard try reader.raw(trailer.count) == trailer, reader.isAtEnd else {
            throw SnapshotFormatError(description: "does not end where it should")
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
