import Basics
import HTTPServer
import Store

/// Pages carry an `ETag`, and revalidating an unchanged page costs a 304 and no render: before
/// the child's flow, a GET whose `If-None-Match` names the page's current tag is answered 304;
/// after it, the page rendered gets the tag. A page that shows account storage (sessions,
/// addresses), which changes without the state, is tagged from its rendered bytes instead, and
/// answered 304 after its render. Not in `--dev`, where templates change under the pages.
final class PageTagMiddleware: RequestMiddleware, AnswerAmending {
    /// Random per process, in every page's `ETag`, so a tag from before a restart never matches.
    let bootID: [UInt8]
    let tagsPages: Bool

    init(bootID: [UInt8], tagsPages: Bool) {
        self.bootID = bootID
        self.tagsPages = tagsPages
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard tagsPages, let route = context.route, route.method == .get else { return next.handle(context) }
        guard route.isTaggedByState else {
            context.pageTagging = .content
            return next.handle(context).amended(by: self, for: context)
        }
        let tag = pageTag(for: context)
        // `*` does not match: whether this page exists is only known once it is built.
        if context.request.ifNoneMatch(includes: tag, starMatches: false) { return .now(Self.notModified(tag)) }
        context.pageTagging = .state(tag)
        return next.handle(context).amended(by: self, for: context)
    }

    /// Adds the tag to a rendered page. The flow's last link leaves ``RequestContext/pageTagging``
    /// only on a page it presented: a file, a photo, a stream or a redirect is not tagged. A page
    /// tagged by its content whose tag the request names already is answered 304; one kept from
    /// every cache (`no-store`: it carries a secret) gets no tag.
    func amend(_ response: consuming HTTPResponse, for context: RequestContext) -> HTTPResponse {
        guard response.status == .ok else { return response }
        let tag: String
        switch context.pageTagging {
        case .none:
            return response
        case .state(let made):
            tag = made
        case .content:
            guard response.headers["ETag"] == nil, response.headers["Cache-Control"]?.contains("no-store") != true else { return response }
            tag = contentTag(of: response.body)
            if context.request.ifNoneMatch(includes: tag, starMatches: false) { return Self.notModified(tag) }
        }
        var response = response
        response.headers.add(name: "ETag", value: tag)
        return response
    }

    /// The answer to a GET whose `If-None-Match` names the page's current `tag`.
    static func notModified(_ tag: String) -> HTTPResponse {
        HTTPResponse(status: .notModified, headers: ["ETag": tag, "Cache-Control": "private, no-cache"])
    }

    /// A page is a function of the state, who is asking (their account and CSRF token), the
    /// target and a notice it shows once, so its tag is a hash of those: revalidating an
    /// unchanged page costs a 304 and no render (SPEC.md "Sessions and security").
    ///
    /// The hash is SipHash (Swift's `Hasher`, keyed at random per process) over the process's
    /// random `bootID` first, then fields of fixed size or with their length, so no two inputs
    /// run together. A tag only has to change whenever the page could: 64 bits make two states
    /// of one visitor's page at one URL collide once in 2^64. It need not be a cryptographic
    /// digest: the tag is sent only to its own visitor (`Cache-Control: private`), whose page
    /// already holds the CSRF token, and without the process's secret key and `bootID` (128
    /// random bits of input even where the seed is fixed, `SWIFT_DETERMINISTIC_HASHING`) one
    /// visitor's tag tells nothing about another's, nor about the token. SHA-256 here cost two
    /// compressions on every rendered page.
    private func pageTag(for context: RequestContext) -> String {
        var hasher = Hasher()
        bootID.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(context.revision)
        hasher.combine(Int64(context.visitor.user?.id.rawValue ?? 0))
        Self.combine(context.visitor.csrfToken ?? "", into: &hasher)
        Self.combine(context.request.target, into: &hasher)
        // A page with a notice differs from the same page without: never answered 304 for it.
        if case .reported(let quote)? = context.notice { hasher.combine(quote.rawValue) } else { hasher.combine(0) }
        return Self.weakTag(hasher.finalize())
    }

    /// The tag of a page that shows account storage: a hash of its bytes (which hold the
    /// visitor's CSRF token, so no two visitors share one), keyed like ``pageTag(for:)``.
    private func contentTag(of body: [UInt8]) -> String {
        var hasher = Hasher()
        bootID.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(1)  // not a state tag's field order
        body.withUnsafeBufferPointer { Self.combine($0, into: &hasher) }
        return Self.weakTag(hasher.finalize())
    }

    /// `W/"` + 11 characters + `"`: 15 bytes, written into one inline string.
    private static func weakTag(_ hash: Int) -> String {
        let tag = UInt64(UInt(bitPattern: hash))
        return withUnsafeBytes(of: tag.littleEndian) { tag in
            String(unsafeUninitializedCapacity: 3 + Base64URL.encodedCount(of: tag.count) + 1) { output in
                (output[0], output[1], output[2]) = (UInt8(ascii: "W"), UInt8(ascii: "/"), UInt8(ascii: "\""))
                let end = 3 + Base64URL.encode(tag, into: UnsafeMutableBufferPointer(rebasing: output[3...]))
                output[end] = UInt8(ascii: "\"")
                return end + 1
            }
        }
    }

    /// Feeds `text`'s length and UTF-8 bytes to `hasher`, read in place (a mutable copy for
    /// `withUTF8` retained the token, a string both event loops may share, twice a page).
    private static func combine(_ text: String, into hasher: inout Hasher) {
        text.withUTF8InPlace { combine($0, into: &hasher) }
    }

    private static func combine(_ bytes: UnsafeBufferPointer<UInt8>, into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
    }
}
