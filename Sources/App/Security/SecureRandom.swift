import Basics
import Glibc

/// Cryptographically secure random bytes from the kernel's `getrandom(2)` pool.
///
/// Swift's Glibc module does not include `<sys/random.h>`, so this calls glibc's
/// `getentropy(3)`, a thin wrapper that calls `getrandom(buffer, length, 0)` and itself loops
/// over short reads and `EINTR`, in chunks of its 256-byte maximum. With no flags the kernel
/// pool is the one behind `/dev/urandom`, blocking only until it has been seeded once after
/// boot.
///
/// Any failure other than `EINTR` (a kernel without the syscall, a seccomp filter) is a fatal
/// error: there is no safe fallback, and session keys or tokens made from weaker randomness
/// would be worse than not starting.
package enum SecureRandom {
    /// `count` random bytes, suitable for keys, session tokens and salts.
    package static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes needs a non-negative count")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            var filled = 0
            while filled < count {
                let chunk = min(count - filled, maximumChunk)
                guard SystemCall.retryingInterrupts({ getentropy(buffer.baseAddress! + filled, chunk) }) == 0 else {
                    let code = errno
                    fatalError("getentropy/getrandom failed with errno \(code) (\(String(cString: strerror(code)))); no safe fallback")
                }
                filled += chunk
            }
            initializedCount = count
        }
    }

    /// The most `getentropy(3)` returns per call (it fails with `EIO` above this).
    private static let maximumChunk = 256
}
