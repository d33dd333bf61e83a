/// An email address a person typed, checked to a conservative subset of RFC 5321 §4.1.2's
/// `Mailbox` that every relay accepts and that can never break out of a header or a command.
///
/// At most 254 characters (RFC 5321 §4.5.3.1.3's path limit less the angle brackets), exactly
/// one `@`; a local part of 1–64 characters from RFC 5322 §3.2.3's `atext` plus dots (no
/// leading, trailing or double dot); a domain of dot-separated labels of ASCII letters, digits
/// and hyphens, each 1–63 long, none starting or ending with a hyphen (one label is enough, so
/// `someone@localhost` works in tests). Quoted local parts, address literals, white space,
/// control characters (so no CR or LF) and anything outside ASCII (no SMTPUTF8, RFC 6531) are
/// refused. Nothing is trimmed: the caller decides whether surrounding spaces were typos.
///
/// The domain is kept in lower case, so two spellings of one domain are one address; the local
/// part is kept as typed (RFC 5321 §2.4: only the receiving host may fold its case).
package struct MailAddress: Sendable, Hashable {
    /// The canonical form: the local part as typed, `@`, the domain in lower case.
    package let text: String
    /// The domain, in lower case.
    package let domain: String

    /// The address `text` spells, or nil when it is not one (``check(_:)`` says why).
    package init?(_ text: String) {
        guard case .success(let address) = Self.check(text) else { return nil }
        self = address
    }

    private init(localPart: Substring, domain: String) {
        self.text = localPart + "@" + domain
        self.domain = domain
    }

    /// The address `text` spells, or the first rule it breaks.
    package static func check(_ text: String) -> Result<MailAddress, MailAddressProblem> {
        guard !text.isEmpty else { return .failure(.empty) }
        guard text.utf8.count <= 254 else { return .failure(.tooLong) }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .failure(.notOneAt) }
        // Its characters first: a local part of them only is ASCII, so its bytes are its characters.
        guard isLocalPart(parts[0]) else { return .failure(.invalidLocalPart) }
        guard parts[0].utf8.count <= maximumLocalPartBytes else { return .failure(.localPartTooLong) }
        guard isDomain(parts[1]) else { return .failure(.invalidDomain) }
        return .success(MailAddress(localPart: parts[0], domain: parts[1].lowercased()))
    }

    /// The longest local part, in bytes (RFC 5321 §4.5.3.1.1).
    package static let maximumLocalPartBytes = 64

    /// RFC 5322 §3.4.1's `dot-atom-text`, of any length (``maximumLocalPartBytes`` is checked after).
    private static func isLocalPart(_ part: Substring) -> Bool {
        let bytes = part.utf8
        guard !bytes.isEmpty, bytes.first != dot, bytes.last != dot else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            guard isAtext(byte) || byte == dot, !(byte == dot && previous == dot) else { return false }
            previous = byte
        }
        return true
    }

    /// Dot-separated labels of letters, digits and inner hyphens, each 1–63 bytes (RFC 1035
    /// §2.3.1, RFC 1123 §2.1 for labels starting with a digit).
    static func isDomain(_ part: Substring) -> Bool {
        let labels = part.utf8.split(separator: dot, omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != hyphen && label.last != hyphen
                && label.allSatisfy { isLetterOrDigit($0) || $0 == hyphen }
        }
    }

    /// RFC 5322 §3.2.3 `atext`: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    private static func isAtext(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || atextSymbols.contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            false
        }
    }

    private static let atextSymbols = Array("!#$%&'*+-/=?^_`{|}~".utf8)
    private static let dot = UInt8(ascii: ".")
    private static let hyphen = UInt8(ascii: "-")
}

extension MailAddress: CustomStringConvertible {
    package var description: String { text }
}

/// Stored as its text; decoding checks it again, so a tampered or outdated row fails to decode
/// rather than producing an address that could not have been typed.
extension MailAddress: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch Self.check(text) {
        case .success(let address):
            self = address
        case .failure(let problem):
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a mail address (\(problem))")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// Why a typed text is not a ``MailAddress``: the first rule it breaks, in the order checked.
package enum MailAddressProblem: Error, Sendable, Equatable {
    case empty
    /// Over 254 characters.
    case tooLong
    /// No `@`, or more than one.
    case notOneAt
    /// The part before the `@` is over 64 characters (RFC 5321).
    case localPartTooLong
    case invalidLocalPart
    case invalidDomain
}
