/// How the server writes large uploads to files as they arrive (``SpooledBody``), as nginx does
/// with `client_body_temp_path`: a `multipart/form-data` body over ``threshold`` bytes takes no
/// memory budget, so twenty phones sending 20 MiB photos at once hold a few read buffers of
/// memory rather than 400 MiB.
///
/// Disk is bounded like memory: a spooled body reserves its declared size (the upload limit
/// when chunked) from ``budget``, shared equally by the loops, and one client address may hold
/// ``budgetPerClient`` of a loop's share. A body that does not fit is answered 503 with
/// `Retry-After` at once, unread.
package struct BodySpool: Sendable, Equatable {
    /// The directory the files are made in (and at once unlinked from), such as the system's
    /// temporary directory; on `tmpfs` the files take memory after all.
    package var directory: String
    /// A `multipart/form-data` body larger than this is spooled; smaller ones stay in memory.
    package var threshold: Int = 64 * 1024
    /// Bytes of spooled bodies on disk at once, across the loops.
    package var budget: Int = 1024 * 1024 * 1024
    /// Bytes of its loop's share one client address may hold; nil (the default): half of it.
    package var budgetPerClient: Int?

    /// Spooling into `directory` with the default threshold and budgets.
    package init(directory: String) {
        self.directory = directory
    }
}
