import Glibc

/// The one loop that restarts a system call interrupted by a signal (`EINTR`), for every target
/// that makes system calls: the server's sockets and files, the store's journal, lock and
/// database socket, the log written to standard error, secure random bytes and the test sockets.
///
/// A call a signal interrupts before it did anything fails with `EINTR` and may simply be made
/// again (signal(7), "Interruption of system calls and library functions by signal handlers").
/// `close(2)` is the exception and must not go through here: on Linux the descriptor is released
/// even when it reports `EINTR`, so a retry could close a descriptor another thread just opened
/// (NIO `Sources/NIOPosix/System.swift` explains the same).
package enum SystemCall {
    /// Makes `call` (a C call that returns -1 and sets `errno` on failure) until it does not fail
    /// with `EINTR`, and returns its last result. On any other failure the result is -1 and
    /// `errno` is still the call's: nothing runs between the call and the return.
    package static func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// Writes every byte of `bytes` to the blocking descriptor `descriptor`, however many calls
    /// that takes; false, with `errno` set (`EIO` when a write took nothing), when one failed.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = retryingInterrupts { write(descriptor, bytes.baseAddress! + done, bytes.count - done) }
            guard written > 0 else {
                if written == 0 { errno = EIO }
                return false
            }
            done += written
        }
        return true
    }
}
