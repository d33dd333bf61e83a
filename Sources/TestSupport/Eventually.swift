/// Waits until `condition` holds, looking every millisecond, for at most `limit`; whether it
/// came to hold. For state another thread changes with nothing to await (a pool's queue, a
/// count), without spinning on `Task.yield()`, which on a two-core machine takes a core from
/// the very server the test waits on.
package func eventually(within limit: Duration = defaultEventuallyLimit, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// How long ``eventually(within:_:)`` waits by default: 30 s, and 120 s under ThreadSanitizer,
/// whose process was seen standing still for over 30 s while the whole suite ran beside a test
/// (CI of 2026-11-29: a held password check took 64 s to be seen started).
package let defaultEventuallyLimit: Duration = Sanitizers.isThreadSanitizerActive ? .seconds(120) : .seconds(30)
