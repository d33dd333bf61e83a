package import Basics
package import Foundation
import Glibc
package import Images

/// Runs ``PhotoProcessor`` on uploads, on a ``BlockingThreadPool`` of its own (never an event
/// loop or the cooperative pool): the upload is written to a temporary file (mode 0600) on a
/// pool thread (a spooled one copied 64 KiB at a time), processed from it, and the file is
/// removed on every path. The pool's threads bound how many photos are decoded at once
/// (docs/photos.md, "Memory and time"); a queued job holds only a reference to its upload.
/// Past the queue a job is refused at once (``BlockingThreadPool/Overloaded``, a 503).
package struct PhotoProcessing: Sendable {
    private let pool: BlockingThreadPool
    private let processor: Result<PhotoProcessor, PhotoProcessingError>
    private let directory: URL

    /// `threadCount` photos processed at once, `queueLimit` more waiting; temporary files in
    /// `directory` (the system's temporary directory by default).
    package init(threadCount: Int = 2, queueLimit: Int = 32, directory: URL = FileManager.default.temporaryDirectory) {
        self.init(pool: BlockingThreadPool(name: "photo", threadCount: threadCount, queueLimit: queueLimit), directory: directory)
    }

    /// Photos processed on `pool`, which the caller made and may also give other jobs: those
    /// take its threads and its queue's places as photos do (a test holds them to see the 503).
    package init(pool: BlockingThreadPool, directory: URL = FileManager.default.temporaryDirectory) {
        self.pool = pool
        processor = Result { () throws(PhotoProcessingError) in try PhotoProcessor() }
        self.directory = directory
    }

    /// The two squares made from `upload`, or why none were.
    ///
    /// - Throws: ``BlockingThreadPool/Overloaded`` when the pool's queue is full.
    package func process(_ upload: UploadedFile) async throws(BlockingThreadPool.Overloaded) -> Result<ProcessedPhoto, PhotoProcessingError> {
        let (processor, directory) = (self.processor, self.directory)
        return try await pool.run {
            Result { () throws(PhotoProcessingError) in
                let processor = try processor.get()
                let path = directory.appendingPathComponent("quotebook-upload-\(UUID().uuidString)").path
                try Self.write(upload, to: path)
                defer { unlink(path) }
                return try processor.process(fileAt: path)
            }
        }
    }

    /// Writes `upload` to a new file at `path`, readable by this user alone.
    private static func write(_ upload: UploadedFile, to path: String) throws(PhotoProcessingError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unreadableFile(operation: "create", errno: errno) }
        defer { close(descriptor) }
        do {
            try upload.write(to: descriptor)
        } catch {
            unlink(path)
            throw .unreadableFile(operation: "write", errno: error.errno)
        }
    }
}
