import Basics
import TestSupport
import Testing

/// The one bounded cache: what it keeps, when it starts over, which revision an entry belongs to,
/// and that many threads at once never push it past its limits nor mix up keys.
@Suite struct BoundedCacheTests {
    /// A cache of strings costing their length in bytes.
    func makeCache(countLimit: Int = .max, costLimit: Int = .max) -> BoundedCache<String, String> {
        BoundedCache(countLimit: countLimit, costLimit: costLimit) { $0.utf8.count }
    }

    @Test func keepsAndReplacesValuesByKey() {
        let cache = makeCache()
        #expect(cache.value(forKey: "a") == nil)
        cache.insert("one", forKey: "a")
        cache.insert("two", forKey: "b")
        cache.insert("three", forKey: "a")
        #expect(cache.value(forKey: "a") == "three")
        #expect(cache.value(forKey: "b") == "two")
        #expect(cache.count == 2)
        #expect(cache.totalCost == 8)
    }

    @Test func startsOverWhenANewKeyWouldPassTheCountLimit() {
        let cache = makeCache(countLimit: 3)
        for key in ["a", "b", "c"] { cache.insert(key, forKey: key) }
        #expect(cache.count == 3)
        cache.insert("c2", forKey: "c")
        #expect(cache.count == 3, "replacing a key adds no entry, so nothing is dropped")
        cache.insert("d", forKey: "d")
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "d") == "d")
        for key in ["a", "b", "c"] { #expect(cache.value(forKey: key) == nil) }
        #expect(cache.totalCost == 1)
    }

    @Test func startsOverWhenTheCostWouldPassTheLimit() {
        let cache = makeCache(costLimit: 10)
        cache.insert("12345", forKey: "a")
        cache.insert("12345", forKey: "b")
        #expect(cache.count == 2 && cache.totalCost == 10, "exactly at the limit is within it")
        cache.insert("123", forKey: "c")
        #expect(cache.count == 1)
        #expect(cache.totalCost == 3)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.value(forKey: "c") == "123")
    }

    @Test func aReplacedValueCountsOnlyItsNewCost() {
        let cache = makeCache(costLimit: 10)
        for _ in 0..<5 { cache.insert("123456", forKey: "a") }
        cache.insert("1234", forKey: "b")
        #expect(cache.count == 2)
        #expect(cache.totalCost == 10)
    }

    @Test func keepsNoValueCostingMoreThanTheWholeLimit() {
        let cache = makeCache(costLimit: 10)
        cache.insert("small", forKey: "a")
        cache.insert("12345678901", forKey: "big")
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.value(forKey: "a") == "small", "a value that is not kept does not make the cache start over")
        #expect(cache.totalCost == 5)
    }

    @Test func aZeroOrNegativeLimitKeepsNothing() {
        for cache in [makeCache(countLimit: 0), makeCache(countLimit: -1), makeCache(costLimit: -1)] {
            cache.insert("x", forKey: "a")
            #expect(cache.count == 0)
            #expect(cache.value(forKey: "a") == nil)
        }
        let free = makeCache(costLimit: 0)
        free.insert("", forKey: "empty")
        #expect(free.value(forKey: "empty") == "", "a value costing nothing fits a zero cost limit")
    }

    @Test func findsAnEntryOnlyAtTheRevisionItWasKeptAt() {
        let cache = makeCache()
        cache.insert("page", forKey: "/", revision: 3)
        #expect(cache.revision == 3)
        #expect(cache.value(forKey: "/", revision: 3) == "page")
        #expect(cache.value(forKey: "/", revision: 2) == nil)
        #expect(cache.value(forKey: "/", revision: 4) == nil)
        #expect(cache.value(forKey: "/") == "page", "the plain look-up is at the current revision")
    }

    @Test func aNewerRevisionDropsEveryOlderEntryAndAnOlderOneIsIgnored() {
        let cache = makeCache()
        cache.insert("list", forKey: "/quotes", revision: 1)
        cache.insert("home", forKey: "/", revision: 1)
        cache.insert("new home", forKey: "/", revision: 2)
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "/quotes", revision: 2) == nil)
        cache.insert("old list", forKey: "/quotes", revision: 1)
        #expect(cache.value(forKey: "/quotes", revision: 1) == nil)
        #expect(cache.value(forKey: "/quotes", revision: 2) == nil)
        #expect(cache.revision == 2)
        #expect(cache.count == 1)
    }

    @Test func invalidatingAllMovesOnAndRefusesWhatWasComputedBefore() {
        let cache = makeCache()
        let before = cache.revision
        cache.insert("ada", forKey: "a", revision: before)
        cache.invalidateAll()
        #expect(cache.revision == before + 1)
        #expect(cache.count == 0)
        cache.insert("stale", forKey: "b", revision: before)
        #expect(cache.value(forKey: "b") == nil, "computed before the change: not kept")
        cache.insert("fresh", forKey: "b", revision: cache.revision)
        #expect(cache.value(forKey: "b") == "fresh")
    }

    @Test func invalidatingOneKeyKeepsTheOthersButRefusesEveryEarlierInsert() {
        let cache = makeCache()
        let before = cache.revision
        cache.insert("one", forKey: "a", revision: before)
        cache.insert("two", forKey: "b", revision: before)
        cache.invalidate("a")
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.value(forKey: "b") == "two")
        #expect(cache.totalCost == 3)
        cache.insert("late", forKey: "c", revision: before)
        #expect(cache.value(forKey: "c") == nil)
        cache.insert("plain", forKey: "c")
        #expect(cache.value(forKey: "c") == "plain", "an unstamped insert is at the current revision")
    }

    @Test func removesByKeyAndByPredicateWithoutMovingTheRevision() {
        let cache = makeCache()
        for key in ["a", "bb", "ccc", "dddd"] { cache.insert(key, forKey: key) }
        let revision = cache.revision
        cache.removeValue(forKey: "a")
        cache.removeValue(forKey: "missing")
        cache.removeAll { $0.utf8.count >= 3 }
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "bb") == "bb")
        #expect(cache.totalCost == 2)
        #expect(cache.revision == revision)
    }

    /// Eight threads insert and read 1,000 keys each, in an order of their own, while the
    /// limits force the cache to start over again and again: no read sees another key's value
    /// and no moment holds more than the limits allow. (Under ThreadSanitizer this is also the
    /// test of the one suppression for the cache's Mutex, .ci/tsan-suppressions.txt.)
    @Test func manyThreadsAtOnceStayWithinTheLimits() async {
        let cache = BoundedCache<Int, [Int]>(countLimit: 64, costLimit: 500) { $0.count }
        let threadCount = 8
        let results = await withTaskGroup(of: (mismatches: Int, overLimit: Int).self) { group in
            for thread in 0..<threadCount {
                group.addTask {
                    await offPool {
                        var mismatches = 0
                        var overLimit = 0
                        for step in 0..<1_000 {
                            let key = (step * 7 + thread * 131) % 300
                            if let found = cache.value(forKey: key), found != Self.value(for: key) { mismatches += 1 }
                            cache.insert(Self.value(for: key), forKey: key)
                            if step % 50 == 0, cache.count > 64 || cache.totalCost > 500 { overLimit += 1 }
                        }
                        return (mismatches, overLimit)
                    }
                }
            }
            var total = (mismatches: 0, overLimit: 0)
            for await result in group {
                total.mismatches += result.mismatches
                total.overLimit += result.overLimit
            }
            return total
        }
        #expect(results.mismatches == 0)
        #expect(results.overLimit == 0)
        #expect(cache.count <= 64)
        #expect(cache.totalCost <= 500)
        #expect(cache.count > 0)
    }

    /// What the concurrent test keeps for `key`: 1 to 10 copies of it.
    static func value(for key: Int) -> [Int] {
        Array(repeating: key, count: key % 10 + 1)
    }
}
