import Foundation

/// Runs blocking work (a `recv`, a `waitpid`, a read from a pipe) on a thread of its own and
/// resumes the caller when it is done.
///
/// Tests must never block a cooperative-pool thread: on a two-core machine the pool has two
/// threads, and a test blocked there starves the in-process server it is talking to (and every
/// other test running in parallel). Dispatch's global queues are no way out either: on Linux they
/// are only as wide as the core count, so blocked readers there wait for one another.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result(catching: body)) }.start()
    }
}

/// ``offPool(_:)`` for work that cannot fail.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
