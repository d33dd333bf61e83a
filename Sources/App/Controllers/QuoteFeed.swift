package import Store
import Synchronization

/// What an open quote page is told, in order.
package enum QuoteFeedMessage: Sendable, Equatable {
    /// The quote as it is now (edited, restored, or newer than the page's copy), and the account
    /// that made its latest change (nil for the seed, changed by no one).
    case changed(Quote, changedBy: User?)
    /// The quote was deleted; nothing follows.
    case deleted(QuoteID)
    /// Nothing changed: sent every heartbeat interval, so that idle connections stay open through
    /// proxies and a client that has gone is noticed.
    case heartbeat
}

/// The live side of the quote pages: one store observer feeds every open page, keyed by quote
/// id, so a thousand pages on one quote cost one observer call and a thousand stream yields per
/// change — never a store subscription or a thread per page. No HTTP, no HTML.
///
/// Every change is sent as the quote's current state, read when the change is published, and a
/// listener is never sent a version it already has: a burst of changes, or a change racing a
/// page that is just connecting, can only skip versions, never repeat or reorder them. Each
/// listener's stream keeps at most ``backlog`` unread messages (the newest, which carry the
/// current state); the HTTP server drops a client that does not read its stream.
///
/// Ownership: listeners, their last versions and the heartbeat task live in one `Mutex`. The
/// store observer and ``listen(to:lastSeenVersion:)`` read the store's state under it, so a
/// listener registers either before a change is published (and is sent it) or after (and reads
/// it as its first message). A continuation is finished only outside the lock: finishing calls
/// its termination handler.
///
/// The termination handler never takes that lock: it runs while the Swift runtime holds the
/// cancelled task's status lock, and a yield made under our lock needs that same task lock to
/// resume the task — the two orders together deadlocked. It only notes the departure in a
/// second, tiny lock (never held while yielding), and whoever takes the main lock next forgets
/// the listeners that left.
package final class QuoteFeed: Sendable {
    /// Unread messages a listener's stream keeps; older ones are dropped (a newer one carries
    /// the current state).
    package static let backlog = 8

    private struct Listener {
        let continuation: AsyncStream<QuoteFeedMessage>.Continuation
        /// The newest version this listener has been sent (0: none yet).
        var version: Int
    }

    private struct State {
        var listeners: [QuoteID: [UInt64: Listener]] = [:]
        var count = 0
        var nextKey: UInt64 = 0
        /// Runs while anyone listens: one timer for every listener.
        var heartbeat: Task<Void, Never>?
    }

    private let store: any StateStore
    private let heartbeatInterval: Duration
    private let state = Mutex(State())
    /// Listeners whose stream ended, noted by their termination handlers; see the type's notes.
    private let departed = Mutex<[(key: UInt64, id: QuoteID)]>([])

    /// - Parameter heartbeatInterval: how often every listener is sent ``QuoteFeedMessage/heartbeat``.
    package init(store: any StateStore, heartbeatInterval: Duration) {
        self.store = store
        self.heartbeatInterval = heartbeatInterval
    }

    deinit {
        state.withLock { $0.heartbeat?.cancel() }
    }

    /// Whether quote `id` exists now: a feed of an unknown quote is not found.
    package func contains(_ id: QuoteID) -> Bool {
        store.state.quotes[id] != nil
    }

    /// How many streams are open, on every quote.
    package var listenerCount: Int {
        withState { $0.count }
    }

    /// A stream of quote `id`'s changes from now on. It starts with the quote as it is now,
    /// unless `lastSeenVersion` (the page's copy, or a reconnecting client's `Last-Event-ID`) is
    /// already its version; when the quote does not exist (any more) it is one
    /// ``QuoteFeedMessage/deleted(_:)`` and ends. The stream ends after a deletion, and stops
    /// being fed when its consumer stops iterating.
    package func listen(to id: QuoteID, lastSeenVersion: Int?) -> AsyncStream<QuoteFeedMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: QuoteFeedMessage.self, bufferingPolicy: .bufferingNewest(Self.backlog))
        let key = withState { state in
            defer { state.nextKey &+= 1 }
            return state.nextKey
        }
        // Set before the listener is registered, so a consumer gone at once is still removed
        // (a departure noted before the registration is also caught by the next failed yield).
        continuation.onTermination = { [weak self] _ in self?.departed.withLock { $0.append((key, id)) } }
        let isRegistered = withState { state in
            let current = store.state
            guard let quote = current.quotes[id] else {
                continuation.yield(.deleted(id))
                return false
            }
            if lastSeenVersion != quote.version {
                continuation.yield(.changed(quote, changedBy: quote.updatedBy.flatMap { current.users[$0] }))
            }
            state.listeners[id, default: [:]][key] = Listener(continuation: continuation, version: quote.version)
            state.count += 1
            if state.heartbeat == nil { state.heartbeat = startHeartbeat() }
            return true
        }
        if !isRegistered { continuation.finish() }
        return stream
    }

    /// Tells the listeners of the quote `event` changed what it is now. The store calls this on
    /// its queue for every applied event (``Store/observe(_:)``): a change to a quote nobody
    /// watches costs one lock and one dictionary look-up.
    package func publish(_ event: AppEvent) {
        if case .reverted = event {
            for id in event.quoteIDs { publish(changeOf: id) }
        } else if let id = event.quoteID {
            publish(changeOf: id)
        }
    }

    /// Tells the listeners of quote `id` what it is now.
    private func publish(changeOf id: QuoteID) {
        let finished: [AsyncStream<QuoteFeedMessage>.Continuation] = withState { state in
            guard let listeners = state.listeners[id], !listeners.isEmpty else { return [] }
            let current = store.state
            guard let quote = current.quotes[id] else {
                for listener in listeners.values { listener.continuation.yield(.deleted(id)) }
                state.listeners[id] = nil
                state.count -= listeners.count
                stopHeartbeatIfIdle(&state)
                return listeners.values.map(\.continuation)
            }
            let message = QuoteFeedMessage.changed(quote, changedBy: quote.updatedBy.flatMap { current.users[$0] })
            for (key, listener) in listeners where listener.version < quote.version {
                if case .terminated = listener.continuation.yield(message) {
                    Self.unregister(key, from: id, in: &state)
                } else {
                    state.listeners[id]?[key]?.version = quote.version
                }
            }
            stopHeartbeatIfIdle(&state)
            return []
        }
        for continuation in finished { continuation.finish() }
    }

    /// Sends every listener a heartbeat, forgetting those whose stream has ended.
    func beat() {
        withState { state in
            for (id, listeners) in state.listeners {
                for (key, listener) in listeners {
                    if case .terminated = listener.continuation.yield(.heartbeat) {
                        Self.unregister(key, from: id, in: &state)
                    }
                }
            }
            stopHeartbeatIfIdle(&state)
        }
    }

    /// Runs `body` under the lock, first forgetting the listeners that left since the last time.
    /// A forgotten listener's continuation is released after the lock: releasing the last
    /// reference can run its termination handler.
    private func withState<T>(_ body: (inout State) -> T) -> T {
        var released: [Listener] = []
        let result = state.withLock { state in
            let gone = departed.withLock { departed in
                defer { departed.removeAll() }
                return departed
            }
            for (key, id) in gone {
                if let listener = state.listeners[id]?[key] { released.append(listener) }
                Self.unregister(key, from: id, in: &state)
            }
            if !gone.isEmpty { stopHeartbeatIfIdle(&state) }
            return body(&state)
        }
        released.removeAll()
        return result
    }

    private static func unregister(_ key: UInt64, from id: QuoteID, in state: inout State) {
        guard state.listeners[id]?.removeValue(forKey: key) != nil else { return }
        state.count -= 1
        if state.listeners[id]?.isEmpty == true { state.listeners[id] = nil }
    }

    private func stopHeartbeatIfIdle(_ state: inout State) {
        guard state.count == 0, let heartbeat = state.heartbeat else { return }
        heartbeat.cancel()
        state.heartbeat = nil
    }

    /// One task sends every heartbeat while anyone listens; it holds the feed weakly.
    private func startHeartbeat() -> Task<Void, Never> {
        let interval = heartbeatInterval
        return Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let feed = self else { return }
                feed.beat()
            }
        }
    }
}
