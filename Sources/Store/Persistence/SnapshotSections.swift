import Foundation

/// What every section of one snapshot is checked against: the ids its header gave out, and the
/// version it was written in.
struct SnapshotBounds: Sendable {
    let quoteIDs: Range<Int>
    let version: UInt64
}

/// One section of a snapshot (``SnapshotFormat``), read on its own.
enum SnapshotSection: Sendable {
    /// Quotes in any order (version 3).
    case quotes([Quote])
    /// The quotes of one block of ids, in their slots (version 4).
    case quoteBlock(QuoteTable.Run)
    case order([QuoteID])
    case users([UserID: User], byName: [Username: UserID])
    case chunks([QuoteSearchIndex.Chunk])
    case moderation(ModerationState)

    /// The kinds of section, in the order a snapshot holds them.
    enum Kind: Sendable {
        case quotes
        /// Block `index`: ids `index * quotesPerBlock + 1` through `(index + 1) * quotesPerBlock`.
        case quoteBlock(index: Int)
        case order, users, chunks, moderation
    }

    /// The section of `kind` at `reader`'s position.
    static func read(_ kind: Kind, from reader: inout SnapshotReader, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> Self {
        switch kind {
        case .quotes: try readQuotes(from: &reader, bounds)
        case let .quoteBlock(index): try readQuoteBlock(index, from: &reader, bounds)
        case .order: try readOrder(from: &reader, bounds)
        case .users: try readUsers(from: &reader, bounds)
        case .chunks: try readChunks(from: &reader)
        case .moderation: .moderation(try SnapshotFormat.decodeModeration(from: &reader, quoteIDs: bounds.quoteIDs))
        }
    }

    private static func readQuotes(from reader: inout SnapshotReader, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> Self {
        let count = try reader.count()
        var quotes: [Quote] = []
        quotes.reserveCapacity(count)
        for _ in 0..<count {
            let quote = try SnapshotFormat.quote(from: &reader)
            guard bounds.quoteIDs.contains(quote.id.rawValue) else {
                throw SnapshotFormatError(description: "quote id \(quote.id) out of range")
            }
            quotes.append(quote)
        }
        return .quotes(quotes)
    }

    private static func readQuoteBlock(_ index: Int, from reader: inout SnapshotReader, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> Self {
        let chunksPerBlock = SnapshotFormat.quotesPerBlock / QuoteTable.slotsPerChunk
        var run = QuoteTable.Run(firstChunk: index * chunksPerBlock, chunkCount: chunksPerBlock)
        for _ in 0..<(try reader.count()) {
            let quote = try SnapshotFormat.quote(from: &reader)
            guard bounds.quoteIDs.contains(quote.id.rawValue), run.insertNew(quote) else {
                throw SnapshotFormatError(description: "quote id \(quote.id) repeated, out of range or outside its block")
            }
        }
        return .quoteBlock(run)
    }

    private static func readOrder(from reader: inout SnapshotReader, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> Self {
        let count = try reader.count()
        var order: [QuoteID] = []
        order.reserveCapacity(count)
        var previous = 0
        for _ in 0..<count {
            previous += try reader.signed()
            guard bounds.quoteIDs.contains(previous) else { throw SnapshotFormatError(description: "quote id \(previous) out of range") }
            order.append(QuoteID(previous))
        }
        return .order(order)
    }

    private static func readUsers(from reader: inout SnapshotReader, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> Self {
        let userCount = try reader.count()
        var users: [UserID: User] = [:]
        users.reserveCapacity(userCount)
        for _ in 0..<userCount {
            let id = UserID(try reader.signed())
            let username = try self.username(from: &reader)
            let displayName = try reader.string()
            if bounds.version == SnapshotFormat.versionWithSecrets { _ = try reader.string() }  // the hash, now in account storage
            let photo: PhotoReference? =
                switch try reader.byte() {
                case 0: nil
                case 1: PhotoReference(hash: try reader.string(), mediaType: try reader.string())
                case 2: PhotoReference(hash: try reader.string(), mediaType: try reader.string(), small: try reader.string())
                case let flag: throw SnapshotFormatError(description: "bad photo flag \(flag)")
                }
            users[id] = User(
                id: id, username: username, displayName: displayName, photo: photo,
                favourite: try reader.optional().map { QuoteID($0) }, joinedAt: try reader.date())
        }
        let nameCount = try reader.count()
        var names: [Username: UserID] = [:]
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount {
            names[try username(from: &reader)] = UserID(try reader.signed())
        }
        return .users(users, byName: names)
    }

    private static func readChunks(from reader: inout SnapshotReader) throws(SnapshotFormatError) -> Self {
        let count = try reader.count()
        var chunks: [QuoteSearchIndex.Chunk] = []
        chunks.reserveCapacity(count)
        for index in 0..<count {
            var chunk = QuoteSearchIndex.Chunk()
            chunk.bytes = try reader.raw(try reader.count())
            chunk.ends = try reader.fixed32(QuoteSearchIndex.slotsPerChunk)
            // Ranges must stay inside the bytes, whatever the disk held.
            guard zip(chunk.ends, chunk.ends.dropFirst()).allSatisfy({ $0 <= $1 }), chunk.ends.last.map(Int.init) == chunk.bytes.count
            else { throw SnapshotFormatError(description: "search index chunk \(index) of a block is inconsistent") }
            chunk.deriveFilters()
            chunks.append(chunk)
        }
        return .chunks(chunks)
    }

    private static func username(from reader: inout SnapshotReader) throws(SnapshotFormatError) -> Username {
        let name = try reader.string()
        guard let username = Username(name), username.rawValue == name else {
            throw SnapshotFormatError(description: "not a username: \(name.debugDescription)")
        }
        return username
    }
}

extension SnapshotFormat {
    static func encodeQuotes(_ ids: ClosedRange<Int>, of table: QuoteTable, into writer: inout SnapshotWriter) {
        writer.count(table.count(inIDs: ids))
        table.forEachQuote(inIDs: ids) { encode($0, into: &writer) }
    }

    static func encodeOrder(_ order: [QuoteID], into writer: inout SnapshotWriter) {
        writer.count(order.count)
        var previous = 0
        for id in order {
            writer.signed(id.rawValue - previous)
            previous = id.rawValue
        }
    }

    static func encodeUsers(of state: AppState, into writer: inout SnapshotWriter) {
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
    }

    static func encodeChunks(_ chunks: ArraySlice<QuoteSearchIndex.Chunk>, into writer: inout SnapshotWriter) {
        writer.count(chunks.count)
        for chunk in chunks {
            writer.count(chunk.bytes.count)
            writer.raw(chunk.bytes)
            writer.fixed32(chunk.ends)
        }
    }
}

/// The sections of a version 4 snapshot, found from its table of lengths, before any is read.
struct SnapshotSections {
    private typealias Kind = SnapshotSection.Kind
    /// What each section is, and where, in the table's order.
    private let sections: [(kind: Kind, bytes: Range<Int>)]

    /// The table at `reader`'s position, whose sections must fill what is left up to the
    /// `trailer`'s bytes; `reader` is left at the trailer.
    static func read(from reader: inout SnapshotReader, trailer: Int) throws(SnapshotFormatError) -> Self {
        let quoteBlocks = try reader.count()
        let chunkBlocks = try reader.count()
        // Each length takes 8 bytes, so neither count can ask for more entries than bytes left.
        guard quoteBlocks <= reader.remaining / 8, chunkBlocks <= reader.remaining / 8 else {
            throw SnapshotFormatError(description: "more sections than bytes")
        }
        let kinds: [Kind] =
            (0..<quoteBlocks).map { .quoteBlock(index: $0) } + [.order, .users] + Array(repeating: .chunks, count: chunkBlocks) + [.moderation]
        var lengths: [Int] = []
        lengths.reserveCapacity(kinds.count)
        for _ in kinds { lengths.append(Int(clamping: try reader.fixed64())) }
        var start = reader.position
        var sections: [(kind: Kind, bytes: Range<Int>)] = []
        for (kind, length) in zip(kinds, lengths) {
            guard length <= reader.remaining - trailer - (start - reader.position) else {
                throw SnapshotFormatError(description: "section \(sections.count) of \(length) bytes past the end")
            }
            sections.append((kind, start..<start + length))
            start += length
        }
        try reader.skip(start - reader.position)
        return SnapshotSections(sections: sections)
    }

    /// Every section of `buffer`, read on as many cores as there are, in the table's order.
    /// Each must be read to its last byte.
    func decodedOnEveryCore(_ buffer: UnsafeRawBufferPointer, _ bounds: SnapshotBounds) throws(SnapshotFormatError) -> [SnapshotSection] {
        let sections = sections
        return try EveryCore.map(sections.count, reading: buffer) { buffer, index in
            Self.decode(sections[index], of: buffer, bounds)
        }.map { result throws(SnapshotFormatError) in try result.get() }
    }

    private static func decode(
        _ section: (kind: Kind, bytes: Range<Int>), of buffer: UnsafeRawBufferPointer, _ bounds: SnapshotBounds
    ) -> Result<SnapshotSection, SnapshotFormatError> {
        var reader = SnapshotReader(UnsafeRawBufferPointer(rebasing: buffer[section.bytes]))
        do throws(SnapshotFormatError) {
            let decoded = try SnapshotSection.read(section.kind, from: &reader, bounds)
            guard reader.isAtEnd else { throw SnapshotFormatError(description: "section at byte \(section.bytes.lowerBound) ends early") }
            return .success(decoded)
        } catch {
            return .failure(SnapshotFormatError(description: "\(error.description), in the section at byte \(section.bytes.lowerBound)"))
        }
    }
}
