/// The slow password functions ``PasswordHasher`` runs on its pool, injected through
/// ``Dependencies``: yescrypt (``PasswordCrypt``) in the app; in tests a stand-in that counts
/// the checks, or holds them until released, while the pool, the throttle and the limits
/// around it stay real.
package struct PasswordCryptClient: Sendable {
    /// A fresh hash of a password, to store.
    package var hash: @Sendable (_ password: String) throws(PasswordCryptError) -> String
    /// Whether a password matches a stored hash; false for anything malformed.
    package var verify: @Sendable (_ password: String, _ storedHash: String) -> Bool
    /// A stored hash that no password matches, for checking unknown users at full cost; by
    /// default the hash of a random password.
    package var decoy: @Sendable () throws(PasswordCryptError) -> String

    package init(
        hash: @escaping @Sendable (_ password: String) throws(PasswordCryptError) -> String,
        verify: @escaping @Sendable (_ password: String, _ storedHash: String) -> Bool,
        decoy: (@Sendable () throws(PasswordCryptError) -> String)? = nil
    ) {
        self.hash = hash
        self.verify = verify
        if let decoy {
            self.decoy = decoy
        } else {
            self.decoy = Self.hashOfRandomPassword(hash)
        }
    }

    /// A decoy made by hashing a random password with `hash`.
    private static func hashOfRandomPassword(
        _ hash: @escaping @Sendable (_ password: String) throws(PasswordCryptError) -> String
    ) -> @Sendable () throws(PasswordCryptError) -> String {
        { () throws(PasswordCryptError) -> String in
            let password = Base64URL.encode(SecureRandom.bytes(24))
            return try hash(password)
        }
    }

    /// yescrypt through libxcrypt, as stored hashes are made.
    package static let yescrypt = PasswordCryptClient(
        hash: { password throws(PasswordCryptError) in try PasswordCrypt.hash(password) },
        verify: { password, storedHash in PasswordCrypt.verify(password, against: storedHash) },
        decoy: { () throws(PasswordCryptError) in try PasswordCrypt.decoyHash() })
}
