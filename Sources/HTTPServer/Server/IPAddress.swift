/// A numeric IPv4 or IPv6 address: a connection's peer, a trusted proxy, or an entry of
/// `X-Forwarded-For`. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address, so
/// a proxy is recognised however a dual-stack socket reports it.
///
/// This file is pure (no system calls), so the fuzzers can build it; the text forms, which ask
/// the C library, are in `IPAddress+Text.swift`.
package struct IPAddress: Hashable, Sendable {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    let bytes: [UInt8]

    /// 4 or 16 bytes from the kernel (an accepted connection's peer).
    init(bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        self.bytes = bytes.count == 16 && bytes.starts(with: mappedPrefix) ? Array(bytes[12...]) : bytes
    }

    /// The block a per-client limit counts this address under: an IPv4 address alone, an IPv6
    /// address's /64 (its low 64 bits zero). One subscriber is usually given a whole /64 or more
    /// (RFC 6177) and may take a new address in it whenever it likes (RFC 8981), so counting
    /// IPv6 addresses one by one would limit no one.
    package var subscriberPrefix: IPAddress {
        guard bytes.count == 16 else { return self }
        return IPAddress(bytes: Array(bytes[..<8]) + [UInt8](repeating: 0, count: 8))
    }
}

