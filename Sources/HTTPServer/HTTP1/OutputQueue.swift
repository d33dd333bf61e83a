/// The bytes a connection has queued for its socket, in order: a buffer the encoder writes heads
/// (and short bodies, chunks, interim responses) into, then at most one response body sent
/// straight from its own array.
///
/// Why the second part: a page's body (6 KB for a list of quotes) was copied into the buffer
/// behind its head on every response, and the buffer, allocated anew for each response, was
/// that much larger. Sent with one `sendmsg` of two parts, the body is never copied in user
/// space, and the buffer holds a head of a few hundred bytes.
///
/// Order is kept: bytes appended while a body waits go after it, so the body is first moved
/// into the buffer (a copy only when responses are queued behind an unsent one: pipelining
/// into a full socket).
struct OutputQueue {
    /// Bodies at least this long are sent from their own array; shorter ones are copied, which
    /// costs less than a second part in the send.
    static let separateBodyBytes = 2048

    private var buffer: [UInt8] = []
    private var start = 0
    /// Sent after `buffer[start...]`.
    private var body: [UInt8] = []
    private var bodyStart = 0

    var isEmpty: Bool { start == buffer.count && bodyStart == body.count }
    var count: Int { buffer.count - start + body.count - bodyStart }

    /// Appends `bytes` after everything queued.
    mutating func append(contentsOf bytes: some Collection<UInt8>) {
        spillBody()
        buffer.append(contentsOf: bytes)
    }

    /// Lets `write` append to the buffer (an encoder), after everything queued.
    mutating func write<Result>(_ write: (inout [UInt8]) -> Result) -> Result {
        spillBody()
        return write(&buffer)
    }

    /// Queues a response body after everything queued, without copying it when it is long
    /// and nothing else waits behind the buffer.
    mutating func append(body bytes: [UInt8]) {
        if bytes.count >= Self.separateBodyBytes, bodyStart == body.count {
            body = bytes
            bodyStart = 0
        } else {
            append(contentsOf: bytes)
        }
    }

    /// Calls `send` with the bytes to send next, in two parts (the second may be empty).
    func withPending<Result>(
        _ send: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let (start, bodyStart) = (self.start, self.bodyStart)
        return try buffer.withUnsafeBytes { head in
            try body.withUnsafeBytes { tail in
                try send(UnsafeRawBufferPointer(rebasing: head[start...]), UnsafeRawBufferPointer(rebasing: tail[bodyStart...]))
            }
        }
    }

    /// The socket took the first `count` pending bytes.
    mutating func sent(_ count: Int) {
        let fromBuffer = min(count, buffer.count - start)
        start += fromBuffer
        bodyStart += count - fromBuffer
    }

    /// Forgets everything (sent or not) and gives the memory back.
    mutating func removeAll() {
        buffer = []
        start = 0
        body = []
        bodyStart = 0
    }

    /// Moves the unsent part of a waiting body into the buffer, so what is appended next
    /// follows it.
    private mutating func spillBody() {
        guard !body.isEmpty else { return }
        if bodyStart < body.count { buffer.append(contentsOf: body[bodyStart...]) }
        body = []
        bodyStart = 0
    }
}
