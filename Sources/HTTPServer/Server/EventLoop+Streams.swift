import Logging

/// Streamed response bodies (server-sent events): the producer runs in a task like the
/// responder; its chunks and its end come back through the inbox (see docs/http.md).
extension EventLoop {
    /// Runs a streamed body's producer in a task (where the responder would run); its pieces
    /// and its end come back through the inbox.
    func startStream(_ stream: HTTPBodyStream, on connection: Connection, keepAlive: Bool) {
        guard let request = connection.inFlight else { return }
        connection.inFlight?.keepAlive = keepAlive
        let channel = StreamChannel(limit: configuration.streamBufferLimit)
        let writer = HTTPBodyWriter(connection: connection.id, inbox: inbox, channel: channel)
        let inbox = self.inbox
        let id = connection.id
        let produce = stream.produce
        let task: Task<Void, Never>
        switch configuration.responderExecution {
        case .cooperativePool:
            task = Task {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
            }
        case .eventLoop:
            task = Task(executorPreference: inbox) {
                await produce(writer)
                inbox.post(.streamEnd(connection: id))
            }
        }
        connection.stream = (channel, task, request.version == .http1_1, 0)
    }

    /// One piece of a streamed body, framed as a chunk (HTTP/1.1) or raw (HTTP/1.0); a client
    /// that leaves more than the stream buffer limit unsent is dropped.
    func sendStreamChunk(_ bytes: [UInt8], to id: UInt64) {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id,
            let stream = connection.stream
        else { return }
        stream.channel.release(bytes.count)
        if stream.isChunked {
            HTTPResponseEncoder.appendChunk(bytes, to: &connection.output)
        } else {
            connection.output.append(contentsOf: bytes)
        }
        connection.stream?.bytes += bytes.count
        flush(connection)
        if connection.socket.isOpen, connection.pendingOutput > configuration.streamBufferLimit { drop(connection) }
    }

    /// The producer of a streamed body has returned: the body ends, or, when the producer gave
    /// up because its writes outran the client (see ``StreamChannel``), the connection is dropped.
    func endStream(of id: UInt64) {
        let fd = Int(id & 0xFFFF_FFFF)
        guard fd < connections.count, let connection = connections[fd], connection.id == id,
            let stream = connection.stream
        else { return }
        if stream.channel.hasOverflowed {
            drop(connection)
            return
        }
        finishStream(connection, keepAlive: connection.inFlight?.keepAlive ?? false)
        if connection.socket.isOpen, connection.inFlight == nil, !connection.closeAfterWrite {
            process(connection)
            readAndProcess(connection)
        }
    }

    /// Closes a streaming connection whose client fell too far behind, discarding what the kernel
    /// still holds for it too (a reset, as for a write timeout).
    func drop(_ connection: Connection) {
        Platform.abortOnClose(connection.socket.rawValue)
        close(connection, reason: "streaming client does not read")
    }

    /// Ends a streamed body (last chunk), logs the request, and closes if it cannot continue.
    func finishStream(_ connection: Connection, keepAlive: Bool) {
        guard let stream = connection.stream, let request = connection.inFlight else { return }
        stream.channel.close()
        stream.task.cancel()
        connection.stream = nil
        connection.inFlight = nil
        if stream.isChunked { connection.output.append(contentsOf: HTTPResponseEncoder.lastChunk) }
        if !keepAlive || !stream.isChunked || isShuttingDown { connection.closeAfterWrite = true }
        connection.lastActivity = now
        connection.requestStarted = now
        logAccess(
            method: request.method.rawValue, path: request.path, status: nil, bytes: stream.bytes,
            started: request.started)
        flush(connection)
    }
}
