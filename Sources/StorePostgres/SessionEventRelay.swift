import Store
import Synchronization

/// Fans ``SessionStorageEvent``s out to the observers of one storage, and remembers whether
/// endings are being followed, so a late observer starts from the truth.
///
/// Events are delivered with the lock held: an observer registering while an event is delivered
/// gets its first word (the current state) either before that event or with it already counted,
/// never a stale state after a newer one. Observers must therefore be quick and never call back.
final class SessionEventRelay: Sendable {
    private struct State {
        var isFollowing: Bool
        var observers: [@Sendable (SessionStorageEvent) -> Void] = []
    }

    private let state: Mutex<State>

    init(isFollowing: Bool) {
        state = Mutex(State(isFollowing: isFollowing))
    }

    func observe(_ handler: @escaping @Sendable (SessionStorageEvent) -> Void) {
        state.withLock { state in
            state.observers.append(handler)
            handler(state.isFollowing ? .following : .interrupted)
        }
    }

    func deliver(_ event: SessionStorageEvent) {
        state.withLock { state in
            switch event {
            case .following: state.isFollowing = true
            case .interrupted: state.isFollowing = false
            case .ended: break
            }
            for observer in state.observers { observer(event) }
        }
    }
}
