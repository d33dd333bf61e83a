private import CPostgres
package import Store

/// A NOTIFY received on a channel this connection LISTENs to
/// (https://www.postgresql.org/docs/15/sql-notify.html).
package struct PostgresNotification: Sendable, Equatable {
    package var channel: String
    package var payload: String
    /// The server process of the session that sent it.
    package var senderPID: Int32

    package init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}

/// LISTEN/NOTIFY (https://www.postgresql.org/docs/15/libpq-notify.html). Notifications arrive on
/// the connection's socket and are buffered by libpq, also while a query runs; ``notifications(waitingUpTo:)``
/// hands them over. A listener should have a connection of its own, since waiting holds it.
///
/// After a lost connection the next call reconnects and LISTENs again, but notifications sent
/// while it was down are gone: a listener that catches ``StoreError/postgresConnectionLost(operation:message:)``
/// (or sees ``reconnections`` grow) must reload what it follows.
extension PostgresConnection {
    /// Starts receiving notifications sent to `channel`, also after a reconnection.
    package func listen(to channel: String) throws(StoreError) {
        try query("LISTEN \(try quotedIdentifier(channel, on: try connected(for: "LISTEN")))")
        if !channels.contains(channel) { channels.append(channel) }
    }

    /// Stops receiving notifications sent to `channel`.
    package func unlisten(from channel: String) throws(StoreError) {
        channels.removeAll { $0 == channel }
        try query("UNLISTEN \(try quotedIdentifier(channel, on: try connected(for: "UNLISTEN")))")
    }

    /// Sends `payload` (under 8000 bytes) to every session listening to `channel`, when this
    /// connection's transaction commits (at once outside one).
    package func notify(_ channel: String, payload: String = "") throws(StoreError) {
        try query("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// The notifications received so far, waiting up to `timeout` (blocking the thread) for the
    /// first one when none is there yet; empty when none came.
    ///
    /// - Throws: ``StoreError/postgresConnectionLost(operation:message:)`` when the connection
    ///   dropped; the next call reconnects and LISTENs again.
    package func notifications(waitingUpTo timeout: Duration = .zero) throws(StoreError) -> [PostgresNotification] {
        let operation = "wait for notifications"
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let connection = try connected(for: operation)
            guard PQconsumeInput(connection) == 1 else { throw failure(of: operation, result: nil) }
            var received: [PostgresNotification] = []
            while let notify = PQnotifies(connection) {
                defer { PQfreemem(notify) }
                received.append(
                    PostgresNotification(
                        channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra),
                        senderPID: notify.pointee.be_pid))
            }
            let remaining = clock.now.duration(to: deadline)
            guard received.isEmpty, remaining > .zero else { return received }
            SocketWait.untilReadable(PQsocket(connection), timeout: remaining)
        }
    }
}
