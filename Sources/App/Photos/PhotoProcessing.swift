package import Basics
package import Foundation
import Glibc
package import Images
package import Store

/// Runs ``PhotoProcessor`` on uploads, on a ``BlockingThreadPool`` of its own (never an event
/// loop or the cooperative pool): the upload is written to a temporary file (mode 0600) on a
/// pool thread (a spooled one copied 64 KiB at a time), processed from it, and the file is
/// removed on every path. The pool's threads bound how many photos are decoded at once
/// (docs/photos.md, "Memory and time"); a queued job holds only a reference to its upload.
///
/// Fair shares (issue 29): each job is its person's and its client address's, and each may have
/// only ``PhotoUploadLimits/jobsPerPerson`` and ``PhotoUploadLimits/jobsPerClient`` queued or
/// running at once; past a share, or past the queue, a job is refused at once
/// (``BlockingThreadPool/Overloaded``, a 503). The threads run at niceness 10, as password
/// hashing does, so a decode never holds an event loop's CPU from it.
package struct PhotoProcessing: Sendable {
    private let pool: BlockingThreadPool
    /// The shares and the uploads per account it was made with.
    package let limits: PhotoUploadLimits
    private let processor: PhotoProcessor
    private let directory: URL

    /// `threadCount` photos processed at once, `queueLimit` more waiting, shared as `limits`
    /// says; temporary files in `directory` (the system's temporary directory by default).
    package init(
        threadCount: Int = 2, queueLimit: Int = 32, limits: PhotoUploadLimits = PhotoUploadLimits(),
        directory: URL = FileManager.default.temporaryDirectory
    ) {
        self.init(
            pool: BlockingThreadPool(name: "photo", threadCount: threadCount, queueLimit: queueLimit, scheduling: .niceness(10)),
            limits: limits, directory: directory)
    }

    /// Photos processed on `pool`, which the caller made and may also give other jobs: those
    /// take its threads and its queue's places as photos do (a test holds them to see the 503).
    package init(
        pool: BlockingThreadPool, limits: PhotoUploadLimits = PhotoUploadLimits(), directory: URL = FileManager.default.temporaryDirectory
    ) {
        self.pool = pool
        self.limits = limits
        processor = PhotoProcessor()
        self.directory = directory
    }

    /// The two squares made from `upload`, `person`'s, sent from `client` (nil: unknown, no
    /// address share), or why none were.
    ///
    /// - Throws: ``BlockingThreadPool/Overloaded`` when the person or the address already has
    ///   its share of the pool, or the pool's queue is full.
    package func process(
        _ upload: UploadedFile, of person: UserID, from client: String?
    ) async throws(BlockingThreadPool.Overloaded) -> Result<ProcessedPhoto, PhotoProcessingError> {
        let (processor, directory) = (self.processor, self.directory)
        var shares = [BlockingThreadPool.Share(owner: "person:\(person.rawValue)", limit: limits.jobsPerPerson)]
        if let client { shares.append(BlockingThreadPool.Share(owner: "client:\(client)", limit: limits.jobsPerClient)) }
        return try await pool.run(for: shares) {
            Result { () throws(PhotoProcessingError) in
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
