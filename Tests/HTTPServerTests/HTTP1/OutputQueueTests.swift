import Foundation
import Testing

@testable import HTTPServer

/// The bytes queued for a socket: a buffer, then a long body from its own array, sent in order
/// however the socket takes them.
@Suite struct OutputQueueTests {
    let long = (0..<(OutputQueue.separateBodyBytes + 300)).map { UInt8(truncatingIfNeeded: $0 % 251) }

    /// Everything pending, as one array, and how many parts it came in.
    func pending(_ queue: OutputQueue) -> (bytes: [UInt8], secondPart: Int) {
        queue.withPending { first, second in (Array(first) + Array(second), second.count) }
    }

    @Test func aLongBodyIsTheSecondPartAndAShortOneIsCopied() {
        var queue = OutputQueue()
        queue.append(contentsOf: Array("head".utf8))
        queue.append(body: long)
        #expect(pending(queue).bytes == Array("head".utf8) + long)
        #expect(pending(queue).secondPart == long.count, "not copied behind the head")
        #expect(queue.count == 4 + long.count)

        var short = OutputQueue()
        short.append(contentsOf: Array("head".utf8))
        short.append(body: Array("tiny".utf8))
        #expect(pending(short) == (Array("headtiny".utf8), 0))
    }

    @Test func bytesQueuedBehindAWaitingBodyGoAfterIt() {
        var queue = OutputQueue()
        queue.append(contentsOf: Array("h1".utf8))
        queue.append(body: long)
        queue.sent(5)  // the socket took the head and 3 bytes of the body
        queue.append(contentsOf: Array("h2".utf8))
        queue.append(body: long)
        queue.write { $0.append(contentsOf: "h3".utf8) }
        let expected = Array(long[3...]) + Array("h2".utf8) + long + Array("h3".utf8)
        #expect(pending(queue).bytes == expected)
        #expect(queue.count == expected.count)
    }

    /// Sent a few bytes at a time, between appends and across the boundary between the parts,
    /// the socket sees every byte once, in order.
    @Test(arguments: [1, 7, 1000, 4096])
    func partialSendsCrossThePartsInOrder(window: Int) {
        var queue = OutputQueue()
        var expected: [UInt8] = []
        var wire: [UInt8] = []
        var sends = 0
        func send(atMost times: Int) {
            for _ in 0..<times where !queue.isEmpty {
                let taken = queue.withPending { first, second in Array((Array(first) + Array(second)).prefix(window)) }
                wire += taken
                queue.sent(taken.count)
                sends += 1
            }
        }
        for round in 0..<4 {
            let head = Array("head \(round)\r\n".utf8)
            queue.append(contentsOf: head)
            queue.append(body: round == 2 ? Array("short".utf8) : long)
            expected += head + (round == 2 ? Array("short".utf8) : long)
            send(atMost: 2)
            #expect(wire + pending(queue).bytes == expected, "round \(round)")
        }
        send(atMost: 20_000)
        #expect(wire == expected)
        #expect(pending(queue).bytes.isEmpty)
    }
}

/// The machine with long bodies queued behind unsent ones: pipelined responses, flushed a few
/// bytes at a time, reach the socket whole and in order.
@Suite struct LongBodyMachineTests {
    static let t0: UInt64 = 1_000_000_000

    @Test func pipelinedLongBodiesFlushedAFewBytesAtATimeKeepTheirOrder() {
        var driver = MachineDriver(rules: .testing(outputHighWater: 100_000), now: Self.t0)
        let bodies = [String(repeating: "a", count: 3000), String(repeating: "b", count: 2500), String(repeating: "c", count: 4000)]
        #expect(driver.received(Wire.get("/a") + Wire.head("/b") + Wire.get("/c"), at: Self.t0) == .dispatch("GET /a"))
        #expect(driver.respond(.bytes(bodies[0]), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0, accepting: 7) == .dispatch("HEAD /b"))
        #expect(driver.respond(.bytes(bodies[1]), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0, accepting: 3100) == .dispatch("GET /c"))
        #expect(driver.respond(.bytes(bodies[2]), at: Self.t0) == .send(200))
        for _ in 0..<2_000 where driver.pendingOutputCount > 0 { _ = driver.flush(at: Self.t0, accepting: 13) }
        #expect(driver.pendingOutputCount == 0)
        let responses = driver.written.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst()
        #expect(responses.count == 3)
        for (index, response) in responses.enumerated() {
            let body = response.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(body == (index == 1 ? "" : bodies[index]), "response \(index)")
            #expect(response.contains("Content-Length: \(bodies[index].count)\r\n"), "response \(index)")
        }
    }
}
