import Basics
import Glibc

/// Thin wrappers over the file-system calls ``StaticFiles`` needs; C names stay in this file.
enum FileSystem {
    /// What `stat(2)` says about a path (symlinks followed).
    struct Status: Equatable, Sendable {
        var isRegularFile: Bool
        var size: Int
        var device: UInt64
        var inode: UInt64
        /// Modification time: whole seconds since the epoch (`st_mtim.tv_sec`), then the
        /// nanoseconds within that second. Kept apart: in nanoseconds alone a time after 2262
        /// or before 1678 overflows `Int`.
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
    }

    static func status(of path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(
            isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
            size: Int(info.st_size),
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            modifiedSeconds: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec))
    }

    /// The canonical absolute path with every symlink resolved (`realpath(3)`), or nil.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The whole file, or nil if it cannot be opened or read; `O_NOFOLLOW` so a symlink swapped
    /// in after the checks is not followed.
    static func contents(of path: String, expectedSize: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(expectedSize)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retryingInterrupts { read(fd, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
