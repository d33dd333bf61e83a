import Synchronization

/// The bytes section bodies rendered for objects with a ``TemplateObject/fragmentKey``, kept by
/// one ``TemplateLibrary`` for all its renders: a list of quotes renders each row once per version
/// of its quote instead of on every request.
///
/// A body's bytes are kept only when they are a function of the object alone. The renderer checks
/// that as it renders (``Renderer``): every name the body looked up must have resolved at the
/// object or at a value found inside it — not below it on the context stack, and not missing
/// (a miss depends on every context below) — and the body must contain no partial, parent or
/// block (their output depends on indentation and block arguments from outside), and be
/// rendered without inherited indentation. A body site seen once to fail that check is never
/// tried again, so pages whose bodies read outer names pay one set look-up, not a copy.
///
/// Invalidation is by key: an object that changed has a new version, so a new key; the stale
/// bytes are never asked for again. Bounded: once the bytes held pass ``maximumBytes`` it starts
/// over empty.
///
/// Ownership: one `Mutex` around both tables, taken by any thread that renders, once per object
/// rendered in a keyed section.
final class FragmentCache: Sendable {
    /// A body site (`program`, instruction `start`) and the object rendered there.
    struct Key: Hashable, Sendable {
        let site: Int
        let object: TemplateFragmentKey

        init(program: Int, start: Int, object: TemplateFragmentKey) {
            site = Self.site(program: program, start: start)
            self.object = object
        }

        static func site(program: Int, start: Int) -> Int { program << 32 | start }
    }

    private struct Tables {
        var fragments: [Key: [UInt8]] = [:]
        var bytes = 0
        /// Sites whose body once depended on more than its object.
        var impureSites: Set<Int> = []
    }

    let maximumBytes: Int
    private let tables = Mutex(Tables())

    init(maximumBytes: Int = 4 << 20) {
        self.maximumBytes = maximumBytes
    }

    /// What to do for `key`: its bytes, or whether rendering it should be checked for keeping.
    enum Lookup {
        case hit([UInt8])
        case miss
        /// The site's body reads outer names: render it normally.
        case impure
    }

    func lookup(_ key: Key) -> Lookup {
        tables.withLock { tables in
            if let bytes = tables.fragments[key] { return .hit(bytes) }
            return tables.impureSites.contains(key.site) ? .impure : .miss
        }
    }

    func store(_ bytes: [UInt8], for key: Key) {
        guard bytes.count <= maximumBytes else { return }
        // Returned so the dropped table is freed after the lock.
        _ = tables.withLock { tables -> [Key: [UInt8]]? in
            var dropped: [Key: [UInt8]]?
            if tables.bytes + bytes.count > maximumBytes {
                dropped = tables.fragments
                tables.fragments = [:]
                tables.bytes = 0
            }
            if let old = tables.fragments.updateValue(bytes, forKey: key) { tables.bytes -= old.count }
            tables.bytes += bytes.count
            return dropped
        }
    }

    /// Notes that the body at `key`'s site read more than its object.
    func markImpure(_ key: Key) {
        _ = tables.withLock { $0.impureSites.insert(key.site) }
    }

    /// Fragments held now (for tests).
    var count: Int {
        tables.withLock { $0.fragments.count }
    }
}
