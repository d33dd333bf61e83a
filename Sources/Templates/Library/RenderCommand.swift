package import Foundation

/// `quotebook render NAME [--templates DIR] [--repeat N]`: renders template `NAME` (file
/// `NAME.mustache` in `DIR`, default `Templates`) with the JSON context read from standard input,
/// for checking templates and benchmarking from the shell.
///
/// The output is exactly the rendered bytes, with no newline added. `--repeat N` renders N times
/// (N ≥ 1) and outputs the last. Empty standard input means an empty object. Partials resolve
/// from the same directory; every template in it must parse.
package enum RenderCommand {
    /// The usage line, shown with argument errors.
    package static let usage = "usage: quotebook render NAME [--templates DIR] [--repeat N] < context.json"

    /// Runs the command on `arguments` (the words after `render`) without touching the process:
    /// returns what to write to standard output, the message for standard error (without
    /// trailing newline), and the exit status: 0 on success, 1 for a missing or broken template
    /// or invalid JSON, 64 for bad arguments.
    package static func run(
        arguments: [String], standardInput: Data
    ) -> (output: Data, error: String?, exitCode: Int32) {
        let options: Options
        switch Options.parse(arguments) {
        case .success(let parsed): options = parsed
        case .failure(let message): return (Data(), message + "\n" + usage, 64)
        }
        do {
            let context = try Self.context(from: standardInput)
            let library = try TemplateLibrary(directory: URL(fileURLWithPath: options.directory, isDirectory: true))
            guard library.contains(options.name) else {
                return (
                    Data(),
                    "no template named '\(options.name)' (no \(options.name).mustache in \(options.directory))", 1
                )
            }
            var bytes: [UInt8] = []
            for _ in 0..<options.repetitions {
                bytes = try library.renderBytes(options.name, context: context)
            }
            return (Data(bytes), nil, 0)
        } catch {
            return (Data(), error.description, 1)
        }
    }

    /// The context is one JSON value; empty input is not JSON and is refused like any other
    /// invalid input (pass `{}` for an empty context).
    private static func context(from input: Data) throws(TemplateError) -> TemplateValue {
        try TemplateValue(json: input)
    }

    /// The parsed words.
    private struct Options {
        var name: String
        var directory = "Templates"
        var repetitions = 1

        enum Parsed {
            case success(Options)
            case failure(String)
        }

        static func parse(_ words: [String]) -> Parsed {
            var name: String?
            var directory = "Templates"
            var repetitions = 1
            var index = 0
            while index < words.count {
                let word = words[index]
                switch word {
                case "--templates", "--repeat":
                    guard index + 1 < words.count else { return .failure("\(word) needs a value") }
                    let value = words[index + 1]
                    if word == "--templates" {
                        directory = value
                    } else {
                        guard let count = Int(value), count >= 1 else {
                            return .failure("--repeat needs a whole number of at least 1, not '\(value)'")
                        }
                        repetitions = count
                    }
                    index += 2
                default:
                    guard !word.hasPrefix("-") else { return .failure("unknown option '\(word)'") }
                    guard name == nil else { return .failure("unexpected argument '\(word)'") }
                    name = word
                    index += 1
                }
            }
            guard let name else { return .failure("missing template NAME") }
            return .success(Options(name: name, directory: directory, repetitions: repetitions))
        }
    }
}
