import Glibc

/// Whether a data directory is its owner's alone (SPEC.md "Running": `0700`). Start-up warns,
/// as PostgreSQL does, when other users may enter or read it: the database beside it holds
/// password and session hashes and the cookie and CSRF secrets.
package enum DataDirectoryMode {
    /// A warning naming `path` and its mode when the group or others have any access to the
    /// directory; nil when only its owner does, or it cannot be read (opening it says why).
    package static func warning(forDirectory path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return "the data directory \(path) has mode 0\(String(mode, radix: 8)): other users can read "
            + "its files (password hashes, sessions, secrets); run chmod 700 \(path)"
    }
}
