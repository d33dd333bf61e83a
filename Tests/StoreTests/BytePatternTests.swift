import Foundation
import Store
import Testing

/// The byte search inside keys (``BytePattern``), against the plainest search there is: no match
/// missed, none invented, none past the end of the range it was given, whatever the lengths.
@Suite struct BytePatternTests {
    /// A small seeded generator, so a failure names the seed that reproduces it.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The first start in `range` of a match of `word` lying wholly inside it, byte by byte.
    static func naive(_ word: [UInt8], in haystack: [UInt8], range: Range<Int>) -> Int? {
        guard !word.isEmpty else { return range.lowerBound }
        guard range.count >= word.count else { return nil }
        for start in range.lowerBound...(range.upperBound - word.count)
        where haystack[start..<start + word.count].elementsEqual(word) {
            return start
        }
        return nil
    }

    static func found(_ word: [UInt8], in haystack: [UInt8], range: Range<Int>) -> Int? {
        haystack.withUnsafeBufferPointer { keys in
            word.withUnsafeBufferPointer { BytePattern($0).firstOffset(in: keys, range: range) }
        }
    }

    /// Keys of 0 to 60 bytes from an alphabet of 1 to 4 letters (so words are found often), back
    /// to back with 0 terminators as in a chunk, searched inside each key and inside random
    /// ranges for words of 1 to 40 bytes: taken from the key, from across a terminator (with the
    /// 0 left out, so they are in no key), or made up.
    @Test func agreesWithANaiveSearchOnRandomKeysAndWords() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(state: seed)
        var compared = 0
        var foundSome = 0
        for _ in 0..<300 {
            let alphabet = Array("abcd".utf8.prefix(Int.random(in: 1...4, using: &random)))
            var buffer: [UInt8] = []
            var ranges: [Range<Int>] = []
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let start = buffer.count
                for _ in 0..<Int.random(in: 0...60, using: &random) { buffer.append(alphabet.randomElement(using: &random)!) }
                ranges.append(start..<buffer.count + 1)
                buffer.append(0)
            }
            // Half the buffers end without a terminator, as a range may.
            if Bool.random(using: &random) { buffer.removeLast() }
            ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<buffer.count
            for _ in 0..<40 {
                let length = Int.random(in: 1...40, using: &random)
                var word: [UInt8]
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !buffer.isEmpty:
                    // A piece of the buffer, anywhere: often across a terminator. (A buffer of one
                    // empty key, its terminator dropped, is empty: then a word as below.)
                    let start = Int.random(in: 0..<buffer.count, using: &random)
                    word = buffer[start..<min(buffer.count, start + length)].filter { $0 != 0 }
                case 1:
                    word = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
                default:
                    // The start or end of a key, or the whole key.
                    let key = buffer[ranges.randomElement(using: &random)!].filter { $0 != 0 }
                    word = Bool.random(using: &random) ? Array(key.prefix(length)) : Array(key.suffix(length))
                }
                if word.isEmpty { word = [alphabet[0]] }
                var tried = ranges
                let lower = Int.random(in: 0...buffer.count, using: &random)
                tried.append(lower..<Int.random(in: lower...buffer.count, using: &random))
                tried.append(0..<buffer.count)
                for range in tried {
                    let expected = Self.naive(word, in: buffer, range: range)
                    let actual = Self.found(word, in: buffer, range: range)
                    #expect(actual == expected, "seed \(seed): \(word) in \(buffer) at \(range)")
                    compared += 1
                    if expected != nil { foundSome += 1 }
                }
            }
        }
        // The test is worth something only if both answers come up often.
        #expect(foundSome > compared / 10 && foundSome < compared * 9 / 10, "seed \(seed): \(foundSome) of \(compared)")
    }

    /// A word at every place in buffers of every length around one and two vector widths: the
    /// vector loop, its candidates past the range's end, and the byte-by-byte tail near the end.
    @Test func findsAWordAtEveryPlaceOfEveryShortBuffer() {
        for length in 1...70 {
            for wordLength in [1, 2, 3, 5, 16, 17, 33] where wordLength <= length {
                for start in 0...(length - wordLength) {
                    var buffer = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    let word = (0..<wordLength).map { UInt8(ascii: "b") + UInt8($0 % 3) }
                    buffer.replaceSubrange(start..<start + wordLength, with: word)
                    #expect(Self.found(word, in: buffer, range: 0..<length) == start, "\(word) at \(start) of \(length)")
                    // Cut one byte short of the match, it is not there.
                    #expect(Self.found(word, in: buffer, range: 0..<start + wordLength - 1) == nil, "\(word) at \(start) of \(length)")
                    #expect(Self.found(word, in: buffer, range: start + 1..<length) == nil, "\(word) at \(start) of \(length)")
                }
            }
        }
    }

    @Test func edgeCases() {
        let chunk = Array("ab\u{0}cd\u{0}river stone\u{0}".utf8)
        // A word across a terminator is in neither key nor in the whole buffer.
        #expect(Self.found(Array("bc".utf8), in: chunk, range: 0..<3) == nil)
        #expect(Self.found(Array("bc".utf8), in: chunk, range: 0..<chunk.count) == nil)
        // One-byte words, at the start and the end of a key.
        #expect(Self.found(Array("a".utf8), in: chunk, range: 0..<3) == 0)
        #expect(Self.found(Array("d".utf8), in: chunk, range: 3..<6) == 4)
        #expect(Self.found(Array("d".utf8), in: chunk, range: 0..<3) == nil)
        // Words at the very start and the very end of a key and of the buffer.
        #expect(Self.found(Array("river".utf8), in: chunk, range: 6..<chunk.count) == 6)
        #expect(Self.found(Array("stone".utf8), in: chunk, range: 6..<chunk.count) == 12)
        #expect(Self.found(Array("stone".utf8), in: Array(chunk.dropLast()), range: 6..<chunk.count - 1) == 12)
        // A word longer than the key, or than the whole buffer.
        #expect(Self.found(Array("abc".utf8), in: chunk, range: 0..<3) == nil)
        #expect(Self.found(Array(repeating: UInt8(ascii: "r"), count: 40), in: chunk, range: 0..<chunk.count) == nil)
        // A range that stops inside a match does not find it, though the bytes after are read.
        #expect(Self.found(Array("stone".utf8), in: chunk, range: 6..<16) == nil)
        // The empty word is at the start; an empty range or buffer holds nothing else.
        #expect(Self.found([], in: chunk, range: 3..<6) == 3)
        #expect(Self.found(Array("a".utf8), in: chunk, range: 2..<2) == nil)
        #expect(Self.found(Array("a".utf8), in: [], range: 0..<0) == nil)
        // A word found only later in a long key, after many near misses across vector blocks.
        let long = Array((String(repeating: "rive ", count: 30) + "river").utf8)
        #expect(Self.found(Array("river".utf8), in: long, range: 0..<long.count) == 150)
    }

    /// The whole search of an index against every key read back and searched for naively:
    /// random keys from few letters, words of one to a few letters, several words at once.
    @Test func anIndexFindsWhatANaiveSearchOfItsKeysFinds() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(state: seed)
        var index = QuoteSearchIndex()
        let letters = Array("abc")
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in Int.random(in: 0..<5, using: &random) == 0 ? " " : letters.randomElement(using: &random)! })
        }
        // More than one chunk, a few ids left out.
        for id in 1...600 where Int.random(in: 0..<10, using: &random) != 0 {
            index.update(QuoteID(id), text: text(Int.random(in: 0...50, using: &random)), author: text(Int.random(in: 0...6, using: &random)))
        }
        for pass in 0..<2 {
            for _ in 0..<200 {
                let typed = (0..<Int.random(in: 1...3, using: &random)).map { _ in text(Int.random(in: 1...6, using: &random)) }.joined(separator: " ")
                let query = SearchQuery(typed)
                let expected = (1...600).reversed().filter { id in
                    guard let key = index.key(of: QuoteID(id)) else { return false }
                    return !query.isEmpty && query.words.allSatisfy { Self.naive($0, in: key, range: 0..<key.count) != nil }
                }
                guard !query.isEmpty else { continue }
                #expect(index.search(query).map(\.rawValue) == expected, "seed \(seed), pass \(pass): \(typed)")
            }
            // Then a third of the quotes edited or removed, so slots' filters are replaced.
            for id in 1...600 where Int.random(in: 0..<3, using: &random) == 0 {
                if Int.random(in: 0..<4, using: &random) == 0 {
                    index.remove(QuoteID(id))
                } else {
                    index.update(QuoteID(id), text: text(Int.random(in: 0...50, using: &random)), author: text(Int.random(in: 0...6, using: &random)))
                }
            }
        }
    }
}
