/// Waits until `condition` holds, looking every millisecond, for at most `limit`; whether it
/// came to hold. For state another thread changes with nothing to await (a pool's queue, a
/// count), without spinning on `Task.yield()`, which on a two-core machine takes a core from
/// the very server the test waits on.
package func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}
