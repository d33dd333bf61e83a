package import App
import Dispatch
import Synchronization

/// A ``PasswordCryptClient`` for tests: real yescrypt, but every password check is counted and,
/// while the gate is closed, held on its pool thread until ``open()``. So a test can fire a burst
/// of sign-ins, see how many checks it let through, and hold them while the rest answer.
package final class CountingPasswordCrypt: Sendable {
    private struct State {
        var checks = 0
        var isClosed: Bool
        /// Checks that went to wait at the gate and have not been let through.
        var held = 0
    }

    private let state: Mutex<State>
    private let gate = DispatchSemaphore(value: 0)

    /// A counter whose gate starts closed when `holdingChecks`.
    package init(holdingChecks: Bool = false) {
        state = Mutex(State(isClosed: holdingChecks))
    }

    /// Password checks started so far.
    package var checkCount: Int { state.withLock { $0.checks } }

    /// Checks waiting at the closed gate now.
    package var heldCount: Int { state.withLock { $0.held } }

    /// Lets every held check through, and every later one at once.
    package func open() {
        let held = state.withLock { state in
            state.isClosed = false
            defer { state.held = 0 }
            return state.held
        }
        for _ in 0..<held { gate.signal() }
    }

    /// The client to inject (``Dependencies/passwordCrypt``, ``TestApp``'s `passwordCrypt:`).
    package var client: PasswordCryptClient {
        PasswordCryptClient(
            hash: { password throws(PasswordCryptError) in try PasswordCrypt.hash(password) },
            verify: { [self] password, storedHash in
                check()
                return PasswordCrypt.verify(password, against: storedHash)
            })
    }

    /// Counts a check and, while the gate is closed, waits there (on a pool thread, never a
    /// cooperative one). A signal sent before the wait starts is kept by the semaphore.
    private func check() {
        let waits = state.withLock { state in
            state.checks += 1
            if state.isClosed { state.held += 1 }
            return state.isClosed
        }
        if waits { gate.wait() }
    }
}
