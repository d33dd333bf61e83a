import Foundation
import Store
import StoreBackend
import StorePostgres
import Synchronization
import Testing

/// ``PostgresListener``, the one follower of NOTIFY channels in a process: its events in order,
/// the quiet cue the journal polls on, a start while the server cannot be reached, and several
/// channels on one connection.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1)))
struct PostgresListenerTests {
    /// Every event the handler heard, in order, with when it heard it.
    final class Events: Sendable {
        private let events = Mutex<[(event: PostgresListener.Event, at: ContinuousClock.Instant)]>([])

        func append(_ event: PostgresListener.Event) { events.withLock { $0.append((event, .now)) } }
        var all: [PostgresListener.Event] { events.withLock { $0.map(\.event) } }
        var timed: [(event: PostgresListener.Event, at: ContinuousClock.Instant)] { events.withLock { $0 } }

        /// Waits (up to 10 s) until `condition` holds for the events so far.
        func wait(until condition: ([PostgresListener.Event]) -> Bool) async throws -> [PostgresListener.Event] {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let now = all
                if condition(now) { return now }
                try await Task.sleep(for: .milliseconds(5))
            }
            return all
        }
    }

    @Test func saysQuietAfterEachQuietIntervalWithoutANotificationAndNotificationsResetIt() async throws {
        let url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        let channel = PostgresTestDatabase.uniqueName("quiet")
        let events = Events()
        let interval = Duration.milliseconds(300)
        let started = ContinuousClock.now
        let listener = PostgresListener(url: url)
        defer { listener.stop() }
        await listener.follow(channel, quietInterval: interval) { events.append($0) }
        _ = try await events.wait { $0.contains(.quiet) }
        let sender = try PostgresTestDatabase.makeClient()
        try await sender.withConnection { connection throws(StoreError) in try connection.notify(channel, payload: "7") }
        _ = try await events.wait { events in
            guard let heard = events.firstIndex(where: { if case .notification = $0 { true } else { false } }) else { return false }
            return events[heard...].filter { $0 == .quiet }.count >= 2
        }
        listener.stop()
        await sender.close()

        // Between any two events, and from the start to the first, a quiet comes only after a
        // whole interval without events (a little early is the clock's and the wait's rounding).
        let timed = events.timed
        var previous = started
        for (event, at) in timed {
            if event == .quiet { #expect(previous.duration(to: at) >= interval - .milliseconds(5), "\(timed)") }
            previous = at
        }
        let notifications = timed.compactMap { if case .notification(let notification) = $0.event { notification } else { nil } }
        #expect(notifications.map(\.payload) == ["7"])
        #expect(timed.filter { $0.event == .quiet }.count >= 3)
        #expect(timed.filter { $0.event == .listening }.count == 1, "no reconnection happened")
        #expect(timed.first?.event == .listening)
    }

    @Test func withoutAQuietIntervalItNeverSaysQuiet() async throws {
        let url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        let events = Events()
        let listener = PostgresListener(url: url)
        await listener.follow(PostgresTestDatabase.uniqueName("silent")) { events.append($0) }
        try await Task.sleep(for: .milliseconds(400))
        listener.stop()
        #expect(events.all == [.listening])
    }

    @Test func begunWhileTheServerIsAwayItSaysInterruptedOnceAndKeepsTrying() async throws {
        // A port nothing listens on: each attempt is refused at once.
        var url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        url.port = 1
        let events = Events()
        let listener = PostgresListener(url: url, policy: PostgresReconnectPolicy(budget: .milliseconds(50)))
        listener.startFollowing("nobody") { events.append($0) }
        let heard = try await events.wait { !$0.isEmpty }
        try await Task.sleep(for: .milliseconds(300))
        listener.stop()
        guard case .interrupted(let reason) = heard.first else {
            Issue.record("expected interrupted, heard \(heard)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(events.all.count == 1, "one interrupted while it keeps trying: \(events.all)")
    }

    @Test func begunWithTheServerThereItSaysListeningThenHearsNotifications() async throws {
        let url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        let channel = PostgresTestDatabase.uniqueName("begun")
        let events = Events()
        let listener = PostgresListener(url: url)
        defer { listener.stop() }
        listener.startFollowing(channel) { events.append($0) }
        #expect(try await events.wait { !$0.isEmpty } == [.listening])
        let sender = try PostgresTestDatabase.makeClient()
        try await sender.withConnection { connection throws(StoreError) in try connection.notify(channel, payload: "x") }
        let heard = try await events.wait { $0.count >= 2 }
        #expect(heard.count == 2)
        if case .notification(let notification) = heard.last { #expect(notification.payload == "x") } else {
            Issue.record("expected a notification, heard \(heard)")
        }
        await sender.close()
    }

    @Test func followsEveryChannelOnOneConnectionAndStopsTellingAFollowerItRemoved() async throws {
        let url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        let (sessions, journal) = (PostgresTestDatabase.uniqueName("sessions"), PostgresTestDatabase.uniqueName("journal"))
        let (heardBySessions, heardByJournal) = (Events(), Events())
        let listener = PostgresListener(url: url)
        defer { listener.stop() }
        let sessionFollower = await listener.follow(sessions) { heardBySessions.append($0) }
        await listener.follow(journal) { heardByJournal.append($0) }
        let sender = try PostgresTestDatabase.makeClient()
        // A session's `query` is its last statement: a listener's last LISTEN names one of the two.
        let listening = try await sender.query(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND (strpos(query, $1) > 0 OR strpos(query, $2) > 0)",
            [sessions, journal])
        #expect(try listening.rows.first?.int64(at: 0) == 1, "one connection LISTENs for both")
        try await sender.withConnection { connection throws(StoreError) in
            try connection.notify(sessions, payload: "s")
            try connection.notify(journal, payload: "j")
        }
        let payloads = { (events: Events) in
            events.all.compactMap { if case .notification(let notification) = $0 { notification.payload } else { nil } }
        }
        _ = try await heardByJournal.wait { $0.count >= 2 }
        _ = try await heardBySessions.wait { $0.count >= 2 }
        #expect(payloads(heardBySessions) == ["s"])
        #expect(payloads(heardByJournal) == ["j"])

        listener.unfollow(sessionFollower)
        try await sender.withConnection { connection throws(StoreError) in
            try connection.notify(sessions, payload: "s2")
            try connection.notify(journal, payload: "j2")
        }
        _ = try await heardByJournal.wait { $0.count >= 3 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(payloads(heardByJournal) == ["j", "j2"])
        #expect(payloads(heardBySessions) == ["s"])
        await sender.close()
    }
}
