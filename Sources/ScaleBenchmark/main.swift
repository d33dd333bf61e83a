// Builds a big book for Benchmarks/scale.sh: a data directory whose journal holds ACTIONS actions
// leaving QUOTES quotes, with the snapshot TAIL entries before the end (the most a start-up
// replays is one snapshot interval less one), written in one transaction so it takes seconds.
//
// usage: ScaleBenchmark build DIR [--quotes N] [--actions N] [--tail N]
//        (defaults: 100000 quotes, 300000 actions, tail 999)
//        ScaleBenchmark phases DIR [--runs N]   times the parts that grow with the book, in process
//        (PhaseTimer); rewrites DIR's snapshot with the same state.
//        ScaleBenchmark search DIR [--runs N]   times byte searches with nothing kept, on the whole
//        book and on its first quotes (SearchTimer).
//        ScaleBenchmark queries FILE [--quotes N] [--runs N]   times byte searches of a small book
//        like pages.sh's (default 200 quotes) for every query in FILE (QueryTimer).
//        ScaleBenchmark history DIR [--versions N] [--writers N] [--reads N] [--rounds N]   times a quote's newest
//        history page in a new book in DIR (removed after), idle and under writers (HistoryTimer).
import Foundation
import Store
import StoreSQLite

/// Stops with a message on standard error and status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ScaleBenchmark: \(message)\n".utf8))
    exit(1)
}

/// The value after `flag` on the command line as a number, else `fallback`.
func number(after flag: String, in arguments: [String], default fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: flag) else { return fallback }
    guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 0 else {
        fail("\(flag) needs a number")
    }
    return value
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, ["build", "phases", "search", "queries", "history"].contains(arguments[0]) else {
    fail(
        "usage: ScaleBenchmark build DIR [--quotes N] [--actions N] [--tail N] | phases DIR [--runs N] | search DIR [--runs N]"
            + " | queries FILE [--quotes N] [--runs N] | history DIR [--versions N] [--writers N] [--reads N] [--rounds N]")
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
if arguments[0] == "history" {
    do {
        try await HistoryTimer(
            directory: directory, versions: max(50, number(after: "--versions", in: arguments, default: 2_000)),
            writers: max(1, number(after: "--writers", in: arguments, default: 16)),
            reads: max(1, number(after: "--reads", in: arguments, default: 200)),
            rounds: max(1, number(after: "--rounds", in: arguments, default: 3))
        ).run()
    } catch {
        fail("\(error)")
    }
    exit(0)
}
if arguments[0] == "search" {
    do {
        try SearchTimer(directory: directory, runs: number(after: "--runs", in: arguments, default: 9)).run()
    } catch {
        fail("\(error)")
    }
    exit(0)
}
if arguments[0] == "queries" {
    do {
        try QueryTimer(
            queriesPath: arguments[1], quoteCount: max(1, number(after: "--quotes", in: arguments, default: 200)),
            runs: max(1, number(after: "--runs", in: arguments, default: 9))
        ).run()
    } catch {
        fail("\(error)")
    }
    exit(0)
}
if arguments[0] == "phases" {
    let timer = PhaseTimer(directory: directory, runs: number(after: "--runs", in: arguments, default: 7))
    do {
        try timer.run()
        try await timer.timeDispatch()
    } catch {
        fail("\(error)")
    }
    exit(0)
}
let quoteCount = number(after: "--quotes", in: arguments, default: 100_000)
let actionCount = number(after: "--actions", in: arguments, default: 300_000)
let tail = number(after: "--tail", in: arguments, default: 999)

let started = Date()
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("quotebook.sqlite3").path
    guard !FileManager.default.fileExists(atPath: path) else { fail("\(path) exists already; pass an empty directory") }
    // The journal creates the schema and writes the snapshot; the rows go in through a second
    // connection in one transaction (one fsync instead of 300,000).
    let journal = try SQLiteJournal(path: path)
    let bulk = try SQLiteConnection(path: path)
    let insert = try bulk.prepare("INSERT INTO journal (sequence, action, quote_id) VALUES (?, ?, ?)")
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var generator = BookGenerator(quoteCount: quoteCount, actionCount: actionCount)
    var snapshot: JournalSnapshot?
    var sequence: Int64 = 0
    try bulk.transaction { () throws(StoreError) in
        do {
            while let (action, quote) = try generator.next() {
                sequence += 1
                let json = String(decoding: try encoder.encode(action), as: UTF8.self)
                try insert.run([.integer(sequence), .text(json), quote.map { .integer(Int64($0.rawValue)) } ?? .null])
                if sequence == Int64(actionCount - tail) { snapshot = JournalSnapshot(sequence: sequence, state: generator.state) }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.sqlite(operation: "generate", code: 0, message: "\(error)")
        }
    }
    bulk.close()
    if let snapshot { try journal.saveSnapshot(snapshot) }
    journal.close()
    let state = generator.state
    let seconds = Date().timeIntervalSince(started)
    print(
        "built \(directory.path): \(sequence) actions, \(state.quotes.count) quotes, \(state.users.count) users, "
            + "snapshot at \(snapshot?.sequence ?? 0), in \(String(format: "%.1f", seconds)) s")
} catch {
    fail("\(error)")
}
