import Dispatch
import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// Exports read on a reader of their own (issue 29): one held export never makes a history page
/// wait, as it did when both shared the one serial history reader.
@Suite struct ExportReaderTests {
    @Test func aHistoryPageIsReadWhileAnExportIsHeld() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let gates = ReadGates()
        let journal = HoldingReadersJournal(inner: try SQLiteJournal(directory: directory.url), gates: gates)
        let store = try Store(
            journal: journal, seed: [.addQuote(QuoteDraft(text: "Kept", author: "Someone"), by: nil, at: date)], logger: .discarding())
        let id = try #require(store.state.quoteOrder.first)

        let export = Task { try await store.versions(madeBy: UserID(1)) }
        // Generous waits: under ThreadSanitizer beside the whole suite the process can stand
        // still for tens of seconds; with one shared reader the history read would never come.
        let began = await offPool { gates.exportHeld.wait(timeout: .now() + 120) == .success }
        guard began else {
            gates.release()
            Issue.record("the export never reached its reader")
            return
        }
        let history = Task { try await store.history(of: id, versions: 1...1) }
        let answered = await offPool { gates.historyRead.wait(timeout: .now() + 60) == .success }
        gates.release()
        #expect(answered, "the history page was read while the export was held")
        #expect(try await history.value.map(\.text) == ["Kept"])
        #expect(try await export.value.isEmpty)
        await store.close()
    }
}

/// What a test sees of the ``HoldingReadersJournal``'s readers, and the gate it opens.
final class ReadGates: Sendable {
    /// Signalled when a versions read has reached the gate.
    let exportHeld = DispatchSemaphore(value: 0)
    /// Signalled when a history read has answered.
    let historyRead = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)

    func release() {
        gate.signal()
    }

    fileprivate func holdExport() {
        exportHeld.signal()
        gate.wait()
    }
}

/// A journal whose history readers run their reads on a serial queue each, as the real ones do,
/// and hold any read of a person's versions at the gate until ``ReadGates/release()``.
final class HoldingReadersJournal: JournalWrapper {
    let inner: any JournalStorage
    let gates: ReadGates

    init(inner: any JournalStorage, gates: ReadGates) {
        self.inner = inner
        self.gates = gates
    }

    func makeHistoryReader() -> (any JournalHistoryReader)? {
        guard let reader = inner.makeHistoryReader() else { return nil }
        return HoldingReader(reader: reader, gates: gates)
    }
}

private final class HoldingReader: JournalHistoryReader {
    let reader: any JournalHistoryReader
    let gates: ReadGates
    let queue = DispatchQueue(label: "holding-reader")

    init(reader: any JournalHistoryReader, gates: ReadGates) {
        self.reader = reader
        self.gates = gates
    }

    /// Waits for this reader's queue, on which `body` runs first: reads take turns, as on one connection.
    private func turn(_ body: @escaping @Sendable () -> Void = {}) async {
        await withCheckedContinuation { continuation in
            queue.async {
                body()
                continuation.resume()
            }
        }
    }

    func actions(forQuote quote: QuoteID, offset: Int, limit: Int) async throws(StoreError) -> [AppAction] {
        await turn()
        let actions = try await reader.actions(forQuote: quote, offset: offset, limit: limit)
        gates.historyRead.signal()
        return actions
    }

    func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion] {
        await turn { [gates] in gates.holdExport() }
        return try await reader.versions(madeBy: person)
    }

    func close() async {
        await reader.close()
    }
}
