/// HMAC with SHA-256 (RFC 2104, with the SHA-256 parameters of RFC 4231), for signing
/// session cookies and similar tokens.
///
/// Compare codes with ``ConstantTime/equals(_:_:)``, never with `==`.
package enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    ///
    /// A key longer than the 64-byte block is hashed first (RFC 2104 §2); any key length
    /// works, but keys shorter than 32 bytes weaken the code (RFC 2104 §3).
    package static func authenticationCode(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var blockKey = key.count > SHA256.blockCount ? SHA256.hash(key) : Array(key)
        blockKey.append(contentsOf: repeatElement(0, count: SHA256.blockCount - blockKey.count))

        var inner = blockKey.map { $0 ^ 0x36 }
        inner.append(contentsOf: message)
        var outer = blockKey.map { $0 ^ 0x5c }
        outer.append(contentsOf: SHA256.hash(inner))
        return SHA256.hash(outer)
    }
}
