import HTTPServer
import Store

/// Pages carry an `ETag`, and revalidating an unchanged page costs a 304 and no render; pages of
/// visitors who are nobody (no cookie at all) are kept finished, by target, for one store
/// revision, and sent again without routing, reading the state or rendering (``PageCache``).
/// Neither in `--dev`, where templates change under them.
struct PageTagGate: Sendable {
    /// Random per process, in every page's `ETag`, so a tag from before a restart never matches.
    let bootID: [UInt8]
    let tagsPages: Bool
    /// Signed-out visitors' pages, by target, for the store's current revision; nil in `--dev`.
    let pageCache: PageCache?

    /// The kept page (or its 304) for a visitor who is nobody, if there is one.
    func cachedPage(for context: RequestContext, anonymous: Bool) -> (response: HTTPResponse, label: RouteLabel)? {
        guard anonymous, context.request.method == .get || context.request.method == .head,
            let entry = pageCache?.entry(for: context.request.target, revision: context.revision)
        else { return nil }
        let revalidated = context.request.ifNoneMatch(includes: entry.tag, starMatches: false)
        return (revalidated ? Self.notModified(entry.tag) : entry.response, entry.routeLabel)
    }

    /// Keeps a finished page of a visitor who is nobody: a 200 with a tag, no cookie set, no
    /// account and no CSRF token, so it is what every cookie-less request for its target gets.
    func keep(_ response: HTTPResponse, for context: RequestContext, anonymous: Bool) {
        guard anonymous, let pageCache, let tag = context.pageTag, response.status == .ok, context.setCookies.isEmpty,
            context.visitor.user == nil, context.visitor.csrfToken == nil
        else { return }
        pageCache.store(
            PageCache.Entry(response: response, tag: tag, routeLabel: context.routeLabel), for: context.request.target,
            revision: context.revision)
    }

    /// For a GET: the 304 when `If-None-Match` names the page's current tag, else nil with the
    /// tag in `context` for the rendered page.
    func check(_ route: AppRoute, _ context: RequestContext) -> Navigation? {
        guard tagsPages, route.method == .get, route.route.isTaggedByState else { return nil }
        let tag = pageTag(for: context)
        // `*` does not match: whether this page exists is only known once it is built.
        if context.request.ifNoneMatch(includes: tag, starMatches: false) { return .respond(Self.notModified(tag)) }
        context.pageTag = tag
        return nil
    }

    /// Adds the tag to a rendered page (moved in, so adding the field copies no headers).
    func tagged(_ response: consuming HTTPResponse, _ context: RequestContext) -> HTTPResponse {
        guard let tag = context.pageTag, response.status == .ok else { return response }
        var response = response
        response.headers.add(name: "ETag", value: tag)
        return response
    }

    /// The answer to a GET whose `If-None-Match` names the page's current `tag`.
    static func notModified(_ tag: String) -> HTTPResponse {
        HTTPResponse(status: .notModified, headers: ["ETag": tag, "Cache-Control": "private, no-cache"])
    }

    /// A page is a function of the state, who is asking (their account and CSRF token) and the
    /// target, so its tag is a hash of those: revalidating an unchanged page costs a 304 and no
    /// render (SPEC.md "Sessions and security").
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
        let tag = UInt64(UInt(bitPattern: hasher.finalize()))
        // `W/"` + 11 characters + `"`: 15 bytes, written into one inline string.
        return withUnsafeBytes(of: tag.littleEndian) { tag in
            String(unsafeUninitializedCapacity: 3 + Base64URL.encodedCount(of: tag.count) + 1) { output in
                (output[0], output[1], output[2]) = (UInt8(ascii: "W"), UInt8(ascii: "/"), UInt8(ascii: "\""))
                let end = 3 + Base64URL.encode(tag, into: UnsafeMutableBufferPointer(rebasing: output[3...]))
                output[end] = UInt8(ascii: "\"")
                return end + 1
            }
        }
    }

    /// Feeds `text`'s length and UTF-8 bytes to `hasher`.
    private static func combine(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}
