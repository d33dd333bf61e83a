import Synchronization

/// A response body produced over time, e.g. `text/event-stream` (WHATWG HTML §9.2).
///
/// The server calls `produce` in a task once the response head has been sent; it writes pieces
/// through the ``HTTPBodyWriter`` it gets, and the body ends when `produce` returns. When the
/// client goes away, or the server shuts down, the task is cancelled and
/// ``HTTPBodyWriter/write(_:)`` returns false from then on, so a producer looping over an
/// `AsyncStream` of events ends promptly. HEAD requests get the head only; `produce` is not run.
package struct HTTPBodyStream: Sendable {
    let produce: @Sendable (HTTPBodyWriter) async -> Void

    package init(_ produce: @escaping @Sendable (HTTPBodyWriter) async -> Void) {
        self.produce = produce
    }
}

/// Where a ``HTTPBodyStream`` writes its pieces; each write becomes one chunk on the wire.
///
/// Output is bounded twice by ``HTTPServerConfiguration/streamBufferLimit``: bytes written but
/// not yet taken by the connection's loop, and bytes the loop holds unsent for the connection (a
/// client that does not read). Past either bound the connection is closed, not buffered further,
/// and writes fail; a producer never waits for a slow client.
package struct HTTPBodyWriter: Sendable {
    let connection: UInt64
    let inbox: LoopInbox
    let channel: StreamChannel

    /// Queues `bytes` to be sent; false once the connection is gone or its client has fallen
    /// too far behind (stop producing).
    @discardableResult
    package func write(_ bytes: [UInt8]) async -> Bool {
        guard !Task.isCancelled, channel.reserve(bytes.count) else { return false }
        if !bytes.isEmpty { inbox.post(.streamChunk(connection: connection, bytes)) }
        return true
    }

    /// Queues the UTF-8 bytes of `text`.
    @discardableResult
    package func write(_ text: String) async -> Bool {
        await write(Array(text.utf8))
    }
}

/// What the loop and a streamed response's producer share: whether the connection is still
/// there, and how many written bytes wait in the inbox for the loop.
///
/// The producer reserves bytes before posting them, the loop releases them as it takes each
/// chunk; a reservation past ``limit`` closes the channel and marks it overflowed, so the loop
/// drops the connection when the producer ends. Without that bound a producer that does not
/// suspend (one running on the loop's own thread, say) could queue without end before the loop
/// ever ran. Sendable: all mutable state is behind one `Mutex`.
final class StreamChannel: Sendable {
    private struct State {
        var isOpen = true
        var queued = 0
        var hasOverflowed = false
    }

    /// Bytes that may wait in the inbox at once.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// True once a write found more than ``limit`` bytes queued: the client is dropped.
    var hasOverflowed: Bool { state.withLock { $0.hasOverflowed } }

    /// Counts `count` more bytes as queued; false (and closed from then on) when the channel is
    /// closed or the bytes would pass the limit.
    func reserve(_ count: Int) -> Bool {
        state.withLock { state in
            guard state.isOpen else { return false }
            guard state.queued + count <= limit else {
                state.isOpen = false
                state.hasOverflowed = true
                return false
            }
            state.queued += count
            return true
        }
    }

    /// The loop has taken `count` queued bytes.
    func release(_ count: Int) {
        state.withLock { $0.queued -= count }
    }

    func close() { state.withLock { $0.isOpen = false } }
}
