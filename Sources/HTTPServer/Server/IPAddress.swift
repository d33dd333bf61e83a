/// A numeric IPv4 or IPv6 address: a connection's peer, a trusted proxy, or an entry of
/// `X-Forwarded-For`. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address, so
/// a proxy is recognised however a dual-stack socket reports it.
///
/// This file is pure (no system calls), so the fuzzers can build it; the text forms, which ask
/// the C library, are in `IPAddress+Text.swift`.
package struct IPAddress: Hashable, Sendable {
    /// The address's bytes in network order, held inline: an address is copied into every
    /// request, connection and per-client count, and as an array each copy retained (and each
    /// end released) a heap buffer. IPv4: the first four bytes of `high`, the rest zero.
    private let high: UInt64
    private let low: UInt64
    private let isIPv6: Bool

    /// 4 or 16 bytes from the kernel or the C library (an accepted connection's peer, parsed
    /// text); any other count is taken as IPv4, its first four bytes (zeros past the end).
    init(bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let isMapped = bytes.count == 16 && bytes.starts(with: mappedPrefix)
        let bytes = isMapped ? Array(bytes[12...]) : bytes
        isIPv6 = bytes.count == 16
        func word(_ start: Int) -> UInt64 {
            var word: UInt64 = 0
            for index in start..<start + 8 { word = word << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            return word
        }
        high = word(0)
        low = isIPv6 ? word(8) : 0
    }

    private init(high: UInt64, low: UInt64, isIPv6: Bool) {
        self.high = high
        self.low = low
        self.isIPv6 = isIPv6
    }

    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    var bytes: [UInt8] {
        let count = isIPv6 ? 16 : 4
        return (0..<count).map { index in
            let word = index < 8 ? high : low
            return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index % 8)))
        }
    }

    /// The block a per-client limit counts this address under: an IPv4 address alone, an IPv6
    /// address's /64 (its low 64 bits zero). One subscriber is usually given a whole /64 or more
    /// (RFC 6177) and may take a new address in it whenever it likes (RFC 8981), so counting
    /// IPv6 addresses one by one would limit no one.
    package var subscriberPrefix: IPAddress {
        isIPv6 ? IPAddress(high: high, low: 0, isIPv6: true) : self
    }
}
