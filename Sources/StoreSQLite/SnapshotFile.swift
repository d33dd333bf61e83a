import Basics
import Foundation
import Glibc
package import Store

/// A SQLite journal's snapshot in a file of its own beside the database (`quotebook.sqlite3-snapshot`),
/// written whole to a temporary file, synced, and renamed over the old one, so the file is
/// always a complete snapshot or absent (https://man7.org/linux/man-pages/man2/rename.2.html).
/// A snapshot is derived data: the database alone still holds every change.
///
/// Layout: `QBSNAP01`, the sequence as 8 little-endian bytes, then the ``SnapshotFormat`` bytes.
///
/// Ownership: an actor on a serial dispatch queue of its own, so the blocking writes and syncs
/// run there, never on the cooperative pool or the journal's queue.
package actor SnapshotFile: SnapshotSaver {
    private static let magic = Array("QBSNAP01".utf8)
    private let executor = DispatchQueueExecutor(label: "quotebook.snapshot")
    package nonisolated let path: String
    private var isClosed = false

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    package init(path: String) {
        self.path = path
    }

    package func save(_ bytes: [UInt8], through sequence: Int64) throws(StoreError) {
        guard !isClosed else { throw StoreError.journalClosed(operation: "save snapshot") }
        try Self.write(bytes, through: sequence, to: path)
    }

    package func close() {
        isClosed = true
    }

    /// Writes the file at once, on the calling thread (start-up, tools, tests).
    package nonisolated static func write(_ bytes: [UInt8], through sequence: Int64, to path: String) throws(StoreError) {
        let temporary = path + ".tmp"
        var header = magic
        withUnsafeBytes(of: sequence.littleEndian) { header += $0 }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create \(temporary)") }
        var closed = false
        defer { if !closed { Glibc.close(fd) } }
        for part in [header, bytes] where !writeAll(part, to: fd) {
            throw failure("write \(temporary)")
        }
        guard fsync(fd) == 0 else { throw failure("sync \(temporary)") }
        closed = true
        guard Glibc.close(fd) == 0 else { throw failure("close \(temporary)") }
        guard rename(temporary, path) == 0 else { throw failure("rename \(temporary)") }
        // The rename itself is durable once the directory is synced.
        let parent = (path as NSString).deletingLastPathComponent
        let directory = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            Glibc.close(directory)
        }
    }

    /// Writes every byte of `bytes` to `fd`; false (with `errno` set) when a write failed.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { SystemCall.writeAll($0, to: fd) }
    }

    /// The snapshot in the file at `path`: its sequence and ``SnapshotFormat`` bytes; nil when
    /// there is no such file or it is not one.
    nonisolated static func read(from path: String) -> (sequence: Int64, bytes: Data)? {
        guard let data = mapped(path), data.count >= 16, Array(data.prefix(8)) == magic else { return nil }
        let sequence = data.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: Int64.self)) }
        guard sequence >= 0 else { return nil }
        // A slice, not a copy (`subdata` copied the whole 28 MB of a 100,000-quote book again).
        return (sequence, data[16...])
    }

    /// The file at `path` mapped into memory, read-only and populated at once, unmapped when the
    /// `Data` goes; nil when it cannot be opened or is empty.
    ///
    /// Mapped rather than read: reading copied the 28 MB of a 100,000-quote book's snapshot from
    /// the page cache into fresh memory, whose every page the kernel first zeroed (about a tenth
    /// of the start-up). Safe while mapped: a snapshot file is never written in place, only
    /// replaced by a rename (``write(_:through:to:)``), which leaves the mapped file as it was.
    private static func mapped(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size > 0, let size = Int(exactly: status.st_size) else { return nil }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), base != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// A failed call (its `errno` read first) as an error about the snapshot file.
    private static func failure(_ operation: String) -> StoreError {
        let code = errno
        return StoreError.dataDirectory(path: operation, reason: "cannot save the snapshot: \(String(cString: strerror(code)))")
    }
}
