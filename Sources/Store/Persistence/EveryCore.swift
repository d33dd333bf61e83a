import Dispatch
import Foundation

/// Work split over every core (`DispatchQueue.concurrentPerform`), each call's result kept in a
/// slot of its own.
enum EveryCore {
    /// `work(index)` for every index below `count`, in index order; the calls run at once, on as
    /// many threads as there are cores.
    /// `count` items cut into parts of at least `minimum` each, at most four a core (so a core
    /// that finishes early takes another): the index ranges, in order, covering `0..<count`.
    static func parts(of count: Int, atLeast minimum: Int) -> [Range<Int>] {
        let partCount = max(1, min(count / minimum, 4 * ProcessInfo.processInfo.activeProcessorCount))
        return (0..<partCount).map { part in count * part / partCount..<count * (part + 1) / partCount }
    }

    static func map<Result: Sendable>(_ count: Int, _ work: @Sendable (Int) -> Result) -> [Result] {
        var results = [Result?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { results in
            let slots = Slots(results: results)
            DispatchQueue.concurrentPerform(iterations: count) { index in
                slots.results[index] = work(index)
            }
        }
        return results.map { $0! }
    }

    /// `work(bytes, index)` for every index below `count`, in index order, each call reading the
    /// same `bytes`; the calls run at once, on as many threads as there are cores.
    ///
    /// The caller keeps `bytes` alive and unwritten until this returns (it calls this inside the
    /// `withUnsafeBytes` that lends them).
    static func map<Result: Sendable>(
        _ count: Int, reading bytes: UnsafeRawBufferPointer, _ work: @Sendable (UnsafeRawBufferPointer, Int) -> Result
    ) -> [Result] {
        let lent = LentBytes(bytes: bytes)
        return map(count) { index in work(lent.bytes, index) }
    }

    /// The result slots, lent to the threads of `concurrentPerform`.
    ///
    /// `@unchecked Sendable`, and safe: call `index` writes `results[index]` alone, so no two
    /// threads touch one slot; `concurrentPerform` returns only after every call has, so every
    /// write happens before the caller reads the slots; and the pointer outlives it (the
    /// caller's `withUnsafeMutableBufferPointer` closure encloses the call).
    private struct Slots<Result>: @unchecked Sendable {
        let results: UnsafeMutableBufferPointer<Result?>
    }

    /// Bytes lent to the threads of `concurrentPerform` for reading.
    ///
    /// `@unchecked Sendable`, and safe: the pointer is immutable, so the calls only read the
    /// bytes; `map(_:reading:_:)`'s caller writes none of them and keeps them alive until it
    /// returns, which `concurrentPerform` does only after every call has.
    private struct LentBytes: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }
}
