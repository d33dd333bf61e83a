import Foundation
@testable import Store
import Testing

/// The in-memory attempt store (issue 29): full, it evicts the least recently tried key in O(1),
/// and a live lock is never evicted, however many new keys arrive.
@Suite struct InMemorySignInFailuresTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func reserve(_ store: InMemorySignInFailures, _ key: String, at seconds: TimeInterval = 0) -> AttemptReservation {
        let date = start.addingTimeInterval(seconds)
        return store.reserveAttempt(in: "username", for: key, at: date, forgettingBefore: date.addingTimeInterval(-60), limit: 5)
    }

    @Test func theRecencyListEvictsTheLeastRecentlyUsed() {
        var list = RecencyList<Int>()
        for (index, key) in ["a", "b", "c", "d"].enumerated() { list.set(index, for: key) }
        list.set(10, for: "a")  // a is now the newest
        #expect(list.remove("c") == 2)
        #expect(list.removeOldest() == "b")
        #expect(list.removeOldest() == "d")
        list.set(5, for: "e")
        #expect(list.count == 2 && list.peek("a") == 10 && list.peek("e") == 5)
        #expect(list.removeOldest() == "a")
        #expect(list.removeOldest() == "e")
        #expect(list.removeOldest() == nil && list.count == 0)
    }

    @Test func aFullStoreForgetsTheKeyTriedLongestAgo() {
        let store = InMemorySignInFailures(capacity: 3)
        for key in ["k1", "k2", "k3"] { _ = reserve(store, key) }
        #expect(reserve(store, "k1", at: 1) == .counted(2), "k1 tried again: now the newest")
        #expect(reserve(store, "k4", at: 2) == .counted(1))
        #expect(store.trackedCount(in: "username") == 3)
        #expect(reserve(store, "k1", at: 3) == .counted(3), "k1 kept its count")
        #expect(reserve(store, "k3", at: 4) == .counted(2), "k3 kept its count")
        #expect(reserve(store, "k2", at: 5) == .counted(1), "k2, tried longest ago, was the one forgotten")
    }

    /// Giving back an attempt the key never made leaves it where it was in the order: it was not
    /// tried just now.
    @Test func aReleaseOfNothingDoesNotMakeAKeyRecent() {
        let store = InMemorySignInFailures(capacity: 2)
        _ = reserve(store, "k1")
        _ = reserve(store, "k2", at: 1)
        store.releaseAttempt(in: "username", for: "k1", at: start.addingTimeInterval(99))
        #expect(reserve(store, "k3", at: 2) == .counted(1))
        #expect(reserve(store, "k2", at: 3) == .counted(2), "k2 kept its count")
        #expect(reserve(store, "k1", at: 4) == .counted(1), "k1, tried longest ago, was the one forgotten")
    }

    @Test func aLiveLockOutlastsAFloodOfNewKeys() {
        let store = InMemorySignInFailures(capacity: 10)
        store.lock(in: "username", "ada", until: start.addingTimeInterval(60))
        for index in 0..<10_000 { _ = reserve(store, "guess\(index)", at: 1) }
        #expect(store.trackedCount(in: "username") == 10)
        #expect(reserve(store, "ada", at: 2) == .locked(until: start.addingTimeInterval(60)))
        #expect(reserve(store, "ada", at: 61) == .counted(1), "once it ended, the key counts afresh")
        #expect(store.lockCount(in: "username") == 0, "an ended lock is dropped")
    }

    @Test func endedLocksAreDroppedOldestFirstAndAClearedOneIsGone() {
        let store = InMemorySignInFailures(capacity: 10)
        for index in 0..<100 { store.lock(in: "username", "user\(index)", until: start.addingTimeInterval(60 + Double(index))) }
        store.clearAttempts(in: "username", for: "user99")
        #expect(store.lockCount(in: "username") == 99)
        _ = reserve(store, "someone", at: 110)
        #expect(store.lockCount(in: "username") == 48, "the 51 that ended by then (user0 to user50) are gone")
        #expect(reserve(store, "user60", at: 110) == .locked(until: start.addingTimeInterval(120)))
        #expect(reserve(store, "user99", at: 110) == .counted(1), "cleared")
        store.lock(in: "username", "user10", until: start.addingTimeInterval(200))
        _ = reserve(store, "someone", at: 150)
        #expect(reserve(store, "user10", at: 150) == .locked(until: start.addingTimeInterval(200)), "locked again, kept")
    }
}
