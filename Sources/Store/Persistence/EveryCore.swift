import Dispatch

/// Work split over every core (`DispatchQueue.concurrentPerform`), each call's result kept in a
/// slot of its own.
enum EveryCore {
    /// `work(index)` for every index below `count`, in index order; the calls run at once, on as
    /// many threads as there are cores.
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

    /// The result slots, lent to the threads of `concurrentPerform`.
    ///
    /// `@unchecked Sendable`, and safe: call `index` writes `results[index]` alone, so no two
    /// threads touch one slot; `concurrentPerform` returns only after every call has, so every
    /// write happens before the caller reads the slots; and the pointer outlives it (the
    /// caller's `withUnsafeMutableBufferPointer` closure encloses the call).
    private struct Slots<Result>: @unchecked Sendable {
        let results: UnsafeMutableBufferPointer<Result?>
    }
}
