/// A value-type logger passed down from the composition root; never created inside a library.
///
/// It carries a minimum level and the sink that receives lines at or above it. Copies share the
/// sink, which owns any mutable state (see ``LogSink``).
package struct Logger: Sendable {
    /// Where formatted lines go.
    package let sink: any LogSink
    /// Lines below this level are dropped before they are formatted.
    package var level: LogLevel
    /// A short component name printed with each line (`http`, `store`, `app`).
    package var label: String

    package init(label: String, level: LogLevel = .info, sink: any LogSink) {
        self.label = label
        self.level = level
        self.sink = sink
    }

    /// A logger that drops everything, for code under test that does not care.
    package static func discarding() -> Logger {
        Logger(label: "discard", level: .error, sink: DiscardingLogSink())
    }

    /// A copy of this logger with another component label.
    package func labeled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// Whether a line at `level` would be written; check before building an expensive message.
    package func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        sink.write(LogRecord(level: level, label: label, message: message()))
    }

    /// Hands `lines` to the sink, if there are any and their level is on, and empties them.
    package func write(_ lines: inout LogLines) {
        guard !lines.isEmpty else { return }
        if isEnabled(lines.level) { sink.write(lines) }
        lines.removeAll()
    }

    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
