import Glibc
import Basics
package import Store
import Templates

/// Everything a page's body shows apart from who is looking at it, as the view that made the
/// page names it (``Page/sharedKey``): the records it shows by id and version, and any text
/// that can change under the same versions (a person's display name). Two pages of one
/// template with equal keys and an equally shaped visitor (signed in or not, with a CSRF token
/// or not) render to the same bytes but for the visitor's own values — their display name,
/// profile link and CSRF token — which the renderer splices in (``PageSkeletons``).
///
/// The key is compared whole on every look-up (no digest), so two pages never share bytes by
/// a hash collision.
///
/// Held as two runs of plain memory — the numbers, and the texts' UTF-8 bytes back to back, each
/// text's byte count among the numbers where it was added, so no two sequences of parts give the
/// same key — which a look-up hashes in one pass each and compares with `memcmp`. (Arrays of
/// numbers and of `String`s were hashed element by element, a `String`'s hash normalising its
/// text: the biggest part of a history page's look-up.)
package struct PageContentKey: Hashable, Sendable {
    private var numbers: [Int] = []
    private var texts: [UInt8] = []

    package init() {}

    package mutating func append(_ number: Int) {
        numbers.append(number)
    }

    package mutating func append(_ text: String) {
        text.withUTF8InPlace { utf8 in
            numbers.append(utf8.count)
            texts.append(contentsOf: utf8)
        }
    }

    /// An empty key with room for `numbers` numbers and `textBytes` bytes of text: a view that
    /// knows its key's size makes each run once (a key made from a few numbers and then grown
    /// was two allocations, or more).
    package init(capacity numbers: Int, textBytes: Int = 0) {
        self.numbers.reserveCapacity(numbers)
        if textBytes > 0 { texts.reserveCapacity(textBytes) }
    }

    package func hash(into hasher: inout Hasher) {
        numbers.withUnsafeBytes { hasher.combine(bytes: $0) }
        texts.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// What the skeletons' table hashes: the numbers (ids, versions and counts the server made,
    /// and a page number only up to the pages there are) folded one multiplication each, then
    /// mixed once with the table's seed by ``ServerIDHash``; texts (a search, which a client
    /// chooses) still go through `Hasher`, seeded.
    ///
    /// The fold is FxHash's step (rotate, xor, multiply: about five cycles a number, one after
    /// the other). SipHash over the numbers' bytes was about 1.5 % of a signed-in list page;
    /// a whole ``ServerIDHash`` mix for each number, two multiplications and three shifts in
    /// one chain, was still 4 % of its user-space CPU (a list's key holds some 65 numbers).
    /// Equal keys are compared whole, so a weaker fold can cost a probe, never a wrong page.
    package func _rawHashValue(seed: Int) -> Int {
        let fold = numbers.withUnsafeBufferPointer { numbers in
            var folded = UInt64(truncatingIfNeeded: numbers.count)
            for number in numbers {
                folded = ((folded << 5 | folded >> 59) ^ UInt64(truncatingIfNeeded: number)) &* 0x517C_C1B7_2722_0A95
            }
            return Int(truncatingIfNeeded: folded)
        }
        let folded = ServerIDHash.mix(fold, seed: seed)
        guard !texts.isEmpty else { return folded }
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(folded)
        texts.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        Self.sameBytes(lhs.numbers, rhs.numbers) && Self.sameBytes(lhs.texts, rhs.texts)
    }

    /// One `memcmp` (an array's `==` compares element by element).
    private static func sameBytes<Element>(_ lhs: [Element], _ rhs: [Element]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
        }
    }
}

/// A page rendered once for everyone who sees it in the same shape, with holes where the
/// visitor's own values go: the shared parts of a signed-in page are rendered once per version
/// of what it shows, and each request copies them and escapes three short values into the holes.
///
/// A skeleton is made by rendering the page with a marker in place of each per-visitor value:
/// `qbhole` followed by a random per-process nonce (128 bits, never sent: every marker is
/// replaced before a page leaves) and the hole's number. The markers pass through HTML escaping
/// unchanged, so the page around them is byte for byte what a render with the real values
/// gives; the real values are escaped as `{{name}}` escapes them. The templates show the three
/// values only as escaped interpolations, which `PageRendererTests` checks page by page against
/// whole renders.
///
/// Bounded: once the bytes held pass ``maximumBytes`` it starts over empty; a skeleton whose
/// key names an old version is never asked for again. Kept in a ``BoundedCache``
/// costed by bytes: one look-up per keyed page, one insert per skeleton made.
final class PageSkeletons: Sendable {
    /// The per-visitor values, in hole-number order.
    enum Hole: Int, CaseIterable {
        case displayName, profileURL, csrfToken
    }

