package import Foundation
import Synchronization

/// Serves regular files below a root folder (`Public/`) for GET and HEAD, with validators and
/// conditional requests (RFC 9110 §8.8 `ETag`/`Last-Modified`, §13.1 `If-None-Match`/
/// `If-Modified-Since` → 304; RFC 9111 §5.2 `Cache-Control`).
///
/// Nothing outside the root is reachable: the request path is decoded and vetted by
/// ``StaticPath`` (no `..`, encoded separators, backslashes, NUL, bad UTF-8), then the file's
/// real path (symlinks resolved) must still lie inside the root's real path.
///
/// File contents up to ``cacheableSize`` are kept in memory, keyed by request path, and
/// revalidated with one `stat` per request (size, inode and modification time), so a changed
/// file is served fresh. The cache is the only mutable state and sits in a `Mutex` shared by
/// copies of the value.
package struct StaticFiles: Sendable {
    private struct Entry: Sendable {
        var realPath: String
        var status: FileSystem.Status
        var body: [UInt8]?
        var headers: HTTPHeaders
        var etag: String
    }

    /// Largest file kept in memory.
    package static let cacheableSize = 1024 * 1024

    private let rootPath: String?
    private let cacheControl: String
    private let box = CacheBox()

    /// Shares the cache between copies of the value (a `Mutex` cannot be copied).
    private final class CacheBox: Sendable {
        let entries = Mutex<[String: Entry]>([:])
    }

    /// - Parameters:
    ///   - root: the folder whose files are served at the same relative paths.
    ///   - cacheControl: the `Cache-Control` sent with every file; the default makes clients
    ///     revalidate each time, which the `ETag` makes cheap.
    package init(root: URL, cacheControl: String = "no-cache") {
        rootPath = FileSystem.realPath(root.path)
        self.cacheControl = cacheControl
    }

    /// The response for a GET or HEAD of `request.path` when a regular file exists there under
    /// the root, nil otherwise (the app then answers with its own 404 page).
    package func response(for request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .get || request.method == .head, let rootPath else { return nil }
        guard let entry = entry(for: request.path, rootPath: rootPath) else { return nil }
        if isNotModified(request, entry: entry) {
            var headers = entry.headers
            headers.remove(name: "Content-Type")
            return HTTPResponse(status: .notModified, headers: headers)
        }
        let body = entry.body ?? FileSystem.contents(of: entry.realPath, expectedSize: entry.status.size)
        guard let body else { return nil }
        return HTTPResponse(status: .ok, headers: entry.headers, body: body)
    }

    private func entry(for path: String, rootPath: String) -> Entry? {
        if let cached = box.entries.withLock({ $0[path] }),
            let status = FileSystem.status(of: cached.realPath), status == cached.status
        {
            return cached
        }
        guard let segments = StaticPath.segments(ofEncodedPath: path), !segments.isEmpty else { return nil }
        let candidate = rootPath + "/" + segments.joined(separator: "/")
        guard let realPath = FileSystem.realPath(candidate), realPath.hasPrefix(rootPath + "/"),
            let status = FileSystem.status(of: realPath), status.isRegularFile
        else { return nil }
        let fileExtension = segments.last.flatMap { name in name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } } ?? ""
        let etag = "\"\(String(status.size, radix: 16))-\(String(status.inode, radix: 16))-\(String(status.modified, radix: 16))\""
        let headers: HTTPHeaders = [
            "Content-Type": MediaType.forExtension(fileExtension),
            "ETag": etag,
            "Last-Modified": HTTPDate.format(secondsSinceEpoch: Self.floorSeconds(status.modified)),
            "Cache-Control": cacheControl,
        ]
        var entry = Entry(realPath: realPath, status: status, body: nil, headers: headers, etag: etag)
        if status.size <= Self.cacheableSize {
            guard let body = FileSystem.contents(of: realPath, expectedSize: status.size), body.count == status.size else {
                return nil
            }
            entry.body = body
            box.entries.withLock { $0[path] = entry }
        }
        return entry
    }

    /// RFC 9110 §13.2.2: `If-None-Match` wins; `If-Modified-Since` only without it.
    private func isNotModified(_ request: HTTPRequest, entry: Entry) -> Bool {
        let tags = request.headers.values(for: "If-None-Match")
        if !tags.isEmpty {
            let opaque = entry.etag
            return tags.flatMap { $0.split(separator: ",") }.contains { candidate in
                var tag = candidate.trimmingASCIIWhitespace()
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == opaque
            }
        }
        guard let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) else { return false }
        return Self.floorSeconds(entry.status.modified) <= since
    }

    private static func floorSeconds(_ nanoseconds: Int) -> Int {
        nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
    }
}
