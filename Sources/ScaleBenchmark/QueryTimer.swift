import Foundation
import Store

/// Times, in process, ``QuoteSearchIndex/search(_:)`` (nothing kept) over a small book like the
/// one of `Benchmarks/pages.sh`: `quoteCount` quotes of 8 to 30 words from its 36-word list, one
/// in six holding "river", by its eight authors, searched for every query of a file (one a line,
/// words joined by "+", as pages.sh writes them). With so few words most keys hold most of a
/// query's byte pairs, so nearly every slot passes the pair filter and is searched byte by byte:
/// what a signed-in search page's search costs when its results are not kept.
struct QueryTimer {
    let queriesPath: String
    let quoteCount: Int
    let runs: Int

    static let words = (
        "time light memory silence courage wonder patience truth doubt freedom garden morning winter "
            + "stone letter window music ocean story friend stranger promise mountain question answer "
            + "road fire shadow kindness reason habit dream harbour lantern bridge"
    ).split(separator: " ").map(String.init)
    static let authors = [
        "Ada Lovelace", "Marcus Aurelius", "Mary Shelley", "Seneca", "Toni Morrison", "Italo Calvino", "Wisława Szymborska", "Anonymous",
    ]

    func run() throws {
        let typed = try String(contentsOfFile: queriesPath, encoding: .utf8)
            .split(whereSeparator: \.isNewline)
            .map { $0.replacingOccurrences(of: "+", with: " ") }
        let queries = typed.map { SearchQuery($0) }
        guard !queries.isEmpty else { fail("\(queriesPath) holds no queries") }
        var index = QuoteSearchIndex()
        var random = SplitMix64(seed: 9)
        for number in 0..<quoteCount {
            var words = (0..<(8 + random.below(23))).map { _ in Self.words[random.below(Self.words.count)] }
            if number % 6 == 0 { words[random.below(words.count)] = "river" }
            let sentence = words.joined(separator: " ")
            let text = sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
            index.update(QuoteID(number + 1), text: text, author: Self.authors[random.below(Self.authors.count)])
        }
        var found = 0
        for query in queries { found += index.search(query).count }
        print("\(quoteCount) quotes, \(index.byteCount) bytes of keys, \(queries.count) queries, \(found) matches in all")
        // Each sample is 50 passes over every query (tens of milliseconds), so the clock's cost is noise.
        let passes = 50
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            for _ in 0..<passes {
                for query in queries { found &+= index.search(query).count }
            }
            let elapsed = ContinuousClock.now - start
            let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            samples.append(nanoseconds / Double(passes * queries.count))
        }
        let sorted = samples.sorted()
        print(
            String(format: "search per query: median %.0f ns  (min %.0f, max %.0f, %d runs)", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1], runs)
                + "  [\(found)]")
    }
}
