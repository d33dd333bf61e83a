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
}

