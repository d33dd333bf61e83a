import Basics
import Glibc
import Store

/// An exclusive `flock(2)` on `quotebook.lock` in the data directory, held while a journal is
/// open: two processes appending to one journal would each validate against their own state in
/// memory, record conflicting versions, and leave a journal that no longer replays.
///
/// The kernel drops the lock when the descriptor is closed or the process dies, so a crashed
/// server never leaves a stale lock behind.
final class DataDirectoryLock {
    private var fd: Int32

    /// Takes the lock, or throws ``StoreError/dataDirectory(path:reason:)`` when another process
    /// holds it (or the lock file cannot be opened).
    init(directory: String) throws(StoreError) {
        let path = directory + "/quotebook.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError.dataDirectory(path: directory, reason: "cannot open \(path): errno \(errno)")
        }
        if SystemCall.retryingInterrupts({ flock(fd, LOCK_EX | LOCK_NB) }) != 0 {
            let code = errno
            Glibc.close(fd)
            fd = -1
            let reason = code == EWOULDBLOCK ? StoreError.dataDirectoryInUse : "cannot lock \(path): errno \(code)"
            throw StoreError.dataDirectory(path: directory, reason: reason)
        }
    }

    deinit {
        release()
    }

    /// Releases the lock (closing the descriptor); later calls do nothing.
    func release() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

@available(*, unavailable, message: "The lock belongs to the journal that took it.")
extension DataDirectoryLock: Sendable {}