    struct Key: Hashable, Sendable {
        let template: PageTemplate
        let status: Int
        let content: PageContentKey
        let isSignedIn: Bool
        /// A moderator's navigation has a link a member's has not.
        let isModerator: Bool
        let hasToken: Bool

        /// The content key's hash (``PageContentKey/_rawHashValue(seed:)``) with the status and
        /// flags folded in; a synthesized hash sent every field through SipHash, the content
        /// key's numbers included. The template is left out of the hash, not of equality: two
        /// pages with the same content key and another template are rare, and only compared.
        func _rawHashValue(seed: Int) -> Int {
            let flags = status << 3 | (isSignedIn ? 1 : 0) | (isModerator ? 2 : 0) | (hasToken ? 4 : 0)
            return ServerIDHash.mix(content._rawHashValue(seed: seed) &+ flags, seed: seed)
        }
    }

    /// Shared bytes with holes: the page's bytes with each marker cut out, and where each was
    /// (``Cut``). A final class of two arrays: a look-up takes it with one retain, and a splice
    /// reads both in place. (An array of segments took a retain and a release of each segment
    /// on every splice, on arrays both event loops share: refcounts.sh.)
    final class Skeleton: Sendable {
        /// The page without its markers.
        let bytes: [UInt8]
        /// The holes in page order: each at `offset` in `bytes`, showing `hole`'s value.
        let cuts: [Cut]

        struct Cut: Sendable {
            let offset: Int
            let hole: Hole
        }

        init(bytes: [UInt8], cuts: [Cut]) {
            self.bytes = bytes
            self.cuts = cuts
        }
    }

    let maximumBytes: Int
    /// The marker text for each hole, by hole number.
    let markers: [String]
    private let markerPrefix: [UInt8]
    private let table: BoundedCache<Key, Skeleton>

    init(maximumBytes: Int = 8 << 20) {
        self.maximumBytes = maximumBytes
        table = BoundedCache(costLimit: maximumBytes, cost: \.bytes.count)
        var nonce = "qbhole"
        for byte in SecureRandom.bytes(16) {
            let hex = String(byte, radix: 16)
            nonce += hex.count == 1 ? "0" + hex : hex
        }
        markerPrefix = Array(nonce.utf8)
        markers = Hole.allCases.map { nonce + "x\($0.rawValue)" }
    }

    func skeleton(for key: Key) -> Skeleton? {
        table.value(forKey: key)
    }

    func store(_ skeleton: Skeleton, for key: Key) {
        table.insert(skeleton, forKey: key)
    }

    /// Skeletons held now (for tests).
    var count: Int { table.count }

    /// Cuts a page rendered with ``markers`` at each marker.
    func skeleton(of rendered: [UInt8]) -> Skeleton {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rendered.count)
        var cuts: [Skeleton.Cut] = []
        let prefix = markerPrefix
        let markerLength = prefix.count + 2
        var segmentStart = 0
        var index = 0
        let end = rendered.count
        while index + markerLength <= end {
            if rendered[index] == prefix[0], rendered[index..<index + prefix.count].elementsEqual(prefix),
                rendered[index + prefix.count] == UInt8(ascii: "x"),
                let hole = Hole(rawValue: Int(rendered[index + prefix.count + 1]) - Int(UInt8(ascii: "0")))
            {
                bytes.append(contentsOf: rendered[segmentStart..<index])
                cuts.append(Skeleton.Cut(offset: bytes.count, hole: hole))
                index += markerLength
                segmentStart = index
            } else {
                index += 1
            }
        }
        bytes.append(contentsOf: rendered[segmentStart...])
        return Skeleton(bytes: bytes, cuts: cuts)
    }

    /// A visitor's value for each hole, as the page shows them unescaped.
    struct Values {
        var displayName = ""
        var profileURL = ""
        var csrfToken = ""
    }

    /// The page for a visitor with `values` (escaped here).
    static func splice(_ skeleton: Skeleton, values: Values) -> [UInt8] {
        // Each value is escaped straight into the page at each of its holes, read in place once
        // for all of them: no buffer of its own (escaping the three once into one buffer was an
        // allocation on every page), and no retain per hole (a page of restore forms has a CSRF
        // hole per form, and the token is a string both event loops share).
        var output: [UInt8] = []
        output.reserveCapacity(skeleton.bytes.count + skeleton.cuts.count * 48)
        values.displayName.withUTF8InPlace { displayName in
            values.profileURL.withUTF8InPlace { profileURL in
                values.csrfToken.withUTF8InPlace { csrfToken in
                    skeleton.bytes.withUnsafeBufferPointer { bytes in
                        skeleton.cuts.withUnsafeBufferPointer { cuts in
                            var start = 0
                            for cut in cuts {
                                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<cut.offset]))
                                switch cut.hole {
                                case .displayName: HTMLEscaping.append(displayName, to: &output)
                                case .profileURL: HTMLEscaping.append(profileURL, to: &output)
                                case .csrfToken: HTMLEscaping.append(csrfToken, to: &output)
                                }
                                start = cut.offset
                            }
                            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
                        }
                    }
                }
            }
        }
        return output
    }
}

