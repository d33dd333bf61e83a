/// The bounded in-memory cache behind ``StaticFiles``: one entry per file, keyed by the file's
/// real path (symlinks resolved), plus an index from request paths to real paths.
///
/// The index is keyed by the request path *after* percent-decoding and vetting (the segments of
/// ``StaticPath`` joined with `/`), never by the raw target: `/%73ite.css`, `/site%2Ecss` and
/// `/site%2ecss` are all `site.css`, so encoding variants cannot multiply entries. Aliases of
/// one file (a symlink inside the root) share its single entry. Both tables are capped at
/// ``entryLimit`` and the cached bodies at ``byteLimit`` in total; when full, arbitrary entries
/// are evicted (a re-request reads the file again), so a client can never grow it further.
///
/// A value type without locking; ``StaticFiles`` keeps it in a `Mutex`.
struct StaticFileCache<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var cost: Int
    }

    /// Most files (and most request paths) remembered.
    let entryLimit: Int
    /// Most body bytes held in total.
    let byteLimit: Int

    /// Cached files by real path.
    private var files: [String: Entry] = [:]
    /// Real path by decoded request path.
    private var aliases: [String: String] = [:]
    /// Sum of the costs of ``files``.
    private(set) var byteCount = 0

    init(entryLimit: Int, byteLimit: Int) {
        self.entryLimit = max(0, entryLimit)
        self.byteLimit = max(0, byteLimit)
    }

    var fileCount: Int { files.count }
    var aliasCount: Int { aliases.count }

    /// The value cached for a decoded request path, with the real path it was read from.
    func value(forPath path: String) -> (realPath: String, value: Value)? {
        guard let realPath = aliases[path], let entry = files[realPath] else { return nil }
        return (realPath, entry.value)
    }

    /// Remembers `value` (costing `cost` bytes) as the content of `realPath`, reached by the
    /// decoded request path `path`. Too costly values are not kept; others evict as needed.
    mutating func insert(_ value: Value, cost: Int, realPath: String, forPath path: String) {
        guard cost <= byteLimit, entryLimit > 0 else { return }
        if let old = files.removeValue(forKey: realPath) { byteCount -= old.cost }
        while !files.isEmpty, files.count >= entryLimit || byteCount + cost > byteLimit {
            byteCount -= files.remove(at: files.startIndex).value.cost
        }
        files[realPath] = Entry(value: value, cost: cost)
        byteCount += cost
        if aliases[path] == nil {
            while aliases.count >= entryLimit { aliases.remove(at: aliases.startIndex) }
        }
        aliases[path] = realPath
    }
}
