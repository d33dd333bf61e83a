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

    /// Sent a few bytes at a time, across the boundary between the parts, the socket sees every
    /// byte once, in order; then the queue is empty and gives its memory back.
    @Test(arguments: [1, 7, 1000, 4096])
    func partialSendsCrossThePartsInOrder(window: Int) {
        var queue = OutputQueue()
        var expected: [UInt8] = []
        for round in 0..<3 {
            let head = Array("head \(round)\r\n".utf8)
            queue.append(contentsOf: head)
            queue.append(body: long)
            expected += head + long
        }
        var wire: [UInt8] = []
        var sends = 0
        while !queue.isEmpty, sends < 10_000 {
            let taken = queue.withPending { first, second in Array((Array(first) + Array(second)).prefix(window)) }
            wire += taken
            queue.sent(taken.count)
            sends += 1
        }
        #expect(wire == expected)
        #expect(queue.count == 0)
        queue.removeAll()
        #expect(pending(queue).bytes.isEmpty)
    }
}
