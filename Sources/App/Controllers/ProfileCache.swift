package import Store
import Synchronization

/// Where ``ProfileController`` keeps built profiles: listing someone's quotes scans the book,
/// so a profile is built once per change of the state, not once per view.
package protocol ProfileCaching: Sendable {
    /// Changes with every invalidation; a profile is stored under the generation that was
    /// current before the state it was built from was read, and dropped if it moved since.
    var generation: UInt64 { get }
    func profile(for username: Username) -> Profile?
    func store(_ profile: Profile, generation: UInt64)
    /// Forgets every profile (a store subscription calls this on every applied event).
    func invalidateAll()
}

/// The in-memory ``ProfileCaching``: a dictionary behind a mutex, bounded.
package final class ProfileCache: ProfileCaching {
    private struct Contents {
        var generation: UInt64 = 0
        var profiles: [Username: Profile] = [:]
    }

    private let contents = Mutex(Contents())
    private let capacity: Int

    package init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    package var generation: UInt64 { contents.withLock { $0.generation } }

    package func profile(for username: Username) -> Profile? {
        contents.withLock { $0.profiles[username] }
    }

    package func store(_ profile: Profile, generation: UInt64) {
        contents.withLock { contents in
            guard contents.generation == generation else { return }
            if contents.profiles.count >= capacity { contents.profiles.removeAll(keepingCapacity: true) }
            contents.profiles[profile.user.username] = profile
        }
    }

    package func invalidateAll() {
        contents.withLock { contents in
            contents.generation &+= 1
            contents.profiles.removeAll(keepingCapacity: true)
        }
    }
}
