import Logging

extension EventLoop {
    /// Most connections accepted per readiness event, so one loop cannot take a whole burst.
    static let acceptBatch = 32
    /// How long accepting pauses after `EMFILE`/`ENFILE`/`ENOBUFS`/`ENOMEM`.
    static let acceptPause: UInt64 = 100_000_000

    func startListening() {
        guard !isListening, !isShuttingDown else { return }
        do {
            try Platform.epollControl(
                poller.rawValue, .add, fd: listener.rawValue,
                events: Platform.eventReadable | Platform.eventExclusive, token: Self.listenerToken)
            isListening = true
        } catch {
            logger.error("cannot watch the listening socket: \(error)")
        }
    }

    func stopListening() {
        guard isListening else { return }
        isListening = false
        try? Platform.epollControl(poller.rawValue, .delete, fd: listener.rawValue, events: 0, token: 0)
    }

    /// Accepts pending connections and hands each to the least-loaded loop; on descriptor or memory exhaustion stops watching the
    /// listener for ``acceptPause`` instead of spinning on a socket that stays readable.
    func acceptConnections() {
        for _ in 0..<Self.acceptBatch {
            let fd: Int32
            let peer: IPAddress?
            do {
                guard let accepted = try Platform.accept(listener.rawValue) else { return }
                fd = accepted.fd
                peer = accepted.peer.map(IPAddress.init(bytes:))
            } catch {
                switch error.errno {
                case Platform.errnoConnectionAborted?:
                    continue
                case Platform.errnoTooManyFiles?, Platform.errnoSystemTooManyFiles?, Platform.errnoNoBuffers?,
                    Platform.errnoNoMemory?:
                    logger.warning("accept paused for 100 ms: \(error)")
                default:
                    logger.error("accept paused for 100 ms: \(error)")
                }
                stopListening()
                acceptResumesAt = now &+ Self.acceptPause
                return
            }
            if let refusal = connectionSlots.take(for: peer) {
                refuse(fd, peer: peer, because: refusal)
                continue
            }
            let owner = balancer.assign(preferring: index)
            if owner == index {
                register(FileDescriptor(fd), peer: peer)
            } else {
                inboxes[owner].post(.adopt(fd, peer: peer))
            }
        }
    }

    /// The canned answer to a connection over a limit.
    static let refusal = Array(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\nContent-Type: text/plain\r\nContent-Length: 35\r\nConnection: close\r\n\r\n503 Service Unavailable: too busy\r\n"
            .utf8)

    /// Answers a connection over a limit at once, 503 with `Retry-After` (best effort, never
    /// waiting on the client), and closes it: the listener never backs up and the loop never
    /// spins on it. At most one warning a second says so.
    func refuse(_ fd: Int32, peer: IPAddress?, because refusal: ClientSlots.Refusal) {
        Platform.discardPendingInput(fd)
        _ = Self.refusal.withUnsafeBytes { try? Platform.send(fd, $0) }
        Platform.close(fd)
        if now &- lastRefusalLog >= 1_000_000_000 || lastRefusalLog == 0 {
            lastRefusalLog = now
            let limit =
                refusal == .total
                ? "the server's limit of \(connectionSlots.total) open connections"
                : "the limit of \(connectionSlots.perClient) open connections per client"
            logger.warning("refusing accepted connections from \(peer?.description ?? "-") and others: \(limit)")
        }
    }

    /// Takes over an accepted connection (whose place in ``connectionSlots`` it holds).
    func register(_ socket: FileDescriptor, peer: IPAddress?) {
        guard !isShuttingDown else {
            socket.close()
            connectionSlots.release(for: peer)
            balancer.release(index)
            return
        }
        let fd = Int(socket.rawValue)
        serial &+= 1
        let connection = Connection(
            socket: socket, peer: peer, id: serial << 32 | UInt64(fd), rules: rules, now: clock.now())
        do {
            try Platform.epollControl(
                poller.rawValue, .add, fd: socket.rawValue,
                events: Platform.eventReadable | Platform.eventWritable | Platform.eventHangUp
                    | Platform.eventEdgeTriggered,
                token: UInt64(fd))
        } catch {
            logger.error("cannot watch a new connection: \(error)")
            socket.close()
            connectionSlots.release(for: peer)
            balancer.release(index)
            return
        }
        if fd >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: max(fd + 1 - connections.count, connections.count)))
        }
        connections[fd] = connection
        connectionCount += 1
        // The request often arrives with the connection: read it now rather than a loop round
        // later (the edge the registration reports still comes, and finds the socket drained).
        readAndProcess(connection)
    }

    /// Closes the socket (which also removes it from the poller), cancels the tasks working for
    /// the connection, returns its body budget and forgets it; a response still being computed
    /// for it is dropped when it arrives. `reason` goes to the
    /// debug log.
    func close(_ connection: Connection, reason: @autoclosure () -> String) {
        guard connection.socket.isOpen else { return }
        logger.debug("closing connection \(connection.socket.rawValue) id \(connection.id >> 32) on loop \(index): \(reason())")
        let fd = Int(connection.socket.rawValue)
        endTasks(of: connection)
        releaseBody(of: connection)
        connection.socket.close()
        if fd < connections.count, connections[fd] === connection {
            connections[fd] = nil
            connectionCount -= 1
            connectionSlots.release(for: connection.peer)
            balancer.release(index)
        }
    }
}
