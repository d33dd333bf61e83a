import Basics

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
/// bytes are never asked for again. Bounded: a ``BoundedCache`` of at most ``maximumBytes``,
/// which starts over empty when a body would pass them. The impure sites are a second one,
/// bounded by the library's templates (one entry per keyed section at most).
///
/// Ownership: each table sits in its ``BoundedCache``'s `Mutex`, taken by any thread that
/// renders, once per object rendered in a keyed section (twice on a miss).
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

    private let fragments: BoundedCache<Key, [UInt8]>
    /// Sites whose body once depended on more than its object.
    private let impureSites = BoundedCache<Int, Void>()

    init(maximumBytes: Int = 4 << 20) {
        fragments = BoundedCache(costLimit: maximumBytes) { $0.count }
    }

    /// Body bytes held before the cache starts over.
    var maximumBytes: Int { fragments.costLimit }

    /// What to do for `key`: its bytes, or whether rendering it should be checked for keeping.
    enum Lookup {
        case hit([UInt8])
        case miss
        /// The site's body reads outer names: render it normally.
        case impure
    }

    func lookup(_ key: Key) -> Lookup {
        if let bytes = fragments.value(forKey: key) { return .hit(bytes) }
        return impureSites.value(forKey: key.site) != nil ? .impure : .miss
    }

    func store(_ bytes: [UInt8], for key: Key) {
        fragments.insert(bytes, forKey: key)
    }

    /// Notes that the body at `key`'s site read more than its object.
    func markImpure(_ key: Key) {
        impureSites.insert((), forKey: key.site)
    }

    /// Fragments held now (for tests).
    var count: Int { fragments.count }
}
