import Basics
package import Foundation

/// Serves regular files below a root folder (`Public/`) for GET and HEAD, with validators and
/// conditional requests (RFC 9110 §8.8 `ETag`/`Last-Modified`, §13.1 `If-None-Match`/
/// `If-Modified-Since` → 304; RFC 9111 §5.2 `Cache-Control`), and `X-Content-Type-Options:
/// nosniff` on every answer, 304 included.
///
/// Nothing outside the root is reachable: the request path is decoded and vetted by
/// ``StaticPath`` (no `..`, encoded separators, backslashes, NUL, bad UTF-8), then the file's
/// real path (symlinks resolved) must still lie inside the root's real path.
///
/// File contents up to ``cacheableSize`` are kept in memory and revalidated with one `stat` per
/// request (size, inode and modification time), so a changed file is served fresh. Two
/// ``BoundedCache``s hold them, each of at most `cacheEntryLimit` entries and starting over when
/// full: the files by real path (symlinks resolved; at most `cacheByteLimit` body bytes), and
/// the real path by request path *after* percent-decoding and vetting (the segments of
/// ``StaticPath`` joined with `/`), never by the raw target. So `/%73ite.css`, `/site%2Ecss` and
/// `/site%2ecss` are all `site.css`, encoding variants cannot multiply entries, aliases of one
/// file (a symlink inside the root) share its single entry, and a client asking for any number
/// of paths can never grow either table. The caches are the only mutable state, shared by
/// copies of the value.
package struct StaticFiles: Sendable {
    private struct Entry: Sendable {
        var realPath: String
        var status: FileSystem.Status
        var body: [UInt8]?
        var headers: HTTPHeaders
        var etag: String
        /// The content's version (``version(of:)``), for a file kept in memory.
        var version: String?
    }

    /// What a request whose `v` query names the file's current version is sent with: the
    /// address changes whenever the content does, so the browser may keep it for a year
    /// without asking again.
    package static let versionedCacheControl = "public, max-age=31536000, immutable"

    /// Largest file kept in memory.
    package static let cacheableSize = 1024 * 1024

    private let rootPath: String?
    private let cacheControl: String
    /// Cached files by real path; each costs its body's size.
    private let files: BoundedCache<String, Entry>
    /// The real path by decoded request path.
    private let realPaths: BoundedCache<String, String>

    /// - Parameters:
    ///   - root: the folder whose files are served at the same relative paths.
    ///   - cacheControl: the `Cache-Control` sent with every file; the default makes clients
    ///     revalidate each time, which the `ETag` makes cheap.
    ///   - cacheEntryLimit: most files (and most distinct request paths) kept in memory.
    ///   - cacheByteLimit: most file bytes kept in memory in total.
    package init(
        root: URL, cacheControl: String = "no-cache", cacheEntryLimit: Int = 512, cacheByteLimit: Int = 32 * 1024 * 1024
    ) {
        rootPath = FileSystem.realPath(root.path)
        self.cacheControl = cacheControl
        files = BoundedCache(countLimit: cacheEntryLimit, costLimit: cacheByteLimit) { $0.body?.count ?? 0 }
        realPaths = BoundedCache(countLimit: cacheEntryLimit)
    }

    /// What the cache holds now: files, distinct request paths, and body bytes.
    package var cacheUsage: (files: Int, paths: Int, bytes: Int) {
        (files.count, realPaths.count, files.totalCost)
    }

    /// The response for a GET or HEAD of `request.path` when a regular file exists there under
    /// the root, nil otherwise (the app then answers with its own 404 page).
    ///
    /// A request whose `v` query names the file's current content version (``version(of:)``,
    /// which pages put in the addresses they link) is answered with
    /// ``versionedCacheControl``; any other (no `v`, or an old one) with the usual
    /// `Cache-Control`, so an old address still gets the file as it is now, revalidated.
    package func response(for request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .get || request.method == .head, let rootPath else { return nil }
        guard let entry = entry(for: request.path, rootPath: rootPath) else { return nil }
        var headers = entry.headers
        if let version = entry.version, request.query != nil, request.queryItems["v"] == version {
            headers.remove(name: "Cache-Control")
            headers.add(name: "Cache-Control", value: Self.versionedCacheControl)
        }
        if isNotModified(request, entry: entry) {
            headers.remove(name: "Content-Type")
            return HTTPResponse(status: .notModified, headers: headers)
        }
        let body = entry.body ?? FileSystem.contents(of: entry.realPath, expectedSize: entry.status.size)
        guard let body else { return nil }
        return HTTPResponse(status: .ok, headers: headers, body: body)
    }

    /// The version of the file at the request path `path` (encoded, as in a URL): 16 hex digits
    /// of a hash of its content (FNV-1a, 64 bits), the same for the same bytes in any instance
    /// or deployment and new whenever they change; nil when there is no such file or it is too
    /// large to be kept in memory (``cacheableSize``), whose address then carries no version.
    package func version(of path: String) -> String? {
        guard let rootPath else { return nil }
        return entry(for: path, rootPath: rootPath)?.version
    }

    /// 16 hex digits of the 64-bit FNV-1a hash of `bytes`.
    static func contentVersion(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The file for an encoded request path: vetted and decoded first, so the cache is only
    /// ever asked about (and filled with) canonical paths of files inside the root.
    private func entry(for path: String, rootPath: String) -> Entry? {
        guard let segments = StaticPath.segments(ofEncodedPath: path), !segments.isEmpty else { return nil }
        let relativePath = segments.joined(separator: "/")
        if let realPath = realPaths.value(forKey: relativePath), let cached = files.value(forKey: realPath),
            let status = FileSystem.status(of: realPath), status == cached.status
        {
            return cached
        }
        let candidate = rootPath + "/" + relativePath
        guard let realPath = FileSystem.realPath(candidate), realPath.hasPrefix(rootPath + "/"),
            let status = FileSystem.status(of: realPath), status.isRegularFile
        else { return nil }
        let fileExtension = segments.last.flatMap { name in name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } } ?? ""
        let etag = "\"\(String(status.size, radix: 16))-\(String(status.inode, radix: 16))-\(String(status.modifiedSeconds, radix: 16)).\(String(status.modifiedNanoseconds, radix: 16))\""
        let headers: HTTPHeaders = [
            "Content-Type": MediaType.forExtension(fileExtension),
            "ETag": etag,
            "Last-Modified": HTTPDate.format(secondsSinceEpoch: status.modifiedSeconds),
            "Cache-Control": cacheControl,
            // The type is the extension's: a browser must not guess another from the bytes
            // (WHATWG Fetch, the `X-Content-Type-Options` header).
            "X-Content-Type-Options": "nosniff",
        ]
        var entry = Entry(realPath: realPath, status: status, body: nil, headers: headers, etag: etag)
        if status.size <= Self.cacheableSize {
            guard let body = FileSystem.contents(of: realPath, expectedSize: status.size), body.count == status.size else {
                return nil
            }
            entry.body = body
            entry.version = Self.contentVersion(body)
            files.insert(entry, forKey: realPath)
            realPaths.insert(realPath, forKey: relativePath)
        }
        return entry
    }

    /// RFC 9110 §13.2.2: `If-None-Match` wins; `If-Modified-Since` only without it.
    private func isNotModified(_ request: HTTPRequest, entry: Entry) -> Bool {
        if request.headers.contains("If-None-Match") { return request.ifNoneMatch(includes: entry.etag) }
        guard let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) else { return false }
        return entry.status.modifiedSeconds <= since
    }
}
