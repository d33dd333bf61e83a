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

    /// Session ids (SHA-256 digests) spread over a power-of-two table as ids do: 32,768 random
    /// 32-byte digests over 4,096 buckets.
    @Test func digestsSpreadOverEveryBucket() {
        let buckets = 1 << 12
        var generator = SystemRandomNumberGenerator()
        for seed in [0, 1, -7] {
            var load = [Int](repeating: 0, count: buckets)
            for _ in 0..<(8 * buckets) {
                let digest = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                load[ServerIDHash.mix(digest: digest, seed: seed) & (buckets - 1)] += 1
            }
            let empty = load.filter { $0 == 0 }.count
            #expect(empty <= 16 && load.max()! <= 26, "seed \(seed): \(empty) empty, at most \(load.max()!)")
        }
    }

    /// Every byte counts, in every word and in a tail shorter than a word, and so does the length.
    @Test func everyByteOfADigestAndItsLengthCount() {
        let digest = [UInt8](0..<35)
        let hash = ServerIDHash.mix(digest: digest, seed: 5)
        #expect(hash == ServerIDHash.mix(digest: Array(digest), seed: 5))
        #expect(hash != ServerIDHash.mix(digest: digest, seed: 6))
        for index in digest.indices {
            var changed = digest
            changed[index] ^= 0x10
            #expect(ServerIDHash.mix(digest: changed, seed: 5) != hash, "byte \(index)")
        }
        #expect(ServerIDHash.mix(digest: [1, 2], seed: 0) != ServerIDHash.mix(digest: [1, 2, 0], seed: 0))
        #expect(ServerIDHash.mix(digest: [0, 0, 0, 0, 0, 0, 0, 0], seed: 0) != ServerIDHash.mix(digest: [], seed: 0))
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
