import Basics
import Foundation
@testable import HTTPServer
import Logging
import TestSupport
import Testing

/// No client can take the server from the others: connections and event streams are bounded
/// per client address and in total (past a bound: 503 with `Retry-After`, then closed), a
/// body's memory is bounded per client, a body that trickles is cut off, and a request the
/// responder can refuse from its head is refused without its body being read.
@Suite(.timeLimit(.minutes(1))) struct ClientLimitTests {
    static let proxy = TrustedProxies([IPAddress("127.0.0.1")!])

    /// Opens a connection and shows it was served (so its place is surely taken).
    static func served(_ server: TestServer) async throws -> RawClient {
        let client = try server.connect()
        #expect(try await client.exchange("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        return client
    }

    /// Expects the next connection to be refused: 503 with `Retry-After`, then closed.
    static func expectRefused(_ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let refused = try server.connect()
        let response = try await refused.readResponse()
        #expect(response.status == 503, sourceLocation: sourceLocation)
        #expect(response.header("Retry-After") != nil, sourceLocation: sourceLocation)
        #expect(await refused.isClosedByServer(), sourceLocation: sourceLocation)
    }

    /// Retries `connect` until a connection is served: a freed place is given back on the
    /// loop once it has seen the close.
    static func eventuallyServed(_ server: TestServer) async throws -> Bool {
        for _ in 0..<50 {
            let client = try server.connect()
            if let response = try? await client.exchange("GET /again HTTP/1.1\r\nHost: h\r\n\r\n"),
                response.status == 200
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aClientPastItsConnectionLimitIsRefusedAndServedAgainOnceOneCloses() async throws {
        let server = try TestServer { $0.maxConnectionsPerClient = 3 }
        var held: [RawClient] = []
        for _ in 0..<3 { held.append(try await Self.served(server)) }
        try await Self.expectRefused(server)
        try await Self.expectRefused(server)
        // The ones it holds go on being served.
        #expect(try await held[0].exchange("GET /still HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        held.removeLast().close()
        #expect(try await Self.eventuallyServed(server))
        #expect(server.log.entries.contains { $0.level == .warning && $0.message.contains("refusing accepted connections from 127.0.0.1") })
        await server.stop()
    }

    @Test func theServerPastItsTotalConnectionLimitRefusesEveryone() async throws {
        let server = try TestServer { $0.maxConnections = 2 }
        let first = try await Self.served(server)
        let second = try await Self.served(server)
        try await Self.expectRefused(server)
        first.close()
        #expect(try await Self.eventuallyServed(server))
        second.close()
        await server.stop()
    }

    @Test func theConnectionLimitDefaultsToTheDescriptorLimitLessAReserve() {
        let configuration = HTTPServerConfiguration()
        #expect(configuration.connectionLimit(fileLimit: 1024) == 1024 - 128)
        #expect(configuration.connectionLimit(fileLimit: 64) == 64 - 16)
        #expect(configuration.connectionLimit(fileLimit: 1_048_576) == 1_048_576 - 256)
        var fixed = configuration
        fixed.maxConnections = 10
        #expect(fixed.connectionLimit(fileLimit: 1024) == 10)
    }

    /// Streams `data: x` every 10 ms until its client leaves.
    static let endlessEvents = ClosureResponder { request in
        guard request.path == "/events" else { return .text("ok") }
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": "text/event-stream"],
            stream: HTTPBodyStream { writer in
                while !Task.isCancelled {
                    await writer.write("data: x\n\n")
                    try? await Task.sleep(for: .milliseconds(10))
                }
            })
    }

    static func openStream(_ server: TestServer, forwardedFor client: String) async throws -> (RawClient, RawResponse?) {
        let connection = try server.connect()
        connection.send("GET /events HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: \(client)\r\n\r\n")
        while !String(decoding: connection.buffer, as: UTF8.self).contains("\r\n\r\n") {
            guard await connection.read().isData else { break }
        }
        let text = String(decoding: connection.buffer, as: UTF8.self)
        if text.hasPrefix("HTTP/1.1 200") { return (connection, nil) }
        return (connection, try await connection.readResponse())
    }

    @Test func eventStreamsAreLimitedPerForwardedClientAndInTotal() async throws {
        let server = try TestServer(responder: Self.endlessEvents, trustedProxies: Self.proxy) {
            $0.maxStreamsPerClient = 2
            $0.maxStreams = 3
        }
        let (a1, refusedA1) = try await Self.openStream(server, forwardedFor: "203.0.113.1")
        let (a2, refusedA2) = try await Self.openStream(server, forwardedFor: "203.0.113.1")
        #expect(refusedA1 == nil && refusedA2 == nil)
        let (_, refusedA3) = try await Self.openStream(server, forwardedFor: "203.0.113.1")
        #expect(refusedA3?.status == 503)
        #expect(refusedA3?.header("Retry-After") != nil)
        // Another client still gets one, up to the total of 3.
        let (b1, refusedB1) = try await Self.openStream(server, forwardedFor: "203.0.113.2")
        #expect(refusedB1 == nil)
        let (_, refusedC1) = try await Self.openStream(server, forwardedFor: "203.0.113.3")
        #expect(refusedC1?.status == 503)
        // A closed stream gives its place back.
        a1.close()
        var reopened = false
        for _ in 0..<50 where !reopened {
            let (_, refusal) = try await Self.openStream(server, forwardedFor: "203.0.113.3")
            reopened = refusal == nil
            if !reopened { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(reopened)
        a2.close()
        b1.close()
        await server.stop()
    }

    static func head(_ length: Int, client: String) -> String {
        "POST /upload HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: \(client)\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test func aClientOverItsShareOfTheBodyBudgetLetsOtherClientsPass() async throws {
        var limits = HTTPLimits()
        limits.formBody = 500
        limits.uploadBody = 500
        let clock = ManualServerClock()
        let server = try TestServer(
            limits: limits, timeouts: .withoutBodyMinimumRate, eventLoops: 1, bodyMemoryBudget: 1000, clock: clock,
            trustedProxies: Self.proxy
        ) { $0.bodyBudgetPerClient = 500 }
        let hog = try server.connect()
        let hogAgain = try server.connect()
        let other = try server.connect()
        hog.send(Self.head(500, client: "203.0.113.1"))  // holds its whole share, sends nothing
        await clock.settle()
        hogAgain.send(Self.head(500, client: "203.0.113.1") + String(repeating: "h", count: 500))
        await clock.settle()
        other.send(Self.head(500, client: "203.0.113.2") + String(repeating: "o", count: 500))
        // Without shares the hog's second body would have taken the rest of the budget first.
        #expect(try await other.readResponse().text.hasSuffix("body=" + String(repeating: "o", count: 500)))
        #expect(await hogAgain.hasNothingToRead())
        hog.send(String(repeating: "x", count: 500))
        #expect(try await hog.readResponse().status == 200)
        #expect(try await hogAgain.readResponse().text.hasSuffix("body=" + String(repeating: "h", count: 500)))
        await server.stop()
    }

    @Test func aBodyTricklingBelowTheMinimumRateGets408() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(clock: clock)  // 1 KiB/s after 10 s
        let trickler = try server.connect()
        trickler.send("POST /login HTTP/1.1\r\nHost: h\r\nContent-Length: 900000\r\n\r\nx")
        await clock.settle()
        for _ in 0..<10 {
            await clock.advance(by: .seconds(1))
            trickler.send("x")
            await clock.settle()
        }
        await clock.advance(by: .milliseconds(100))
        let response = try await trickler.readResponse()
        #expect(response.status == 408)
        #expect(response.text.contains("minimum rate"))
        #expect(await trickler.isClosedByServer())
        await server.stop()
    }

    /// Refuses a POST without a `Cookie` field from its head; echoes the body of the others.
    struct CookieGate: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            .text("body=\(String(decoding: request.body, as: UTF8.self))")
        }

        func replyBeforeBody(in head: HTTPRequest) -> Basics.Step<HTTPResponse>? {
            head.headers["Cookie"] == nil ? .now(.text("no cookie, no body\n", status: .forbidden)) : nil
        }
    }

    @Test func aRequestRefusedFromItsHeadIsAnsweredWithoutItsBodyBeingRead() async throws {
        let server = try TestServer(responder: CookieGate())
        let refused = try server.connect()
        // 900 KB announced, none sent (nor 100-continue asked): the answer comes anyway.
        refused.send("POST /login HTTP/1.1\r\nHost: h\r\nContent-Length: 900000\r\n\r\n")
        let response = try await refused.readResponse()
        #expect(response.status == 403)
        #expect(response.header("Connection") == "close")
        #expect(await refused.isClosedByServer())
        let accepted = try server.connect()
        let echoed = try await accepted.exchange(
            "POST /login HTTP/1.1\r\nHost: h\r\nCookie: a=b\r\nContent-Length: 5\r\n\r\nhello")
        #expect(echoed.text == "body=hello")
        await server.stop()
    }
}

