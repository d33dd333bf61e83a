/// Whether a HEIF's primary image is HEVC-coded (issue 29): the `ftyp` brand alone says only what
/// the file claims, so an AV1 image labelled `heic` would reach libheif's AV1 decoder. This reads
/// the file's `meta` box (ISO/IEC 14496-12 §8.11; HEIF, ISO/IEC 23008-12 §9) from its first bytes,
/// before libvips or libheif see anything: the primary item (`pitm`), the items' types (`iinf`/
/// `infe`, versions 2 and 3) and, for a `grid`, the tiles it is derived from (`iref` `dimg`).
///
/// Accepted: a primary item of type `hvc1`, or a `grid` whose every tile is `hvc1` (what phones
/// write), and every auxiliary image of it (`auxl`: alpha, depth, a gain map, which libheif
/// decodes with it) `hvc1` too. Anything else — `av01`, `jpeg`, another derivation, a `meta` box
/// missing, damaged or not within the bytes read — is not HEVC; so is a file that says anything
/// twice (two `pitm`, `iinf` or `iref` boxes, or two entries for one item), since this check
/// and libheif could then read different ones (libheif keeps the first, a map the last).
/// Items nothing decodes with the primary (a thumbnail, EXIF, XMP) may be anything.
package enum HEIFPrimaryImage {
    /// How many bytes of the file are read for the check: a phone's `meta` box is a few KB.
    package static let headLength = 256 * 1024

    /// Whether the HEIF starting `head` has an HEVC primary image.
    package static func isHEVC(_ head: [UInt8]) -> Bool {
        var reader = BoxReader(bytes: head[...])
        while let box = reader.next() {
            if box.type == "meta" { return isHEVC(meta: box.body) }
        }
        return false
    }

    private static func isHEVC(meta: ArraySlice<UInt8>) -> Bool {
        guard meta.count >= 4 else { return false }
        var reader = BoxReader(bytes: meta.dropFirst(4))  // version and flags
        var primary: UInt32?
        var types: [UInt32: String]?
        var found: References?
        while let box = reader.next() {
            switch box.type {
            case "pitm":
                guard primary == nil else { return false }
                primary = primaryItem(box.body)
            case "iinf":
                guard types == nil else { return false }
                types = itemTypes(box.body)
            case "iref":
                guard found == nil else { return false }
                found = References(box.body)
            default: break
            }
        }
        guard let primary, let types, let type = types[primary] else { return false }
        let references = found ?? References()
        guard !references.isMalformed else { return false }
        // The auxiliary images of the primary: items with an `auxl` reference to it.
        for (auxiliary, masters) in references.auxiliary where masters.contains(primary) {
            guard types[auxiliary] == "hvc1" else { return false }
        }
        switch type {
        case "hvc1": return true
        case "grid":
            guard let tiles = references.derived[primary], !tiles.isEmpty else { return false }
            return tiles.allSatisfy { types[$0] == "hvc1" }
        default: return false
        }
    }

    /// `pitm`: version 0 holds a 16-bit item id, version 1 a 32-bit one.
    private static func primaryItem(_ body: ArraySlice<UInt8>) -> UInt32? {
        var fields = FieldReader(bytes: body)
        guard let version = fields.byte(), fields.skip(3) else { return nil }
        return version == 0 ? fields.uint16().map(UInt32.init) : fields.uint32()
    }

    /// `iinf`: an entry count (16 bits in version 0, else 32), then `infe` boxes; nil when one
    /// item has two entries.
    private static func itemTypes(_ body: ArraySlice<UInt8>) -> [UInt32: String]? {
        var fields = FieldReader(bytes: body)
        guard let version = fields.byte(), fields.skip(3), fields.skip(version == 0 ? 2 : 4) else { return nil }
        var types: [UInt32: String] = [:]
        var reader = BoxReader(bytes: fields.rest)
        while let box = reader.next() {
            var entry = FieldReader(bytes: box.body)
            guard box.type == "infe", let version = entry.byte(), entry.skip(3), version >= 2,
                let id = version == 2 ? entry.uint16().map(UInt32.init) : entry.uint32(),
                entry.skip(2), let type = entry.fourCC()
            else { continue }
            guard types.updateValue(type, forKey: id) == nil else { return nil }
        }
        return types
    }
}

