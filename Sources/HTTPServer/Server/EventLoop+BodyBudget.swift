/// The loop's body budget: request bodies are buffered whole before the responder sees them,
/// so the bytes they may hold at once are bounded. Each body reserves its declared size
/// (`Content-Length`, or the body limit when chunked) before any of it is parsed, and gives it
/// back when its response is ready or its connection ends. Reserving the whole size first means
/// a body that started can always finish: no two half-read bodies wait on each other.
///
/// A body that does not fit waits, in arrival order, without being read (TCP's flow control
/// holds the client); past the body-read timeout it is answered 503 with `Retry-After`.
/// The budget is per loop, so it needs no lock: the server's
/// ``HTTPServerConfiguration/bodyMemoryBudget`` divided by the loop count.
extension EventLoop {
    /// Reserves `bytes` for the connection's body now if they are free and nobody waits before
    /// it, else queues it.
    func reserveBody(_ bytes: Int, for connection: Connection) -> HTTPConnectionMachine.Action {
        let amount = min(bytes, bodyBudget)
        if budgetWaitersStart == budgetWaiters.count, amount <= bodyBudgetLeft {
            bodyBudgetLeft -= amount
            connection.reservedBody = amount
            return connection.machine.bodyGranted(now: now)
        }
        connection.awaitedBody = amount
        budgetWaiters.append(connection.id)
        return .none
    }

    /// Gives back what the connection's body held (or stops it waiting).
    func releaseBody(of connection: Connection) {
        connection.awaitedBody = 0  // its place in the queue is skipped
        guard connection.reservedBody > 0 else { return }
        bodyBudgetLeft += connection.reservedBody
        connection.reservedBody = 0
    }

    /// Grants waiting bodies in arrival order while the budget lasts (run once per loop
    /// iteration, so a release never re-enters another connection's actions).
    func grantBodyBudget() {
        while budgetWaitersStart < budgetWaiters.count {
            let id = budgetWaiters[budgetWaitersStart]
            guard let waiting = connection(id), waiting.awaitedBody > 0 else {
                budgetWaitersStart += 1
                continue
            }
            guard waiting.awaitedBody <= bodyBudgetLeft else { break }
            budgetWaitersStart += 1
            bodyBudgetLeft -= waiting.awaitedBody
            waiting.reservedBody = waiting.awaitedBody
            waiting.awaitedBody = 0
            perform(waiting.machine.bodyGranted(now: now), on: waiting)
            if waiting.socket.isOpen { readAndProcess(waiting) }
        }
        if budgetWaitersStart == budgetWaiters.count {
            budgetWaiters.removeAll(keepingCapacity: true)
            budgetWaitersStart = 0
        } else if budgetWaitersStart > 1024 {
            budgetWaiters.removeFirst(budgetWaitersStart)
            budgetWaitersStart = 0
        }
    }
}
