import Synchronization

/// How many requests were answered, by route (``RouteLabel``) and status code: a table of
/// atomic counters allocated whole at start-up, a row per route label in the order labels are
/// first counted.
///
/// Counting a request finds its label's row (one dictionary look-up under a lock held for just
/// that), then a byte load (the status code's column) and one relaxed atomic add: no allocation
/// and no reference counting, whatever the code. Any code without a column of its own is counted
/// under `other`, so the `status` label's values are a fixed set too; the route labels are the
/// route enums' names, a fixed set spelled in code.
///
/// Ownership: the table is immutable but for its `Atomic` counters, which any event loop or task
/// adds to and the exposition reads, and the rows' index, in a `Mutex`. Relaxed ordering is
/// enough: a counter orders nothing else, and a scrape needs each counter's latest value, not a
/// snapshot consistent across counters.
package final class HTTPRequestCounters: Sendable {
    /// Status codes with a column of their own, ascending: those RFC 9110 §15 defines, plus 429
    /// and 431 (RFC 6585). The column after the last is `other`.
    static let codes = [
        100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417,
        421, 422, 426, 429, 431, 500, 501, 502, 503, 504, 505,
    ]
    /// A counter per column: ``codes`` plus `other`.
    private typealias Row = InlineArray<47, Atomic<UInt64>>
    /// A row per ``RouteLabel``, with room for twice the routes there are.
    private typealias Table = InlineArray<64, Row>

    private let table: Table
    /// Each label's row, and the labels in row order.
    private let rows = Mutex<(index: [RouteLabel: Int], labels: [RouteLabel])>(([:], []))
    /// The column of each status code below 600 (the column of `other` for codes not in ``codes``).
    private let columns: [UInt8]

    package init() {
        precondition(Self.codes.count + 1 == Row.count, "one column per code, plus other")
        table = Table { _ in Row { _ in Atomic<UInt64>(0) } }
        var columns = [UInt8](repeating: UInt8(Self.codes.count), count: 600)
        for (column, code) in Self.codes.enumerated() { columns[code] = UInt8(column) }
        self.columns = columns
    }

    /// Counts one request that `route` answered with `status`.
    package func count(_ route: RouteLabel, status: Int) {
        guard let row = row(for: route, adding: true) else { return }
        table[row][column(for: status)].wrappingAdd(1, ordering: .relaxed)
    }

    /// The requests `route` answered with `status` (all those counted as `other` when `status`
    /// has no column of its own).
    package func value(_ route: RouteLabel, status: Int) -> UInt64 {
        guard let row = row(for: route, adding: false) else { return 0 }
        return table[row][column(for: status)].load(ordering: .relaxed)
    }

    /// The row of `label`; a new one when `adding` and there is room (past the table's rows, a
    /// label is not counted: a test catches it long before, as the table has twice the routes).
    private func row(for label: RouteLabel, adding: Bool) -> Int? {
        rows.withLock { rows in
            if let row = rows.index[label] { return row }
            guard adding, rows.labels.count < Table.count else { return nil }
            rows.index[label] = rows.labels.count
            rows.labels.append(label)
            return rows.labels.count - 1
        }
    }

    private func column(for status: Int) -> Int {
        status >= 0 && status < columns.count ? Int(columns[status]) : Self.codes.count
    }

    /// Every counter above zero, by route label in alphabetical order, then by status code
    /// (`other` last): the order the exposition prints them in.
    package func nonZero() -> [(route: RouteLabel, status: String, count: UInt64)] {
        var result: [(route: RouteLabel, status: String, count: UInt64)] = []
        let labels = rows.withLock { $0.labels }
        for (row, route) in labels.enumerated().sorted(by: { $0.element.value < $1.element.value }) {
            for column in 0..<Row.count {
                let count = table[row][column].load(ordering: .relaxed)
                guard count > 0 else { continue }
                result.append((route, column < Self.codes.count ? String(Self.codes[column]) : "other", count))
            }
        }
        return result
    }
}
