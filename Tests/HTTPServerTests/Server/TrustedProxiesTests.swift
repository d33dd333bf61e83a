import HTTPServer
import Testing

/// Whom a request came from when a trusted load balancer says so in `X-Forwarded-For`.
@Suite struct TrustedProxiesTests {
    static func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text))
    }

    static func proxies(_ texts: String...) throws -> TrustedProxies {
        TrustedProxies(Set(try texts.map(address)))
    }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"), ("::ffff:192.0.2.1", "192.0.2.1"),
        ("::1", "::1"), ("255.254.253.1", "255.254.253.1"), ("fe80:1:2:3:4:5:6:ff07", "fe80:1:2:3:4:5:6:ff07"),
    ])
    func parsesNumericAddressesInTheirUsualForm(text: String, shown: String) throws {
        #expect(try Self.address(text).description == shown)
    }

    /// An address is its family and every byte: none equals another that differs in either.
    @Test func addressesDifferByFamilyAndByEveryByte() throws {
        let texts = ["0.0.0.0", "::", "0.0.0.1", "1.0.0.0", "::1", "1::", "::1:0:0:0", "::ffff:0.0.0.1", "::ffff:1:0"]
        let addresses = try texts.map(Self.address)
        // `::ffff:0.0.0.1` is the IPv4 address 0.0.0.1.
        #expect(addresses[7] == addresses[2])
        for (i, a) in addresses.enumerated() where i != 7 {
            for (j, b) in addresses.enumerated() where j != 7 && j != i {
                #expect(a != b, "\(texts[i]) and \(texts[j])")
            }
        }
        #expect(Set(addresses).count == texts.count - 1)
    }

    @Test(arguments: ["", "localhost", "192.0.2.1:80", "[::1]", "192.0.2", "1.2.3.4.5", "256.1.1.1", " 192.0.2.1"])
    func refusesAnythingButANumericAddress(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("::ffff:192.0.2.1", "192.0.2.1"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"),
        ("2001:db8:1:2::ffff", "2001:db8:1:2::"), ("::1", "::"),
    ])
    func perClientLimitsCountAnIPv4AddressAloneAndAnIPv6AddressByItsSlash64(text: String, prefix: String) throws {
        #expect(try Self.address(text).subscriberPrefix.description == prefix)
    }

    @Test func anUntrustedPeerIsTheClientWhateverItsHeaderSays() throws {
        let client = try Self.proxies("10.0.0.1").client(peer: Self.address("192.0.2.50"), forwardedFor: ["203.0.113.9"])
        #expect(client == (try Self.address("192.0.2.50")))
    }

    @Test func aTrustedPeerNamesTheClient() throws {
        let client = try Self.proxies("10.0.0.1").client(peer: Self.address("10.0.0.1"), forwardedFor: ["203.0.113.9"])
        #expect(client == (try Self.address("203.0.113.9")))
    }

    @Test func theWalkGoesPastEveryTrustedHopAndStopsAtTheFirstOther() throws {
        let proxies = try Self.proxies("10.0.0.1", "10.0.0.2")
        // The client's own claim (198.51.100.1) is left of the first untrusted hop: not believed.
        let client = try proxies.client(
            peer: Self.address("10.0.0.1"), forwardedFor: ["198.51.100.1, 203.0.113.9", " 10.0.0.2 "])
        #expect(client == (try Self.address("203.0.113.9")))
    }

    @Test func anEntryThatIsNotAnAddressEndsTheWalkAtTheLastVouchedFor() throws {
        let proxies = try Self.proxies("10.0.0.1", "10.0.0.2")
        let garbage = try proxies.client(peer: Self.address("10.0.0.1"), forwardedFor: ["203.0.113.9, <script>, 10.0.0.2"])
        #expect(garbage == (try Self.address("10.0.0.2")))
        let empty = try proxies.client(peer: Self.address("10.0.0.1"), forwardedFor: [""])
        #expect(empty == (try Self.address("10.0.0.1")))
    }

    @Test func aMappedPeerMatchesItsIPv4Proxy() throws {
        let client = try Self.proxies("127.0.0.1").client(peer: Self.address("::ffff:127.0.0.1"), forwardedFor: ["2001:db8::9"])
        #expect(client.description == "2001:db8::9")
    }
}

/// The responder is told who asks: the peer, or whom a trusted proxy forwarded for.
@Suite(.timeLimit(.minutes(1))) struct RequestClientTests {
    /// Answers with the request's `client`, or `none`.
    struct ClientEcho: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            .text(request.client?.description ?? "none")
        }
    }

    @Test func theResponderSeesThePeerAndIgnoresAnUntrustedHeader() async throws {
        let server = try TestServer(responder: ClientEcho())
        let client = try server.connect()
        let plain = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(plain.text == "127.0.0.1")
        let claimed = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        #expect(claimed.text == "127.0.0.1")
        await server.stop()
    }

    @Test func theResponderSeesWhomATrustedProxyForwardedFor() async throws {
        let server = try TestServer(
            responder: ClientEcho(), trustedProxies: TrustedProxies([try #require(IPAddress("127.0.0.1"))]))
        let client = try server.connect()
        let forwarded = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        #expect(forwarded.text == "203.0.113.9")
        let direct = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(direct.text == "127.0.0.1")
        await server.stop()
    }
}
