import Glibc

/// Waiting on a descriptor with `poll(2)`, for ``PostgresConnection``'s notifications.
enum SocketWait {
    /// Blocks until `fd` is readable, hung up or in error, or `timeout` has passed; restarts after
    /// a signal (`EINTR`) with the time left. Any other failure returns at once, so the caller's
    /// next read reports it.
    static func untilReadable(_ fd: Int32, timeout: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let (seconds, attoseconds) = clock.now.duration(to: deadline).components
            // Rounded up, so a wait never ends just before its deadline and spins.
            let milliseconds = max(0, seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            if poll(&descriptor, 1, Int32(clamping: milliseconds)) >= 0 || errno != EINTR { return }
        }
    }

    /// Whether `fd` has something to read, has hung up or is in error, right now (`poll` with no
    /// timeout); false when `poll` fails.
    static func isReadable(_ fd: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, 0)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return false }
        }
    }
}
