import Logging

/// Streamed response bodies (server-sent events): the producer runs in a task the connection
/// owns, like the responder; its chunks and its end come back through the inbox (see
/// docs/http.md). Framing and the slow-reader rule are the connection machine's.
extension EventLoop {
    /// Runs a streamed body's producer in a task (where the responder would run).
    func startStream(_ stream: HTTPBodyStream, on connection: Connection) {
        let channel = StreamChannel(limit: configuration.streamBufferLimit)
        let writer = HTTPBodyWriter(connection: connection.id, inbox: inbox, channel: channel)
        let inbox = self.inbox
        let tasks = self.tasks
        let id = connection.id
        let produce = stream.produce
        tasks.begin()
        let task: Task<Void, Never>
        switch configuration.responderExecution {
        case .cooperativePool:
            task = Task {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
                tasks.end()
            }
        case .eventLoop:
            task = Task(executorPreference: inbox) {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
                tasks.end()
            }
        }
        connection.stream = (channel, task)
    }

    /// One piece of a streamed body from its producer.
    func sendStreamChunk(_ bytes: [UInt8], to id: UInt64) {
        guard let connection = connection(id), let stream = connection.stream else { return }
        stream.channel.release(bytes.count)
        perform(connection.machine.streamed(bytes, now: now), on: connection)
    }

    /// The producer of a streamed body has returned: the body ends, or, when the producer gave
    /// up because its writes outran the client (see ``StreamChannel``), the connection is dropped.
    func endStream(of id: UInt64) {
        guard let connection = connection(id), let stream = connection.stream else { return }
        perform(connection.machine.streamEnded(overflowed: stream.channel.hasOverflowed, now: now), on: connection)
        if connection.socket.isOpen { readAndProcess(connection) }
    }
}
