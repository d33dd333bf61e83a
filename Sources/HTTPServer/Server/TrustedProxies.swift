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
