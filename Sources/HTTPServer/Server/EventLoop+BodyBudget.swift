import Glibc
import Logging

/// The loop's body budget: request bodies are buffered whole before the responder sees them,
/// so the bytes they may hold at once are bounded. Each body reserves its declared size
/// (`Content-Length`, or the body limit when chunked) before any of it is parsed, and gives it
/// back when its response is ready or its connection ends. Reserving the whole size first means
/// a body that started can always finish: no two half-read bodies wait on each other.
///
/// No client can take the budget from the others: one client address holds at most its share
/// (``HTTPServerConfiguration/bodyBudgetPerClient``) of it, and a body must keep arriving at a
/// minimum rate and finish within an overall deadline (``HTTPTimeouts``), else 408. Before any
/// of this, the responder prepares the request from its head (``HTTPResponder/prepare(_:)``,
/// kept with the connection) and may answer from the head alone
/// (``HTTPResponder/replyBeforeBody(in:)``): such a body is never read nor reserved.
///
/// A body that does not fit waits without being read (TCP's flow control holds the client), in
/// arrival order, except that a body whose client is over its share lets the others pass;
/// past the body-read timeout it is answered 503 with `Retry-After`. The budget is per loop,
/// so it needs no lock: the server's ``HTTPServerConfiguration/bodyMemoryBudget`` divided by the
/// loop count.
extension EventLoop {
    /// A request's header section announced a body of `bytes` (at most): answer it from the head
    /// if the responder can, else reserve memory for its body.
    func bodyFollows(_ bytes: Int, on connection: Connection) -> HTTPConnectionMachine.Action {
        guard let head = connection.machine.bodyHead else { return reserveBody(bytes, for: connection) }
        resolveClient(head.headers, on: connection)
        var request = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers)
        request.client = connection.client
        switch responder.decide(head: request) {
        case .answer(let response):
            return connection.machine.answerBeforeBody(response, dateField: currentDateField(), now: now)
        case .readBody(let prepared):
            connection.prepared = prepared
        }
        if let spool = configuration.bodySpool, bytes > spool.threshold,
            head.headers["Content-Type"]?.lowercased().hasPrefix("multipart/form-data") == true
        {
            return spoolBody(bytes, for: connection, in: spool.directory)
        }
        return reserveBody(bytes, for: connection)
    }

    /// Reserves `bytes` for the connection's body now if they are free, its client is within
    /// its share and nobody waits before it; else queues it.
    func reserveBody(_ bytes: Int, for connection: Connection) -> HTTPConnectionMachine.Action {
        let amount = min(bytes, bodyBudget)
        if budgetWaiters.isEmpty, fits(amount, for: connection.client) {
            hold(amount, for: connection)
            return connection.machine.bodyGranted(now: now)
        }
        connection.awaitedBody = amount
        budgetWaiters.append(connection.id)
        needsGranting = true  // it may pass waiters that are over their share
        return .none
    }

    /// Reserves `bytes` of the spool budget for the connection's body and has it written to a
    /// new file as it arrives; 503 at once when the budget or the client's share of it is
    /// spent, or no file can be made.
    func spoolBody(_ bytes: Int, for connection: Connection, in directory: String) -> HTTPConnectionMachine.Action {
        let client = connection.client?.subscriberPrefix
        guard bytes <= spoolLeft, spoolHeld[client, default: 0] + bytes <= spoolPerClient else {
            return .reject(HTTPRejection(.serviceUnavailable, "no room for the body now"))
        }
        guard let file = SpooledBody(directory: directory) else {
            logger.warning("cannot make a file for a request body in \(directory): errno \(errno)")
            return .reject(HTTPRejection(.serviceUnavailable, "no room for the body now"))
        }
        spoolLeft -= bytes
        spoolHeld[client, default: 0] += bytes
        connection.reservedSpool = bytes
        connection.budgetClient = client
        return connection.machine.spoolBody(into: file, now: now)
    }

    /// Gives back what the connection's body held (or stops it waiting).
    func releaseBody(of connection: Connection) {
        if connection.reservedSpool > 0 {
            spoolLeft += connection.reservedSpool
            let held = spoolHeld[connection.budgetClient, default: 0] - connection.reservedSpool
            spoolHeld[connection.budgetClient] = held > 0 ? held : nil
            connection.reservedSpool = 0
        }
        connection.awaitedBody = 0  // its place in the queue is skipped
        guard connection.reservedBody > 0 else { return }
        bodyBudgetLeft += connection.reservedBody
        let held = budgetHeld[connection.budgetClient, default: 0] - connection.reservedBody
        budgetHeld[connection.budgetClient] = held > 0 ? held : nil
        connection.reservedBody = 0
        needsGranting = true
    }

    /// Grants waiting bodies in arrival order while the budget lasts, passing over those whose
    /// client holds its share (run once per loop iteration after a release or a new waiter, so
    /// a grant never re-enters another connection's actions).
    func grantBodyBudget() {
        needsGranting = false
        var kept: [UInt64] = []
        var isBlocked = false
        for id in budgetWaiters {
            guard let waiting = connection(id), waiting.awaitedBody > 0 else { continue }  // gone
            guard budgetHeld[waiting.client?.subscriberPrefix, default: 0] + waiting.awaitedBody <= bodyBudgetPerClient else {
                kept.append(id)  // over its client's share: the others go first
                continue
            }
            guard !isBlocked, waiting.awaitedBody <= bodyBudgetLeft else {
                isBlocked = true  // those behind a body that does not fit wait behind it
                kept.append(id)
                continue
            }
            hold(waiting.awaitedBody, for: waiting)
            waiting.awaitedBody = 0
            perform(waiting.machine.bodyGranted(now: now), on: waiting)
            if waiting.socket.isOpen { readAndProcess(waiting) }
        }
        budgetWaiters = kept
    }

    /// Whether `amount` more fits the loop's budget and `client`'s share of it.
    private func fits(_ amount: Int, for client: IPAddress?) -> Bool {
        amount <= bodyBudgetLeft && budgetHeld[client?.subscriberPrefix, default: 0] + amount <= bodyBudgetPerClient
    }

    private func hold(_ amount: Int, for connection: Connection) {
        bodyBudgetLeft -= amount
        connection.reservedBody = amount
        connection.budgetClient = connection.client?.subscriberPrefix
        budgetHeld[connection.budgetClient, default: 0] += amount
    }
}
