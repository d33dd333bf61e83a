import Foundation
import Synchronization

/// One line handed to a sink.
package struct LogRecord: Sendable, Equatable {
    package var level: LogLevel
    package var label: String
    package var message: String

    package init(level: LogLevel, label: String, message: String) {
        self.level = level
        self.label = label
        self.message = message
    }
}

/// The pluggable end of logging: receives records and owns whatever state writing needs.
package protocol LogSink: Sendable {
    func write(_ record: LogRecord)
}

/// Writes `LEVEL [label] message` lines to standard error, one `write(2)` per line so lines
/// from concurrent threads never interleave.
package struct StandardErrorLogSink: LogSink {
    package init() {}

    package func write(_ record: LogRecord) {
        let line = "\(record.level) [\(record.label)] \(record.message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Keeps records in memory so tests can assert on what was logged.
package final class InMemoryLogSink: LogSink {
    private let records = Mutex<[LogRecord]>([])

    package init() {}

    package func write(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }

    /// Everything written so far, oldest first.
    package var entries: [LogRecord] { records.withLock { $0 } }
}

/// Drops every record.
package struct DiscardingLogSink: LogSink {
    package init() {}
    package func write(_ record: LogRecord) {}
}
