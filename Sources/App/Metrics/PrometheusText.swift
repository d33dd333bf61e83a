/// Writes counters in the Prometheus text exposition format, version 0.0.4
/// (prometheus.io/docs/instrumenting/exposition_formats/#text-based-format).
///
/// Each family is a `# HELP` line, a `# TYPE` line and its samples, one per line, each line
/// ended by `\n`. Names and label names are the caller's constants and must match
/// `[a-zA-Z_:][a-zA-Z0-9_:]*`; label values and help text are escaped here, so any string is
/// safe in them.
package struct PrometheusText {
    /// The `Content-Type` of a response carrying this format.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition so far.
    package private(set) var text = ""

    package init() {}

    /// A sample: its label pairs, in the order printed, and its value.
    package typealias Sample = (labels: [(name: String, value: String)], value: UInt64)

    /// Appends a counter family: `name`'s help and type lines, then `samples` in the order given.
    /// A family without samples still declares itself, so a scraper knows the metric exists.
    package mutating func appendCounter(_ name: String, help: String, samples: [Sample]) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) counter\n"
        for sample in samples {
            text += name
            if !sample.labels.isEmpty {
                text += "{" + sample.labels.map { "\($0.name)=\"\(Self.escapedLabelValue($0.value))\"" }.joined(separator: ",") + "}"
            }
            text += " \(sample.value)\n"
        }
    }

    /// A label value as the format writes it: backslash, double quote and line feed escaped as
    /// `\\`, `\"` and `\n`.
    package static func escapedLabelValue(_ value: String) -> String {
        escaped(value, quote: true)
    }

    /// Help text as the format writes it: backslash and line feed escaped as `\\` and `\n`.
    package static func escapedHelp(_ help: String) -> String {
        escaped(help, quote: false)
    }

    private static func escaped(_ text: String, quote: Bool) -> String {
        // Scalars, not characters: "\r\n" is one `Character`, and its line feed must be escaped too.
        guard text.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\n" || (quote && $0 == "\"") }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quote: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
