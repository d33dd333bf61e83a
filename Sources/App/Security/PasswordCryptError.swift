import Glibc

/// Why ``PasswordCrypt/hash(_:)`` could not produce a hash; never carries the password.
package enum PasswordCryptError: Error, CustomStringConvertible, Equatable {
    /// The password contains a NUL character, which C strings cannot carry: hashing it would
    /// silently drop everything after the NUL.
    case passwordContainsNUL
    /// `crypt_gensalt_rn` could not make a yescrypt setting (for instance, no OS randomness).
    case settingFailed(errno: Int32)
    /// `crypt_rn` returned no hash, or libxcrypt's `*` failure token.
    case hashingFailed(errno: Int32)

    package var description: String {
        switch self {
        case .passwordContainsNUL:
            "the password contains a NUL character"
        case let .settingFailed(code):
            "crypt_gensalt_rn failed with errno \(code) (\(String(cString: strerror(code))))"
        case let .hashingFailed(code):
            "crypt_rn failed with errno \(code) (\(String(cString: strerror(code))))"
        }
    }
}
