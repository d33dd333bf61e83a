// Renders the shared benchmark page (shared/bench/templates/fixtures: mustache/*.mustache with
// context.json) N times, checks the output is byte-identical to expected.html, and prints
// renders per second (median of batches). `--iterations 0` does everything but render, as the
// zero baseline for instruction counts under callgrind.
//
// usage: TemplatesBenchmark [--fixtures DIR] [--iterations N] [--batches B]

import Foundation
import Templates

/// What the command line asked for.
struct BenchmarkOptions {
    var fixtures = "../shared/bench/templates/fixtures"
    var iterations = 20_000
    var batches = 7

    init(arguments: [String]) {
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--fixtures": fixtures = value
            case "--iterations": iterations = Int(value) ?? -1
            case "--batches": batches = Int(value) ?? -1
            default: Self.fail("unknown argument '\(arguments[index])'", status: 64)
            }
            index += 2
        }
        guard iterations >= 0, batches >= 1 else {
            Self.fail("usage: TemplatesBenchmark [--fixtures DIR] [--iterations N] [--batches B]", status: 64)
        }
    }

    static func fail(_ message: String, status: Int32 = 1) -> Never {
        FileHandle.standardError.write(Data("TemplatesBenchmark: \(message)\n".utf8))
        exit(status)
    }
}

let options = BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
let fixtures = URL(fileURLWithPath: options.fixtures, isDirectory: true)
let library: TemplateLibrary
let context: TemplateValue
let expected: Data
do {
    library = try TemplateLibrary(directory: fixtures.appendingPathComponent("mustache", isDirectory: true))
    context = try TemplateValue(json: Data(contentsOf: fixtures.appendingPathComponent("context.json")))
    expected = try Data(contentsOf: fixtures.appendingPathComponent("expected.html"))
} catch {
    BenchmarkOptions.fail("cannot load fixtures from \(options.fixtures): \(error)")
}

guard options.iterations > 0 else {
    print("loaded \(library.names.joined(separator: ", ")) and context; 0 renders")
    exit(0)
}

var rates: [Double] = []
var checked = false
var totalBytes = 0
let clock = ContinuousClock()
let batches = min(options.batches, options.iterations)
for batch in 0..<batches {
    let count = options.iterations / batches + (batch < options.iterations % batches ? 1 : 0)
    let start = clock.now
    for _ in 0..<count {
        let page: String
        do {
            page = try library.render("page", context: context)
        } catch {
            BenchmarkOptions.fail("render failed: \(error)")
        }
        totalBytes &+= page.utf8.count
        if !checked {
            guard Data(page.utf8) == expected else {
                try? Data(page.utf8).write(to: URL(fileURLWithPath: "/tmp/TemplatesBenchmark-actual.html"))
                BenchmarkOptions.fail(
                    "output differs from expected.html (\(page.utf8.count) vs \(expected.count) bytes); "
                        + "wrote /tmp/TemplatesBenchmark-actual.html")
            }
            checked = true
        }
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    rates.append(Double(count) / seconds)
}
rates.sort()
let median = rates[rates.count / 2]
print(
    "page: \(expected.count) bytes, identical to expected.html; \(options.iterations) renders in \(rates.count) batches; "
        + "median \(Int(median.rounded())) renders/s (\(Int((1e9 / median).rounded())) ns/render), "
        + "min \(Int(rates.first!.rounded())), max \(Int(rates.last!.rounded())) [bytes \(totalBytes)]")
