/// Owns one file descriptor used by a single event-loop thread and closes it exactly once.
///
/// Not Sendable: the loop that created it is its only user. `deinit` asserts that it was
/// closed (a leak is a bug) and closes it in release builds anyway.
final class FileDescriptor {
    /// The raw descriptor; meaningless once ``isOpen`` is false.
    let rawValue: Int32
    private(set) var isOpen = true

    init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        Platform.close(rawValue)
    }

    deinit {
        assert(!isOpen, "file descriptor \(rawValue) leaked")
        if isOpen { Platform.close(rawValue) }
    }
}

@available(*, unavailable)
extension FileDescriptor: Sendable {}
