import Store
import Testing

/// Ids hash with ``ServerIDHash``: equal ids equally, another table seed differently, spread
/// over a power-of-two table's buckets.
@Suite struct ServerIDHashTests {
    /// 32,768 ids over 4,096 buckets, 8 a bucket on average, as a table's low bits pick them:
    /// consecutive ids, and ids 4,096 apart (all in one bucket, were the id its own hash). A
    /// random spread leaves about 1.4 buckets empty and none above about 20.
    @Test func idsSpreadOverEveryBucket() {
        let buckets = 1 << 12
        for stride in [1, buckets, 3 * buckets + 1] {
            for seed in [0, 1, -7, 0x5DEE_CE66D] {
                var load = [Int](repeating: 0, count: buckets)
                for index in 0..<(8 * buckets) { load[QuoteID(1 + index * stride)._rawHashValue(seed: seed) & (buckets - 1)] += 1 }
                let empty = load.filter { $0 == 0 }.count
                #expect(empty <= 16 && load.max()! <= 26, "stride \(stride), seed \(seed): \(empty) empty, at most \(load.max()!)")
            }
        }
    }

    @Test func equalIdsHashEquallyAndSeedsDiffer() {
        #expect(UserID(42)._rawHashValue(seed: 9) == UserID(42)._rawHashValue(seed: 9))
        #expect(UserID(42)._rawHashValue(seed: 9) != UserID(42)._rawHashValue(seed: 10))
        #expect(UserID(42).hashValue == QuoteID(42).hashValue)
        var seen = Set<QuoteID>()
        for id in 1...10_000 { seen.insert(QuoteID(id)) }
        #expect(seen.count == 10_000 && seen.contains(QuoteID(9_999)) && !seen.contains(QuoteID(10_001)))
        let users = Dictionary(uniqueKeysWithValues: (1...1_000).map { (UserID($0), $0 * 2) })
        #expect((1...1_000).allSatisfy { users[UserID($0)] == $0 * 2 })
    }
}
