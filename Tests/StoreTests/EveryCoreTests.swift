import Foundation
import Testing

@testable import Store

/// Work cut for every core: the parts cover the items in order, each holds at least the minimum
/// (but a list shorter than it is one part), and there are at most four a core.
@Suite struct EveryCoreTests {
    @Test(arguments: [0, 1, 127, 128, 255, 256, 1_000, 100_000])
    func thePartsCoverTheItemsInOrder(count: Int) {
        let parts = EveryCore.parts(of: count, atLeast: 128)
        #expect(parts.first?.lowerBound == 0 && parts.last?.upperBound == count)
        #expect(zip(parts, parts.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(parts.count <= max(1, 4 * ProcessInfo.processInfo.activeProcessorCount))
        if count >= 128 { #expect(parts.allSatisfy { $0.count >= 128 }) } else { #expect(parts.count == 1) }
    }

    @Test func eachIndexIsWorkedOnceAndTheResultsKeepTheirOrder() {
        #expect(EveryCore.map(100) { $0 * $0 } == (0..<100).map { $0 * $0 })
    }
}
