import Basics
import Foundation

/// Folding text for search: the same function at index time and at query time, so that
/// "ecole" finds "École", "STRASSE" finds "Straße" and "lodz" finds "Łódź".
///
/// Deterministic: the output depends only on the input and on the Unicode tables of the
/// running toolchain (compatibility decomposition, lower-case mappings, general categories),
/// never on the locale. ``fingerprint`` changes when those tables fold differently, so stored
/// folded text (the snapshot's search index) is rebuilt rather than matched against queries
/// folded another way.
///
/// The steps, per Unicode scalar: compatibility decomposition (NFKD: "é" → "e" + U+0301, "ﬁ" →
/// "fi", full-width letters → ASCII); nonspacing and enclosing marks dropped (the accents);
/// format characters dropped (soft hyphen, zero-width joiners); controls and separators become
/// a space; lower-case mapping; then a few letters whose "accent" is not a separate mark are
/// spelled out (``letters``). ASCII text, by far the most common, takes a fast path that does
/// the same thing with a byte table.
package enum SearchFolding {
    /// Bumped by hand whenever the steps above change, so old stored folds are rebuilt.
    static let algorithmVersion: UInt64 = 1

    /// The folded UTF-8 of `text`.
    package static func fold(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        fold(text, into: &output)
        return output
    }

    /// Appends the folded UTF-8 of `text` to `output`.
    ///
    /// ASCII bytes are folded with a table; each run of non-ASCII scalars between them (every
    /// byte of a multi-byte UTF-8 sequence is 0x80 or above) is decomposed on its own. That is
    /// the decomposition of the whole text, run by run: an ASCII character is a starter that
    /// decomposes to itself, so normalisation never reorders or joins anything across it.
    /// Decomposing a whole quote for one accented letter was most of the cost of replaying its
    /// edit at start-up.
    package static func fold(_ text: String, into output: inout [UInt8]) {
        text.withUTF8InPlace { bytes in
            output.reserveCapacity(output.count + bytes.count)
            var index = 0
            while index < bytes.count {
                guard bytes[index] >= 0x80 else {
                    output.append(foldASCII(bytes[index]))
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, bytes[index] >= 0x80 { index += 1 }
                if index - start == 2 {
                    let value = Int(bytes[start] & 0x1F) << 6 | Int(bytes[start + 1] & 0x3F)
                    if latinFolds.indices.contains(value - 0xC0) {
                        output.append(contentsOf: latinFolds[value - 0xC0])
                        continue
                    }
                }
                foldDecomposing(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self), into: &output)
            }
        }
    }

    /// The fold of each accented Latin letter, U+00C0 to U+017F, standing alone: what a run of
    /// just that letter folds to, and most runs in European text are one of these.
    static let latinFolds: [[UInt8]] = (0xC0...0x17F).map { value in
        var folded: [UInt8] = []
        foldDecomposing(String(Character(Unicode.Scalar(UInt32(value))!)), into: &folded)
        return folded
    }

    /// The steps above for any text, decomposing it whole: ``fold(_:into:)`` calls it for each
    /// non-ASCII run, and tests check that the two agree.
    package static func foldDecomposing(_ text: String, into output: inout [UInt8]) {
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.isASCII {
                output.append(foldASCII(UInt8(scalar.value)))
                continue
            }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                append(lower, to: &output)
            }
        }
    }

    /// The search key of a quote: its folded text and author, separated by a space, so a word
    /// (which never holds a space) matches within one or the other.
    package static func key(text: String, author: String) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(text.utf8.count + author.utf8.count + 1)
        fold(text, into: &key)
        key.append(space)
        fold(author, into: &key)
        return key
    }

    /// Identifies how this process folds: a hash (FNV-1a, 64 bits) of ``algorithmVersion`` and
    /// of the fold of every scalar in the blocks where letters carry accents or have
    /// compatibility forms. Computed once, on first use (about a millisecond).
    package static let fingerprint: UInt64 = {
        var probe = String.UnicodeScalarView()
        let ranges: [ClosedRange<UInt32>] = [
            0x00A0...0x052F, 0x1E00...0x1FFF, 0x2000...0x206F, 0x2100...0x218F, 0xFB00...0xFB06, 0xFF01...0xFF5E,
        ]
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                probe.append(scalar)
                probe.append(" ")
            }
        }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ algorithmVersion
        // Decomposed whole, as ``fold(_:into:)`` would run by run (a run per probed scalar).
        var folded: [UInt8] = []
        foldDecomposing(String(probe), into: &folded)
        for byte in folded {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }()

    static let space = UInt8(ascii: " ")

    /// Lower case for A–Z; a space for controls (so a search key never holds a 0 byte).
    private static func foldASCII(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 0x20
        case 0..<0x20, 0x7F: space
        default: byte
        }
    }

    /// Appends one scalar of the decomposed, lower-cased text, dropping marks.
    private static func append(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        if scalar.isASCII {
            output.append(foldASCII(UInt8(scalar.value)))
            return
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return
        case .control, .spaceSeparator, .lineSeparator, .paragraphSeparator:
            output.append(space)
            return
        default:
            break
        }
        if let spelled = letters[scalar] {
            output.append(contentsOf: spelled.utf8)
        } else {
            output.append(contentsOf: String(scalar).utf8)
        }
    }

    /// Letters (after lower-casing) that decomposition leaves whole, spelled as a person without
    /// the key would type them; and typographic quotes and dashes as their ASCII forms.
    private static let letters: [Unicode.Scalar: String] = [
        "ß": "ss", "ı": "i", "ł": "l", "ø": "o", "đ": "d", "ð": "d", "ħ": "h", "ŧ": "t", "ƀ": "b", "ƶ": "z",
        "æ": "ae", "œ": "oe", "ς": "σ",
        "\u{2018}": "'", "\u{2019}": "'", "\u{201A}": "'", "\u{201B}": "'", "\u{2032}": "'",
        "\u{201C}": "\"", "\u{201D}": "\"", "\u{201E}": "\"", "\u{2033}": "\"",
        "\u{2010}": "-", "\u{2011}": "-", "\u{2012}": "-", "\u{2013}": "-", "\u{2014}": "-", "\u{2015}": "-",
    ]
}