/// Per-client places count an IPv6 client by its /64, which one subscriber holds whole and may
/// take new addresses from at will (RFC 8981); trusted proxies count only towards the total.
@Suite struct ClientSlotsTests {
    @Test func anIPv6ClientIsCountedByItsSlash64() throws {
        let slots = ClientSlots(total: 10, perClient: 2)
        #expect(slots.take(for: IPAddress("2001:db8:1:2::1")) == nil)
        #expect(slots.take(for: IPAddress("2001:db8:1:2:ffff::9")) == nil)
        #expect(slots.take(for: IPAddress("2001:db8:1:2::77")) == .client)
        #expect(slots.take(for: IPAddress("2001:db8:1:3::1")) == nil, "another /64 is another client")
        slots.release(for: IPAddress("2001:db8:1:2::1"))
        #expect(slots.take(for: IPAddress("2001:db8:1:2::5")) == nil)
        #expect(slots.held(by: IPAddress("2001:db8:1:2::abc")) == (total: 3, client: 2))
    }

    @Test func aTrustedProxyCountsOnlyTowardsTheTotal() throws {
        let proxy = try #require(IPAddress("10.0.0.1"))
        let slots = ClientSlots(total: 3, perClient: 1, exempt: [proxy])
        #expect(slots.take(for: proxy) == nil)
        #expect(slots.take(for: proxy) == nil)
        #expect(slots.take(for: IPAddress("192.0.2.1")) == nil)
        #expect(slots.take(for: IPAddress("192.0.2.2")) == .total)
    }
}
