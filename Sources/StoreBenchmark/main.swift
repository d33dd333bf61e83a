// Durable saves per second through the real Store on a real file (WAL, synchronous=FULL), with
// W writers saving at once, each waiting for its save to be answered before the next, as a
// person's browser does. Uses only the Store's long-standing API (init, dispatch, close), so
// the same source measures any version of the store: Benchmarks/group-commit.sh builds it
// against the store before group commit and after, and runs the two side by side.
//
// usage: StoreBenchmark LABEL WRITERS [SECONDS] [WARMUP_SECONDS] [DIRECTORY]
// prints one tab-separated line:
//   label writers saves saves_per_s p50_ms p90_ms p99_ms
import Foundation
import Logging
import Store
import StoreSQLite

/// One answered save: when it was answered and how long it took.
struct Sample: Sendable {
    var answeredAt: ContinuousClock.Instant
    var latency: Duration
}

/// Stops with a message (bad arguments, or the store failing).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StoreBenchmark: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let writers = Int(arguments[arguments.startIndex + 1]), writers > 0 else {
    fail("usage: StoreBenchmark LABEL WRITERS [SECONDS] [WARMUP_SECONDS] [DIRECTORY]")
}
let label = arguments[arguments.startIndex]
let seconds = arguments.dropFirst(2).first.flatMap(Double.init) ?? 3
let warmup = arguments.dropFirst(3).first.flatMap(Double.init) ?? 0.5
let parent = arguments.dropFirst(4).first.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
let directory = parent.appendingPathComponent("store-benchmark-\(UUID().uuidString)")

let date = Date(timeIntervalSince1970: 1_000)
var seed: [AppAction] = []
for writer in 1...writers {
    guard let username = Username("writer\(writer)") else { fail("writer\(writer) is not a username") }
    seed.append(.signUp(username, displayName: "Writer \(writer)", at: date))
}
let store: Store
do {
    store = try Store(journal: try SQLiteJournal(directory: directory), seed: seed, logger: .discarding())
} catch {
    fail("\(error)")
}

let clock = ContinuousClock()
let start = clock.now
let measuredFrom = start + .seconds(warmup)
let end = measuredFrom + .seconds(seconds)
let samples = await withTaskGroup(of: [Sample].self) { group in
    for writer in 1...writers {
        group.addTask {
            var samples: [Sample] = []
            var count = 0
            while clock.now < end {
                count += 1
                let before = clock.now
                do {
                    let result = try await store.dispatch(.changeDisplayName(UserID(writer), to: "Writer \(writer) #\(count)", at: date))
                    guard case .success = result else { fail("save refused: \(result)") }
                } catch {
                    fail("\(error)")
                }
                let after = clock.now
                samples.append(Sample(answeredAt: after, latency: after - before))
            }
            return samples
        }
    }
    var all: [Sample] = []
    for await part in group { all += part }
    return all
}
await store.close()
try? FileManager.default.removeItem(at: directory)

let measured = samples.filter { $0.answeredAt >= measuredFrom && $0.answeredAt <= end }.map(\.latency).sorted()
guard !measured.isEmpty else { fail("no save was answered in the measured window") }
/// The latency at quantile `q` of the measured saves, in milliseconds.
func milliseconds(at q: Double) -> String {
    let index = min(measured.count - 1, Int((Double(measured.count) * q).rounded(.down)))
    let (whole, attoseconds) = measured[index].components
    return String(format: "%.3f", Double(whole) * 1_000 + Double(attoseconds) / 1e15)
}
print(
    [label, "\(writers)", "\(measured.count)", String(format: "%.0f", Double(measured.count) / seconds),
     milliseconds(at: 0.5), milliseconds(at: 0.9), milliseconds(at: 0.99)].joined(separator: "\t"))
exit(0)
