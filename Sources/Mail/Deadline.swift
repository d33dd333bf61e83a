/// A moment on the monotonic clock by which one step of a delivery must be done: every wait
/// for the relay (`poll(2)`) is bounded by the time left, so a relay that stalls anywhere,
/// even a byte at a time, cannot hold a delivery longer than its step's timeout.
struct Deadline {
    private let end: ContinuousClock.Instant
    /// The step's timeout, for error messages.
    let timeout: Duration

    init(after timeout: Duration) {
        end = ContinuousClock.now.advanced(by: timeout)
        self.timeout = timeout
    }

    var hasPassed: Bool { ContinuousClock.now >= end }

    /// Whole milliseconds left for `poll(2)`, rounded up and at least 0.
    var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