/// `iref`: boxes named by their reference type, each `from`, a count and the `to` ids (16 bits
/// in version 0, else 32). `dimg` (a derived image's inputs: a grid's tiles) and `auxl` (an
/// auxiliary image's master) matter here; an item with two boxes of one of those is malformed.
private struct References {
    var derived: [UInt32: [UInt32]] = [:]
    var auxiliary: [UInt32: [UInt32]] = [:]
    var isMalformed = false

    init() {}

    init(_ body: ArraySlice<UInt8>) {
        var fields = FieldReader(bytes: body)
        guard let version = fields.byte(), fields.skip(3) else {
            isMalformed = true
            return
        }
        func id(_ reader: inout FieldReader) -> UInt32? { version == 0 ? reader.uint16().map(UInt32.init) : reader.uint32() }
        var reader = BoxReader(bytes: fields.rest)
        while let box = reader.next() {
            guard box.type == "dimg" || box.type == "auxl" else { continue }
            var entry = FieldReader(bytes: box.body)
            guard let from = id(&entry), let count = entry.uint16() else {
                isMalformed = true
                return
            }
            var targets: [UInt32] = []
            for _ in 0..<count {
                guard let target = id(&entry) else {
                    isMalformed = true
                    return
                }
                targets.append(target)
            }
            let previous =
                box.type == "dimg" ? derived.updateValue(targets, forKey: from) : auxiliary.updateValue(targets, forKey: from)
            if previous != nil { isMalformed = true }
        }
    }
}

/// The boxes of an ISO base media file, one after another: a 32-bit size (1: a 64-bit size
/// follows the type; 0: to the end) and a four-character type. Stops at the first box that does
/// not fit the bytes it has.
private struct BoxReader {
    var bytes: ArraySlice<UInt8>

    mutating func next() -> (type: String, body: ArraySlice<UInt8>)? {
        var fields = FieldReader(bytes: bytes)
        guard let size32 = fields.uint32(), let type = fields.fourCC() else { return nil }
        var header = 8
        var size = Int(size32)
        if size32 == 1 {
            guard let size64 = fields.uint64(), size64 <= UInt64(Int.max) else { return nil }
            size = Int(size64)
            header = 16
        } else if size32 == 0 {
            size = bytes.count
        }
        guard size >= header, size <= bytes.count else { return nil }
        let start = bytes.startIndex
        let body = bytes[(start + header)..<(start + size)]
        bytes = bytes[(start + size)...]
        return (type, body)
    }
}

/// Big-endian fields read in order; nil once the bytes run out.
private struct FieldReader {
    var bytes: ArraySlice<UInt8>

    var rest: ArraySlice<UInt8> { bytes }

    mutating func skip(_ count: Int) -> Bool {
        guard bytes.count >= count else { return false }
        bytes = bytes.dropFirst(count)
        return true
    }

    mutating func byte() -> UInt8? {
        guard let first = bytes.first else { return nil }
        bytes = bytes.dropFirst()
        return first
    }

    private mutating func number(_ count: Int) -> UInt64? {
        guard bytes.count >= count else { return nil }
        let value = bytes.prefix(count).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        bytes = bytes.dropFirst(count)
        return value
    }

    mutating func uint16() -> UInt16? { number(2).map { UInt16($0) } }
    mutating func uint32() -> UInt32? { number(4).map { UInt32($0) } }
    mutating func uint64() -> UInt64? { number(8) }

    mutating func fourCC() -> String? {
        guard bytes.count >= 4 else { return nil }
        defer { bytes = bytes.dropFirst(4) }
        return String(decoding: bytes.prefix(4), as: UTF8.self)
    }
}
