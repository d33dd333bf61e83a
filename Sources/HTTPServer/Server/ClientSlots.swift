import Synchronization

/// A bounded number of places — connections, or event streams — with a bound per client
/// address as well as in total, shared by every loop of a server (nginx's `limit_conn` and
/// `worker_connections`, HAProxy's `maxconn`).
///
/// Sendable: the counts are behind a `Mutex`, touched once when a place is taken and once when
/// it is given back.
final class ClientSlots: Sendable {
    private struct Counts {
        var total = 0
        var perClient: [IPAddress: Int] = [:]
    }

    /// Why ``take(for:)`` refused.
    enum Refusal: Equatable {
        case total
        case client
    }

    let total: Int
    let perClient: Int
    /// Addresses counted only towards ``total`` (trusted proxies speak for many clients).
    private let exempt: Set<IPAddress>
    private let counts = Mutex(Counts())

    init(total: Int, perClient: Int, exempt: Set<IPAddress> = []) {
        self.total = max(1, total)
        self.perClient = max(1, perClient)
        self.exempt = exempt
    }

    /// Takes a place for `client` (nil: an address the kernel could not tell, counted only in
    /// the total), or says which bound refuses it.
    func take(for client: IPAddress?) -> Refusal? {
        let counted = counted(client)
        return counts.withLock { counts -> Refusal? in
            guard counts.total < total else { return .total }
            if let counted {
                let held = counts.perClient[counted, default: 0]
                guard held < perClient else { return .client }
                counts.perClient[counted] = held + 1
            }
            counts.total += 1
            return nil
        }
    }

    /// Gives back a place ``take(for:)`` gave `client`.
    func release(for client: IPAddress?) {
        let counted = counted(client)
        counts.withLock { counts in
            counts.total -= 1
            guard let counted, let held = counts.perClient[counted] else { return }
            counts.perClient[counted] = held > 1 ? held - 1 : nil
        }
    }

    /// The key `client` is counted under: nil for a trusted proxy (or an unknown address), else
    /// its ``IPAddress/subscriberPrefix`` (an IPv6 address by its /64, which one subscriber
    /// holds whole).
    private func counted(_ client: IPAddress?) -> IPAddress? {
        guard let client, !exempt.contains(client) else { return nil }
        return client.subscriberPrefix
    }

    /// Places held now, in total and by `client`.
    func held(by client: IPAddress? = nil) -> (total: Int, client: Int) {
        let key = counted(client)
        return counts.withLock { counts in (counts.total, key.map { counts.perClient[$0, default: 0] } ?? 0) }
    }
}
