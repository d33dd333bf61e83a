/// `quotebook backup FILE [--data DIR]`: a consistent copy of the SQLite book at a new file
/// `FILE`, made while a server may be saving (it reads; it takes no lock and stops no save). To
/// serve the copy, put it in a directory as `quotebook.sqlite3` and start with `--data` on that
/// directory. With `--database` there is nothing to copy here: PostgreSQL's `pg_dump` backs up
/// such a book.
///
/// Exit statuses: 0 copied; 64 the command line is wrong, or `--database` was given; 1 the book
/// cannot be read or the copy cannot be written (nothing is left at `FILE` then).
package enum BackupCommand {
    package struct Outcome: Sendable, Equatable {
        package var exitCode: Int32
        package var message: String
    }

    /// Copies to `file` with `copy`, which returns the newest entry in the copy and how many it
    /// holds, or nil when the book is PostgreSQL's.
    package static func run(
        file: String, copy: (String) throws -> (newestEntry: Int64, entryCount: Int64)?
    ) -> Outcome {
        do {
            guard let summary = try copy(file) else { return pgDump }
            return Outcome(
                exitCode: 0,
                message: "copied the book through journal entry \(summary.newestEntry) (\(summary.entryCount) entries) to \(file); "
                    + "to serve it, move it to DIR/quotebook.sqlite3 and start with --data DIR")
        } catch {
            return Outcome(exitCode: 1, message: "no backup made: \(error)")
        }
    }

    /// With `--database`: what to use instead.
    package static let pgDump = Outcome(
        exitCode: 64,
        message: "backup copies a SQLite book; to back up a PostgreSQL book use pg_dump "
            + "(https://www.postgresql.org/docs/current/app-pgdump.html)")
}
