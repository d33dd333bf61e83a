private import CCrypt
import Glibc

/// yescrypt password hashes through libxcrypt (`crypt(5)`), the only file that touches `crypt.h`.
///
/// Every call is synchronous and deliberately slow (about 20 ms at libxcrypt's default cost),
/// so run it on ``BlockingThreadPool`` through ``PasswordHasher``, never on an event loop or a
/// cooperative-pool thread. Each call heap-allocates its own zeroed 32 KiB `struct crypt_data`
/// (never shared, never on a small thread stack) and wipes it with `explicit_bzero` before
/// freeing, because it held the passphrase; the C copy of the passphrase is wiped the same
/// way. The Swift `String` the caller passes in cannot be wiped, so this is best effort.
///
/// libxcrypt refuses passphrases of `CRYPT_MAX_PASSPHRASE_SIZE` (512) bytes or more with
/// `ERANGE`. Such passwords are first reduced to byte 0xFF followed by the base64url SHA-256
/// of their UTF-8; 0xFF never occurs in valid UTF-8, so no real password maps to the same
/// passphrase.
package enum PasswordCrypt {
    /// The `crypt(5)` prefix of yescrypt, the only method this type produces or accepts.
    package static let methodPrefix = "$y$"

    /// A fresh yescrypt hash of `password` with a random salt, in `crypt(5)` form
    /// (`$y$<params>$<salt>$<hash>`), ready to store.
    ///
    /// - Throws: ``PasswordCryptError/passwordContainsNUL`` for a password with a NUL
    ///   character; the other cases only when libxcrypt or the OS random source fails.
    package static func hash(_ password: String) throws(PasswordCryptError) -> String {
        try crypt(password, setting: makeSetting())
    }

    /// A hash in every way like one ``hash(_:)`` makes (a fresh setting at the same cost, a random
    /// salt, 43 characters of hash) that no password hashes to, except by a 2^-256 chance: its
    /// hash part is random, not computed. Checking a password against it costs one full yescrypt
    /// hash, as against a real one, which is what the unknown-user path needs; making it costs
    /// nothing, where hashing a random password for it cost 20 ms of every start-up.
    ///
    /// - Throws: only when libxcrypt or the OS random source fails.
    package static func decoyHash() throws(PasswordCryptError) -> String {
        let setting = try makeSetting()
        let alphabet = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        // 64 symbols: a byte's low six bits pick one uniformly.
        let digest = SecureRandom.bytes(decoyDigestLength).map { alphabet[Int($0 & 63)] }
        return setting + "$" + String(decoding: digest, as: UTF8.self)
    }

    /// Characters of hash after a yescrypt setting (256 bits in crypt's base 64).
    static let decoyDigestLength = 43

    /// Whether `password` hashes to `storedHash`, a value made by ``hash(_:)``.
    ///
    /// The recomputed hash is compared with ``ConstantTime/equals(_:_:)``. Returns `false`,
    /// never crashes, for any failure: a stored value that is not a yescrypt hash (legacy DES
    /// would match on the first 8 characters only), libxcrypt's `*` failure token, a NULL
    /// return, or a password containing NUL.
    package static func verify(_ password: String, against storedHash: String) -> Bool {
        guard storedHash.hasPrefix(methodPrefix), !storedHash.utf8.contains(0) else { return false }
        guard let computed = try? crypt(password, setting: storedHash) else { return false }
        return ConstantTime.equals(computed.utf8, storedHash.utf8)
    }

    /// A yescrypt setting with libxcrypt's default cost and a salt that libxcrypt reads from
    /// the OS random source itself (NULL `rbytes`).
    private static func makeSetting() throws(PasswordCryptError) -> String {
        let result: Result<String, PasswordCryptError> = withUnsafeTemporaryAllocation(
            of: CChar.self, capacity: Int(CRYPT_GENSALT_OUTPUT_SIZE)
        ) { buffer in
            guard let setting = crypt_gensalt_rn(methodPrefix, 0, nil, 0, buffer.baseAddress, Int32(buffer.count)),
                setting.pointee != CChar(UInt8(ascii: "*"))
            else { return .failure(.settingFailed(errno: errno)) }
            return .success(String(cString: setting))
        }
        return try result.get()
    }

    /// Runs `crypt_rn(password, setting)` and returns its output, throwing for a NULL or `*` result.
    private static func crypt(_ password: String, setting: String) throws(PasswordCryptError) -> String {
        guard !password.utf8.contains(0) else { throw .passwordContainsNUL }
        let passphrase = makePassphrase(password)
        defer {
            explicit_bzero(passphrase.baseAddress!, passphrase.count)
            passphrase.deallocate()
        }

        let dataSize = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: dataSize, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: dataSize)
        defer {
            explicit_bzero(data, dataSize)
            data.deallocate()
        }

        guard let output = crypt_rn(passphrase.baseAddress, setting, data, Int32(dataSize)) else {
            throw .hashingFailed(errno: errno)
        }
        guard output.pointee != CChar(UInt8(ascii: "*")) else { throw .hashingFailed(errno: errno) }
        return String(cString: output)
    }

    /// The NUL-terminated C passphrase for `password` (see the type's note on long passwords);
    /// the caller wipes and frees it.
    private static func makePassphrase(_ password: String) -> UnsafeMutableBufferPointer<CChar> {
        var bytes = Array(password.utf8)
        if bytes.count >= Int(CRYPT_MAX_PASSPHRASE_SIZE) {
            var digest = SHA256.hash(bytes)
            explicitlyZero(&bytes)
            bytes = [0xFF] + Array(Base64URL.encode(digest).utf8)
            explicitlyZero(&digest)
        }
        let passphrase = UnsafeMutableBufferPointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() {
            passphrase[index] = CChar(bitPattern: byte)
        }
        passphrase[bytes.count] = 0
        explicitlyZero(&bytes)
        return passphrase
    }

    private static func explicitlyZero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }
}
