import Basics
package import Store

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

/// The in-memory ``ProfileCaching``: a ``BoundedCache`` of at most `capacity` profiles (it
/// starts over when full), whose revision is the generation.
package final class ProfileCache: ProfileCaching {
    private let profiles: BoundedCache<Username, Profile>

    package init(capacity: Int = 1_000) {
        profiles = BoundedCache(countLimit: max(1, capacity))
    }

    package var generation: UInt64 { profiles.revision }

    package func profile(for username: Username) -> Profile? {
        profiles.value(forKey: username)
    }

    package func store(_ profile: Profile, generation: UInt64) {
        profiles.insert(profile, forKey: profile.user.username, revision: generation)
    }

    package func invalidateAll() {
        profiles.invalidateAll()
    }
}
