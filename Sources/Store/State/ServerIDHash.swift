/// The hash of an id the server gives out (``QuoteID``, ``UserID``): numbers counted up from 1,
/// never chosen by a client, so a table of them cannot be flooded with colliding keys, and
/// SipHash (Swift's `Hasher`, made to resist exactly that) is wasted on them. Every dictionary
/// and set look-up of an id hashed it: about 1 % of the server's CPU on a signed-in list page
/// (issue 32). This is splitmix64's finaliser over the id and the table's seed: a few
/// multiplications, and consecutive ids spread over every bucket of a power-of-two table.
///
/// Keys a client chooses (usernames, session tokens, paths, search words) keep `Hasher`.
package enum ServerIDHash {
    /// `value` mixed with `seed` (a table's per-instance seed, or 0 for `hashValue`).
    @inlinable
    package static func mix(_ value: Int, seed: Int) -> Int {
        var bits = UInt64(bitPattern: Int64(value)) ^ UInt64(bitPattern: Int64(seed))
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        bits ^= bits >> 31
        return Int(truncatingIfNeeded: bits)
    }

    /// A digest that names something only the server makes: a session id, the SHA-256 of a
    /// token the server drew at random. Its bytes are folded eight at a time through
    /// ``mix(_:seed:)`` after their count: five mixes for 32 bytes, where SipHash over them was
    /// one of three SipHash runs a signed-in request paid for its session (issue 32).
    ///
    /// Only for tables whose entries the server makes. A client can choose what a look-up
    /// hashes, by grinding tokens until their digests suit it, but a look-up only probes. It can
    /// never make an entry, so it cannot pile entries into one bucket.
    package static func mix(digest: [UInt8], seed: Int) -> Int {
        digest.withUnsafeBytes { bytes in
            var folded = mix(bytes.count, seed: seed)
            var offset = 0
            while offset + 8 <= bytes.count {
                folded = mix(folded ^ Int(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)), seed: seed)
                offset += 8
            }
            guard offset < bytes.count else { return folded }
            var tail = 0
            while offset < bytes.count {
                tail = tail << 8 | Int(bytes[offset])
                offset += 1
            }
            return mix(folded ^ tail, seed: seed)
        }
    }
}
