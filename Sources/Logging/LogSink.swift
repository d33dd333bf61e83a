import Basics
import Foundation
import Glibc
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

    /// `level [label] `: how every written line starts.
    package static func linePrefix(level: LogLevel, label: String) -> String {
        "\(level.description) [\(label)] "
    }
}

/// The pluggable end of logging: receives records and owns whatever state writing needs.
package protocol LogSink: Sendable {
    func write(_ record: LogRecord)
    /// Many lines at once (``LogLines``); by default, each as a record.
    func write(_ lines: LogLines)
}

extension LogSink {
    package func write(_ lines: LogLines) {
        for message in lines.messages { write(LogRecord(level: lines.level, label: lines.label, message: message)) }
    }
}

/// Writes `level [label] message` lines to standard error, one `write(2)` per line (or per batch
/// of ``LogLines``) so lines from concurrent threads never interleave.
package struct StandardErrorLogSink: LogSink {
    package init() {}

    package func write(_ record: LogRecord) {
        // Built once and written straight from its UTF-8 storage: no `Data`, no `FileHandle`
        // (which cost a copy and most of an access line's time on every request).
        var line = LogRecord.linePrefix(level: record.level, label: record.label)
        line.reserveCapacity(line.utf8.count + record.message.utf8.count + 1)
        line += record.message
        line += "\n"
        line.withUTF8 { _ = SystemCall.writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
    }

    /// Every line in one `write(2)` (unless the kernel takes less): lines already in this
    /// sink's format.
    package func write(_ lines: LogLines) {
        lines.bytes.withUnsafeBytes { _ = SystemCall.writeAll($0, to: STDERR_FILENO) }
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
