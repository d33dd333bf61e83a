import Basics
import Glibc
import Synchronization

/// A request body the server wrote to a file as it arrived instead of keeping it in memory
/// (an upload; ``HTTPServerConfiguration/BodySpool``), as nginx does with `client_body_temp_path`.
///
/// The file is unlinked the moment it is made, readable and writable by this user alone, so
/// nothing names it and it is gone when the last reference to this object goes, whatever path
/// the request takes (answered, refused, its client gone, the process killed).
///
/// The connection's event loop appends to it while the body arrives; only after that does the
/// request, holding it, reach the responder, which reads it from any thread: mapped, or read at
/// an offset (`pread`), so readers never move a shared file offset.
package final class SpooledBody: Sendable {
    private let descriptor: Int32
    private let written = Atomic<Int>(0)

    /// A new, already unlinked file in `directory`, or nil with `errno` set.
    package init?(directory: String) {
        var template = Array("\(directory)/quotebook-body-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The bytes written so far.
    package var count: Int { written.load(ordering: .acquiring) }

    /// Writes `bytes` at the end; false (with `errno` set, such as `ENOSPC`) when the file
    /// system refused them.
    package func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard SystemCall.writeAll(bytes, to: descriptor) else { return false }
        written.add(bytes.count, ordering: .releasing)
        return true
    }

    /// Copies the bytes in `range` to the end of the file open as `destination`, 64 KiB at a
    /// time (`pread`, then `write`): a large upload never passes through memory whole.
    package func copy(_ range: Range<Int>, to destination: Int32) throws(SpooledBodyError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.copyBufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = min(buffer.count, range.upperBound - offset)
            let read = SystemCall.retryingInterrupts { pread(descriptor, buffer.baseAddress, wanted, off_t(offset)) }
            guard read > 0 else { throw SpooledBodyError(operation: "read", errno: read < 0 ? errno : EIO) }
            guard SystemCall.writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<read]), to: destination) else {
                throw SpooledBodyError(operation: "copy", errno: errno)
            }
            offset += read
        }
    }

    static let copyBufferSize = 64 * 1024

    /// Calls `body` with the whole file mapped read-only: the kernel's page cache, not memory of
    /// this process's own. The pages go when `body` returns. Nil when the file cannot be mapped.
    package func withMappedBytes<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let length = count
        guard length > 0 else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else { return nil }
        defer { munmap(mapping, length) }
        return try body(UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: UInt8.self), count: length))
    }
}

/// A spooled body could not be read back or copied.
package struct SpooledBodyError: Error, Sendable, CustomStringConvertible {
    package var operation: String
    package var errno: Int32

    package var description: String { "could not \(operation) the spooled body: errno \(errno)" }
}
