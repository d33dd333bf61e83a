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
/// Output is bounded: when more than ``HTTPBodyWriter/bufferLimit`` bytes wait unsent for this
/// connection (a client that does not read), the server closes the connection and writes fail.
package struct HTTPBodyWriter: Sendable {
    /// Unsent bytes a streaming connection may accumulate before it is closed.
    package static let bufferLimit = 1024 * 1024

    let connection: UInt64
    let inbox: LoopInbox
    let channel: StreamChannel

    /// Queues `bytes` to be sent; false once the connection is gone (stop producing).
    @discardableResult
    package func write(_ bytes: [UInt8]) async -> Bool {
        guard channel.isOpen, !Task.isCancelled else { return false }
        if !bytes.isEmpty { inbox.post(.streamChunk(connection: connection, bytes)) }
        return true
    }

    /// Queues the UTF-8 bytes of `text`.
    @discardableResult
    package func write(_ text: String) async -> Bool {
        await write(Array(text.utf8))
    }
}

/// Whether a streaming response's connection is still there; shared by the loop (which closes
/// it) and the producer's writer. Sendable: one `Mutex`-protected flag.
final class StreamChannel: Sendable {
    private let open = Mutex(true)

    var isOpen: Bool { open.withLock { $0 } }

    func close() { open.withLock { $0 = false } }
}
