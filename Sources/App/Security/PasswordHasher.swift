package import Basics

/// Password hashing and checking for the app, run on a ``BlockingThreadPool`` so the slow
/// yescrypt work never holds an event loop or a cooperative-pool thread.
///
/// Checking an unknown user still costs one full hash, against a dummy hash made once at
/// `init` (``PasswordCryptClient/decoy``, free to make), so a login for a name that does not exist takes as long as one for a name that
/// does: response timing does not reveal which usernames are registered.
package struct PasswordHasher: Sendable {
    private let pool: BlockingThreadPool
    private let crypt: PasswordCryptClient
    private let dummyHash: String

    /// A hasher using `pool` and `crypt`, with its dummy hash (yescrypt's costs nothing to make:
    /// ``PasswordCrypt/decoyHash()``).
    ///
    /// Stops the process if `crypt` cannot make one (no OS randomness), as nothing could log in
    /// anyway.
    package init(pool: BlockingThreadPool, crypt: PasswordCryptClient = .yescrypt) {
        self.pool = pool
        self.crypt = crypt
        do {
            dummyHash = try crypt.decoy()
        } catch {
            fatalError("cannot compute the dummy password hash: \(error)")
        }
    }

    /// A fresh yescrypt hash of `password` to store, computed as a job of `owner` (the client
    /// address, so one address holds a bounded share of the pool; nil: not limited).
    ///
    /// - Throws: ``BlockingThreadPool/Overloaded`` when the pool refuses the job, or
    ///   ``PasswordCryptError`` (a NUL in the password, or a libxcrypt failure).
    package func hash(_ password: String, for owner: String? = nil) async throws -> String {
        let crypt = self.crypt
        let result = try await pool.run(for: owner) { () -> Result<String, PasswordCryptError> in
            Result { () throws(PasswordCryptError) in try crypt.hash(password) }
        }
        return try result.get()
    }

    /// Whether `password` matches `storedHash`, checked as a job of `owner` (as for
    /// ``hash(_:for:)``); a `nil` hash (unknown user) spends the same work against the dummy
    /// hash and returns `false`.
    ///
    /// - Throws: ``BlockingThreadPool/Overloaded`` when the pool refuses the job.
    package func verify(
        _ password: String, against storedHash: String?, for owner: String? = nil
    ) async throws(BlockingThreadPool.Overloaded) -> Bool {
        let hash = storedHash ?? dummyHash
        let crypt = self.crypt
        let matches = try await pool.run(for: owner) { crypt.verify(password, hash) }
        return storedHash != nil && matches
    }
}
