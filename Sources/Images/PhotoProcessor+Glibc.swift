import Glibc

extension PhotoProcessor {
    /// The first `count` bytes of the file at `path` (fewer if it is shorter), read with
    /// open(2) and read(2), retried on `EINTR`.
    static func readHead(fileAt path: String, count: Int) throws(PhotoProcessingError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadableFile(operation: "open", errno: errno) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(operation: "read", errno: errno)
            }
            filled += count
        }
        return Array(bytes[..<filled])
    }
}
