/// A numeric IPv4 or IPv6 address: a connection's peer, a trusted proxy, or an entry of
/// `X-Forwarded-For`. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address, so
/// a proxy is recognised however a dual-stack socket reports it.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    let bytes: [UInt8]

    /// Parses numeric text; nil for anything else (names, ports, brackets, garbage).
    package init?(_ text: some StringProtocol) {
        guard (2...45).contains(text.utf8.count), let bytes = Platform.addressBytes(of: String(text)) else { return nil }
        self.init(bytes: bytes)
    }

    /// 4 or 16 bytes from the kernel (an accepted connection's peer).
    init(bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        self.bytes = bytes.count == 16 && bytes.starts(with: mappedPrefix) ? Array(bytes[12...]) : bytes
    }

    package var description: String { Platform.addressText(bytes) }
}

/// Which peers may say, in `X-Forwarded-For`, whom they forward for (a load balancer such as
/// the nginx of `deploy/nginx.conf`), and how the client is found from that.
///
/// A header from anyone else is ignored: it could say anything. From a trusted proxy, the list
/// is read from its right end (the hop nearest this server) towards the left, past every trusted
/// proxy: the first address that is not one is the client. An entry that is not an address ends
/// the walk at the hop after it (the last address a trusted proxy vouched for), as nginx's
/// `real_ip_recursive` does (https://nginx.org/en/docs/http/ngx_http_realip_module.html).
package struct TrustedProxies: Sendable, Equatable {
    package let addresses: Set<IPAddress>

    package init(_ addresses: Set<IPAddress> = []) {
        self.addresses = addresses
    }

    package var isEmpty: Bool { addresses.isEmpty }

    /// The client a request from `peer` with these `X-Forwarded-For` values came from.
    package func client(peer: IPAddress, forwardedFor values: [String]) -> IPAddress {
        guard addresses.contains(peer) else { return peer }
        var client = peer
        for value in values.reversed() {
            for entry in value.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let address = IPAddress(entry.trimmingASCIIWhitespace()) else { return client }
                client = address
                guard addresses.contains(address) else { return client }
            }
        }
        return client
    }
}
