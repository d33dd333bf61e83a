/// Severity of a log line, ordered from chattiest to most severe.
package enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    /// Parses the names accepted by `--log-level` (`trace` … `error`).
    package init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.description == name.lowercased() }) else {
            return nil
        }
        self = level
    }

    package var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
