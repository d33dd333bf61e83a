private import CSQLite
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
/// The copy is its owner's alone and never lands on anything else (SPEC.md "Running"): it is
/// written in a new private directory (`mkdtemp`, mode `0700`) beside `FILE`, to a file created
/// there with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode `0600`, so SQLite's own journal files
/// land where no one else can plant a link; it is synced, then renamed to `FILE` with
/// `RENAME_NOREPLACE`. So `FILE` is either a whole copy or absent, and an existing file or
/// symbolic link at `FILE` (even one made while the copy ran) is refused, never replaced or
/// followed. The snapshot file beside the database is not copied: it is derived data, and the
/// copy replays its journal.
package enum SQLiteBackup {
    /// What was copied: the newest journal entry in the copy and how many entries it holds.
    package struct Summary: Sendable, Equatable {
        package var newestEntry: Int64
        package var entryCount: Int64
    }

    /// Copies the database at `source` to a new file at `destination`.
    package static func copy(databaseAt source: String, to destination: String) throws(StoreError) -> Summary {
        try refuseExisting(destination)
        let parent = (destination as NSString).deletingLastPathComponent
        let directory = try privateDirectory(beside: destination, in: parent.isEmpty ? "." : parent)
        defer { removeAll(in: directory) }
        let partial = directory + "/copy.sqlite3"
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(partial, "cannot create") }
        close(fd)
        let reader = try QuotebookDatabase.openForReading(path: source)
        defer { reader.close() }
        let copy = try SQLiteConnection(path: partial, create: false)
        try reader.backup(into: copy)
        reader.close()
        // Read from the copy itself; its clean close then removes the -wal and -shm it made
        // (the statement is finalized first, at the end of its block, so the close is real).
        let summary: Summary
        do {
            let count = try copy.prepare("SELECT coalesce(max(sequence), 0), count(*) FROM journal")
            let counts = try count.rows { ($0.int(at: 0), $0.int(at: 1)) }
            summary = Summary(newestEntry: counts.first?.0 ?? 0, entryCount: counts.first?.1 ?? 0)
        }
        copy.close()
        try sync(partial)
        guard csqlite_rename_without_replacing(partial, destination) == 0 else {
            if errno == EEXIST { throw existing(destination, "it was made while the backup ran") }
            if errno == EINVAL {
                throw StoreError.dataDirectory(
                    path: destination, reason: "its file system cannot rename without replacing (renameat2 RENAME_NOREPLACE)")
            }
            throw failure(destination, "cannot rename the copy to")
        }
        try? sync(parent.isEmpty ? "." : parent)
        return summary
    }

    /// Refuses `path` when anything is there: a file, a directory, or a symbolic link (dangling or not).
    private static func refuseExisting(_ path: String) throws(StoreError) {
        var status = stat()
        guard lstat(path, &status) != 0 else {
            let kind = status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "it already exists"
            throw existing(path, kind)
        }
        guard errno == ENOENT else { throw failure(path, "cannot look at") }
    }

    private static func existing(_ path: String, _ what: String) -> StoreError {
        .dataDirectory(path: path, reason: "\(what); a backup never replaces a file or follows a link")
    }

    private static func failure(_ path: String, _ what: String) -> StoreError {
        .dataDirectory(path: path, reason: "\(what) it: \(String(cString: strerror(errno)))")
    }

    /// A new directory only this process's user can enter, beside `destination` (on its file
    /// system, so the final rename is atomic).
    private static func privateDirectory(beside destination: String, in parent: String) throws(StoreError) -> String {
        var template = Array("\(parent)/.quotebook-backup-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else { throw failure(parent, "cannot make a private directory in") }
        return made
    }

    /// Removes what SQLite or this copy left in `directory` (nothing after a success), then the directory.
    private static func removeAll(in directory: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(directory + "/copy.sqlite3" + suffix) }
        rmdir(directory)
    }

    /// fsync(2) of the file or directory at `path`.
    private static func sync(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.dataDirectory(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.dataDirectory(path: path, reason: "cannot sync: \(String(cString: strerror(errno)))") }
    }
}
