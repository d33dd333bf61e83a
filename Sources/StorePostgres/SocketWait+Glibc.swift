import Basics
import Glibc

/// Waiting on a descriptor with `poll(2)`, for ``PostgresConnection``'s notifications.
enum SocketWait {
    /// Blocks until `fd` is readable, hung up or in error, or `timeout` has passed; restarts after
    /// a signal (`EINTR`) with the time left. Returns whether it is readable (or hung up or in
    /// error); false on a timeout or any other failure, which the caller's next read reports.
    @discardableResult
    static func untilReadable(_ fd: Int32, timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = SystemCall.retryingInterrupts {
            let (seconds, attoseconds) = clock.now.duration(to: deadline).components
            // Rounded up, so a wait never ends just before its deadline and spins.
            let milliseconds = max(0, seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            return poll(&descriptor, 1, Int32(clamping: milliseconds))
        }
        return ready > 0
    }

    /// Whether `fd` has something to read, has hung up or is in error, right now.
    static func isReadable(_ fd: Int32) -> Bool {
        untilReadable(fd, timeout: .zero)
    }
}