/// Something a page shows, written into its ``PageContentKey``: a quote, a listed quote.
package protocol PageContentKeyPart {
    func append(to key: inout PageContentKey)
}

extension Quote: PageContentKeyPart {
    /// A quote as cards show it: its id and version name its text, author and dates; who added
    /// it is added too, since "a former member" and "no one" do not change its version.
    package func append(to key: inout PageContentKey) {
        key.appendQuote(id: id, version: version, addedBy: addedBy)
    }
}

extension ListedQuote: PageContentKeyPart {
    /// A quote as lists show it: the quote, and beside it the photo of who added it (its
    /// addresses carry its hashes; its text, their name), or a marker for none. Who added a
    /// quote without a photo changes nothing a list shows, so costs one number.
    package func append(to key: inout PageContentKey) {
        quote.append(to: &key)
        if adder?.photo != nil { key.append(adder) } else { key.append(0) }
    }
}

extension PageContentKey {
    /// One part.
    mutating func append(_ part: some PageContentKeyPart) {
        part.append(to: &self)
    }

    /// A part, or a marker for none.
    mutating func append(_ part: (some PageContentKeyPart)?) {
        if let part {
            append(1)
            part.append(to: &self)
        } else {
            append(0)
        }
    }

    /// Quotes (a page of a longer list, read where it lies: no array made for it), after their
    /// count, each as ``Quote/append(to:)`` writes it.
    package mutating func append(_ quotes: ArraySlice<Quote>) {
        append(quotes.count)
        // Field by field, in place: calling a method on each element (a for-in, an index, even
        // a buffer pointer's) copies it out first, every text retained and released, on
        // strings both event loops share.
        for index in quotes.indices {
            appendQuote(id: quotes[index].id, version: quotes[index].version, addedBy: quotes[index].addedBy)
        }
    }

    /// Listed quotes, after their count, each as ``ListedQuote/append(to:)`` writes it; read in
    /// place, as above.
    package mutating func append(_ quotes: ListedQuotes) {
        append(quotes.count)
        for index in quotes.indices {
            appendQuote(id: quotes[quoteAt: index].id, version: quotes[quoteAt: index].version, addedBy: quotes[quoteAt: index].addedBy)
            if quotes[adderAt: index]?.photo != nil { append(quotes[adderAt: index]) } else { append(0) }
        }
    }

    /// What names a quote as cards show it (``Quote/append(to:)``).
    package mutating func appendQuote(id: QuoteID, version: Int, addedBy: UserID?) {
        append(id.rawValue)
        append(version)
        append(addedBy?.rawValue ?? -1)
    }

    /// A person as pages show them: name, username, their photo (its addresses carry its
    /// hashes) or none; a marker for no person.
    mutating func append(_ user: User?) {
        guard let user else {
            append(-1)
            return
        }
        append(user.id.rawValue)
        append(user.photo == nil ? 0 : 1)
        append(user.username.rawValue)
        append(user.displayName)
        if let photo = user.photo {
            // What `photo.hashes` holds, without building that array (twice) per person.
            append(photo.small == nil ? 1 : 2)
            append(photo.hash)
            if let small = photo.small { append(small) }
        }
    }
}
