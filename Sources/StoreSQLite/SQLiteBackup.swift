import Foundation
import Glibc
package import Store

/// `quotebook backup FILE`: a consistent copy of a SQLite book while a server may be using it.
///
/// The copy is read through a connection of its own that takes no data-directory lock: the lock
/// keeps out a second *writer* (see ``DataDirectoryLock``), and a WAL reader is no writer, so the
/// server goes on saving while the copy is made (https://sqlite.org/wal.html#concurrency). The
/// online backup API copies every page inside one read transaction, so the copy is the book as
/// committed when the copy began — every save answered before then, none half-made.
///
/// The copy is written to `FILE.partial`, synced, and renamed to `FILE`, so `FILE` is either a
/// whole copy or absent. An existing `FILE` is refused, never overwritten. The snapshot file
/// beside the database is not copied: it is derived data, and the copy replays its journal.
package enum SQLiteBackup {
    /// What was copied: the newest journal entry in the copy and how many entries it holds.
    package struct Summary: Sendable, Equatable {
        package var newestEntry: Int64
        package var entryCount: Int64
    }

    /// Copies the database at `source` to a new file at `destination`.
    package static func copy(databaseAt source: String, to destination: String) throws(StoreError) -> Summary {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError.dataDirectory(path: destination, reason: "it already exists; a backup never overwrites a file")
        }
        let partial = destination + ".partial"
        if FileManager.default.fileExists(atPath: partial) {
            throw StoreError.dataDirectory(path: partial, reason: "it exists: another backup may be under way (else remove it)")
        }
        let reader = try QuotebookDatabase.openForReading(path: source)
        let summary: Summary
        do throws(StoreError) {
            let copy = try SQLiteConnection(path: partial)
            try reader.backup(into: copy)
            reader.close()
            // Read from the copy itself; its clean close then removes the -wal and -shm it made
            // (the statement is finalized first, at the end of its block, so the close is real).
            do {
                let count = try copy.prepare("SELECT coalesce(max(sequence), 0), count(*) FROM journal")
                let counts = try count.rows { ($0.int(at: 0), $0.int(at: 1)) }
                summary = Summary(newestEntry: counts.first?.0 ?? 0, entryCount: counts.first?.1 ?? 0)
            }
            copy.close()
            try sync(partial)
            guard rename(partial, destination) == 0 else {
                throw StoreError.dataDirectory(path: destination, reason: "cannot rename \(partial): \(String(cString: strerror(errno)))")
            }
            let parent = (destination as NSString).deletingLastPathComponent
            try? sync(parent.isEmpty ? "." : parent)
        } catch {
            unlink(partial)
            throw error
        }
        return summary
    }

    /// fsync(2) of the file or directory at `path`.
    private static func sync(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.dataDirectory(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.dataDirectory(path: path, reason: "cannot sync: \(String(cString: strerror(errno)))") }
    }
}
