package import Foundation

/// Identifies a person's account; assigned by the reducer in sign-up order, starting at 1.
package struct UserID: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
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
}

/// A username as stored: 3–32 of `a-z 0-9 _ -` (SPEC.md "Rules and answers").
///
/// Capitals typed at sign-up or sign-in are lower-cased before the check, so usernames are
/// unique ignoring case. Decoding checks the rule again, so no stored action can carry another.
package struct Username: Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    package let rawValue: String

    package static let lengths = 3...32

    /// The normalised username for what someone typed, or nil when it breaks the rule.
    package init?(_ typed: String) {
        // ASCII-only lower-casing: Unicode's would turn the Kelvin sign (U+212A) into "k".
        let bytes = typed.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 0x20 : $0 }
        guard Self.lengths.contains(bytes.count), bytes.allSatisfy(Self.isAllowed) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let name = Username(text), name.rawValue == text else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a username"))
        }
        self = name
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    package var description: String { rawValue }

    package static func < (lhs: Username, rhs: Username) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A slow salted password hash in `crypt(3)` form (`$y$…`, yescrypt); never the password.
///
/// Its description hides the value, so a hash never reaches a log line through interpolation.
package struct PasswordHash: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    package let encoded: String

    package init(encoded: String) { self.encoded = encoded }

    package init(from decoder: any Decoder) throws {
        encoded = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoded)
    }

    package var description: String { "<password hash>" }
    package var debugDescription: String { description }
}

/// A profile photo: the SHA-256 of its bytes (hex), which names it in the photo table, and its
/// image type; since issue 19 also the SHA-256 of its 96 px version (`small`), stored beside it
/// (nil for a photo stored as uploaded, before). The journal records this reference, never the bytes.
package struct PhotoReference: Codable, Sendable, Hashable {
    package var hash: String
    package var mediaType: String
    package var small: String?

    package init(hash: String, mediaType: String, small: String? = nil) {
        self.hash = hash
        self.mediaType = mediaType
        self.small = small
    }

    /// Every stored photo this one refers to: itself and its small version.
    package var hashes: [String] { [hash] + (small.map { [$0] } ?? []) }
}

/// A person's account and profile: nothing secret (the password's hash is in account storage).
package struct User: Codable, Sendable, Equatable, Identifiable {
    package var id: UserID
    package var username: Username
    package var displayName: String
    package var photo: PhotoReference?
    /// The quote shown large on their home page and profile.
    package var favourite: QuoteID?
    package var joinedAt: Date

    package init(
        id: UserID, username: Username, displayName: String,
        photo: PhotoReference? = nil, favourite: QuoteID? = nil, joinedAt: Date
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.photo = photo
        self.favourite = favourite
        self.joinedAt = joinedAt
    }

    /// Longest display name in characters, after trimming.
    package static let maximumDisplayNameLength = 50
    /// Largest display name in UTF-8 bytes (``FieldProblem/bytesPerCharacter``).
    package static let maximumDisplayNameBytes = FieldProblem.bytesPerCharacter * maximumDisplayNameLength

    /// What is wrong with a display name as typed, nil when it may be stored (after trimming).
    package static func problem(withDisplayName name: String) -> FieldProblem? {
        FieldProblem.check(
            QuoteDraft.trimmingWhitespace(name), layout: .singleLine, maximum: maximumDisplayNameLength)
    }
}
