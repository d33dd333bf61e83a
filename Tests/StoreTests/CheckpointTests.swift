import Foundation
import StoreSQLite
import Testing
import TestSupport

/// The TRUNCATE checkpoint after an erasure (``SQLiteConnection/checkpointTruncating(waitingAtMost:)``)
/// empties the write-ahead log when nobody reads, and gives up soon, saying so, while a reader
/// (a backup) holds the log: it never keeps writers out for the connection's 5 s.
@Suite struct CheckpointTests {
    @Test func emptiesTheLogWhenNobodyReadsAndGivesUpSoonWhileSomeoneDoes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("book.sqlite3").path
        let writer = try SQLiteConnection(path: path)
        try writer.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x TEXT);")
        for index in 0..<50 { try writer.execute("INSERT INTO t VALUES ('row \(index) \(String(repeating: "y", count: 400))')") }
        let wal = path + "-wal"
        func walBytes() throws -> Int { (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0 }
        #expect(try walBytes() > 0)
        #expect(writer.checkpointTruncating(waitingAtMost: 100), "nobody reads: done")
        #expect(try walBytes() == 0, "and the log emptied")

        try writer.execute("INSERT INTO t VALUES ('after')")
        let reader = try SQLiteConnection(path: path)
        try reader.execute("BEGIN")
        #expect(try reader.prepare("SELECT count(*) FROM t").rows([], { $0.int(at: 0) }) == [51])
        let start = ContinuousClock.now
        #expect(!writer.checkpointTruncating(waitingAtMost: 100), "a reader holds the log")
        #expect(ContinuousClock.now - start < .seconds(2.5), "not the connection's 5 s")
        try writer.execute("INSERT INTO t VALUES ('still writing')")
        try reader.execute("COMMIT")
        #expect(writer.checkpointTruncating(waitingAtMost: 100), "the reader gone, the next one finishes")
        #expect(try walBytes() == 0)
        reader.close()
        writer.close()
    }
}
