public import Synchronization

/// A dictionary shared between threads that never grows past a count and a cost limit, and
/// optionally holds entries for one revision of what they were computed from: the one cache
/// behind pages, rendered fragments, searches, sessions, profiles, CSRF tokens and static files.
///
/// **Eviction: start over.** An insert that would pass either limit first drops every entry,
/// then keeps the new one; a value costing more than the whole cost limit is not kept at all.
/// Reads stay a pure look-up (no recency to record, so a hit writes nothing under the lock), an
/// insert is O(1) amortized, and the dropped table is released after the lock, so no thread
/// waits while another frees memory. What anyone can ask for (any search, any pre-session
/// cookie, any path) can only make the cache start over, never grow it; the entries in use come
/// back on their next miss.
///
/// **Revisions.** Every entry belongs to the cache's current ``revision``. An insert stamped with
/// an older revision than the cache's is ignored (it was computed from something older than what
/// the cache holds); one stamped with a newer revision drops every entry and moves the cache to
/// it; a look-up stamped with any other revision finds nothing. So a cache keyed by the store's
/// revision (pages) never serves an entry from before a change its caller could see, with no
/// observer to run on a write. A cache whose source reports changes (profiles, sessions) moves
/// itself on with ``invalidateAll()`` or ``invalidate(_:)``: a caller takes ``revision`` before
/// it reads the source and inserts with it, so a change heard meanwhile makes the insert a no-op.
/// Callers that need neither just use the plain ``value(forKey:)`` and ``insert(_:forKey:)``.
///
/// Ownership: all of it sits in one `Mutex`, taken once per call, never while calling out
/// (the cost closure runs before the lock).
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    // Every member is inlinable, and public rather than package, so that each client module
    // specializes the cache for its own key and value: Swift 6.3 specializes only public
    // @inlinable code across modules (package @inlinable bodies were called unspecialized, and
    // every look-up asked the runtime for generic metadata: 7.5% of a signed-in page's CPU).
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var value: Value
        @usableFromInline var cost: Int

        @inlinable
        init(value: Value, cost: Int) {
            self.value = value
            self.cost = cost
        }
    }

    @usableFromInline
    struct Contents: Sendable {
        @usableFromInline var entries: [Key: Entry] = [:]
        @usableFromInline var totalCost = 0
        @usableFromInline var revision: UInt64 = 0

        @inlinable
        init() {}

        /// Empties the table and returns what it held, to be released after the lock.
        ///
        /// - Parameter keepingRoom: make the new table as large as the old one held. For a cache
        ///   that starts over because it is full, which fills up again: it then does not grow the
        ///   table step by step, hashing every key once more at each step. Not for a cache
        ///   emptied because its source changed, which may never refill.
        @inlinable
        mutating func takeEntries(keepingRoom: Bool = false) -> [Key: Entry] {
            defer {
                entries = keepingRoom ? Dictionary(minimumCapacity: entries.count) : [:]
                totalCost = 0
            }
            return entries
        }
    }

    /// Most entries held at once.
    public let countLimit: Int
    /// Most total cost held at once.
    public let costLimit: Int
    @usableFromInline let cost: @Sendable (Value) -> Int
    @usableFromInline let contents: Mutex<Contents>

    /// A cache of at most `countLimit` entries whose costs add up to at most `costLimit`; a limit
    /// below zero counts as zero (nothing is kept).
    ///
    /// - Parameter cost: what one value costs, such as its size in bytes; called once per insert,
    ///   outside the lock. Without it every value costs nothing and only the count is limited.
    @inlinable
    public init(countLimit: Int = .max, costLimit: Int = .max, cost: @escaping @Sendable (Value) -> Int = { _ in 0 }) {
        self.countLimit = max(0, countLimit)
        self.costLimit = max(0, costLimit)
        self.cost = cost
        contents = Mutex(Contents())
    }

    /// The revision every entry belongs to now.
    @inlinable
    public var revision: UInt64 {
        contents.withLock { $0.revision }
    }

    /// How many entries are held now.
    @inlinable
    public var count: Int {
        contents.withLock { $0.entries.count }
    }

    /// The sum of the held entries' costs now.
    @inlinable
    public var totalCost: Int {
        contents.withLock { $0.totalCost }
    }

    /// The value kept for `key`, if any.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        contents.withLock { $0.entries[key]?.value }
    }

    /// The value kept for `key` if the cache is at `revision`; nil at any other revision.
    @inlinable
    public func value(forKey key: Key, revision: UInt64) -> Value? {
        contents.withLock { $0.revision == revision ? $0.entries[key]?.value : nil }
    }

    /// Keeps `value` for `key` at the current revision, starting over first if it would pass a
    /// limit; a value costing more than ``costLimit`` is not kept.
    @inlinable
    public func insert(_ value: Value, forKey key: Key) {
        keep(value, forKey: key, revision: nil)
    }

    /// Keeps `value`, computed at `revision`, for `key`: ignored when the cache is at a newer
    /// revision; when it is at an older one, every entry is dropped and the cache moves to
    /// `revision` first. Otherwise as ``insert(_:forKey:)``.
    @inlinable
    public func insert(_ value: Value, forKey key: Key, revision: UInt64) {
        keep(value, forKey: key, revision: revision)
    }

    /// Both inserts: `revision` nil means the current one.
    @inlinable
    func keep(_ value: Value, forKey key: Key, revision: UInt64?) {
        let cost = cost(value)
        guard cost <= costLimit, countLimit > 0 else { return }
        let entry = Entry(value: value, cost: cost)
        // Dropped entries are returned, so they are released after the lock.
        _ = contents.withLock { contents -> [Key: Entry]? in
            var dropped: [Key: Entry]?
            if let revision, revision != contents.revision {
                guard revision > contents.revision else { return nil }
                dropped = contents.takeEntries()
                contents.revision = revision
            }
            let old = contents.entries[key]
            let newCount = contents.entries.count + (old == nil ? 1 : 0)
            let newCost = contents.totalCost - (old?.cost ?? 0) + cost
            if newCount > countLimit || newCost > costLimit {
                dropped = contents.takeEntries(keepingRoom: true)
            } else if let old {
                contents.totalCost -= old.cost
            }
            contents.entries[key] = entry
            contents.totalCost += cost
            return dropped
        }
    }

    /// Forgets `key`'s value, if any; the revision stays.
    @inlinable
    public func removeValue(forKey key: Key) {
        _ = contents.withLock { contents -> Entry? in
            guard let old = contents.entries.removeValue(forKey: key) else { return nil }
            contents.totalCost -= old.cost
            return old
        }
    }

    /// Forgets every value for which `shouldBeRemoved` is true (called under the lock, once per
    /// entry); the revision stays.
    public func removeAll(where shouldBeRemoved: (Value) -> Bool) {
        _ = contents.withLock { contents -> [Key: Entry] in
            let dropped = contents.entries.filter { shouldBeRemoved($0.value.value) }
            for (key, entry) in dropped {
                contents.entries[key] = nil
                contents.totalCost -= entry.cost
            }
            return dropped
        }
    }

    /// Moves to the next revision, forgetting every value: what they were computed from changed.
    @inlinable
    public func invalidateAll() {
        _ = contents.withLock { contents -> [Key: Entry] in
            contents.revision &+= 1
            return contents.takeEntries()
        }
    }

    /// Moves to the next revision, forgetting only `key`'s value: what it was computed from
    /// changed and nothing else did, so the other entries stay, while an insert computed before
    /// (stamped with the old revision) is ignored, whatever its key.
    @inlinable
    public func invalidate(_ key: Key) {
        _ = contents.withLock { contents -> Entry? in
            contents.revision &+= 1
            guard let old = contents.entries.removeValue(forKey: key) else { return nil }
            contents.totalCost -= old.cost
            return old
        }
    }
}
