// The benchmark app of ../shared/bench/servers/README.md ("The app every peer serves") on
// our HTTPServer and Templates: GET / renders the favourite-quote page from two Mustache
// templates per request, GET /site.css is a static file, POST /quote replaces the quote (303).
//
// Environment: PORT (default 8080), CSRF_TOKEN (default: random per process), BENCH_ROOT (a
// folder holding Templates/ and Public/, as the peers have; default: the shared bench assets,
// ../shared/bench/servers/assets/mustache and its site.css, beside this repository), LOG_LEVEL (default notice: no per-request log),
// RESPONDER_EXECUTION (`pool` or `loop`: ResponderExecution; default: the server's default).
import Foundation
import HTTPServer
import Logging
import Synchronization
import Templates

/// The favourite quote, shared by every request.
final class QuoteStore: Sendable {
    struct Quote: Sendable {
        var text: String
        var author: String
    }

    private let state = Mutex(
        Quote(
            text: "Two things are infinite: the universe and human stupidity; and I'm not sure about the universe.",
            author: "Albert Einstein"))

    var current: Quote { state.withLock { $0 } }

    func replace(with quote: Quote) { state.withLock { $0 = quote } }
}

/// Routes the three endpoints of the benchmark app.
struct BenchmarkResponder: HTTPResponder {
    let library: TemplateLibrary
    let files: StaticFiles
    let store: QuoteStore
    let csrf: String

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case (.get, "/"), (.head, "/"):
            let quote = store.current
            let context = TemplateValue.object([
                "title": .string("Favorite quote"), "text": .string(quote.text), "author": .string(quote.author),
                "csrf": .string(csrf),
            ])
            guard let html = try? library.renderBytes("index", context: context) else {
                return .text("template error", status: .internalServerError)
            }
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8"], body: html)
        case (.post, "/quote"):
            guard let form = try? URLEncodedForm(request.body) else { return .text("bad form", status: .badRequest) }
            guard form["csrf"] == csrf else { return .text("forbidden", status: .forbidden) }
            store.replace(with: .init(text: form["text"] ?? "", author: form["author"] ?? ""))
            return .seeOther("/")
        default:
            return files.response(for: request) ?? .text("not found", status: .notFound)
        }
    }
}

let environment = ProcessInfo.processInfo.environment
let port = Int(environment["PORT"] ?? "") ?? 8080
let csrf =
    environment["CSRF_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    ?? (0..<16).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
let templatesFolder: URL
let publicFolder: URL
if let configured = environment["BENCH_ROOT"] {
    let root = URL(fileURLWithPath: configured)
    templatesFolder = root.appendingPathComponent("Templates")
    publicFolder = root.appendingPathComponent("Public")
} else {
    // The shared assets beside this repository: templates in mustache/, the stylesheet next to them.
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let assets = repository.appendingPathComponent("../shared/bench/servers/assets").standardized
    templatesFolder = assets.appendingPathComponent("mustache")
    publicFolder = assets
}
let level = environment["LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? .notice
let logger = Logger(label: "bench", level: level, sink: StandardErrorLogSink())

do {
    let library = try TemplateLibrary(directory: templatesFolder)
    let responder = BenchmarkResponder(
        library: library, files: StaticFiles(root: publicFolder), store: QuoteStore(), csrf: csrf)
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: port)
    if environment["RESPONDER_EXECUTION"] == "pool" { configuration.responderExecution = .cooperativePool }
    if environment["RESPONDER_EXECUTION"] == "loop" { configuration.responderExecution = .eventLoop }
    let server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
    let bound = try server.start()
    FileHandle.standardOutput.write(Data("ServerBenchmark listening on http://127.0.0.1:\(bound)\n".utf8))
    await server.run()
} catch {
    FileHandle.standardError.write(Data("ServerBenchmark: \(error)\n".utf8))
    exit(1)
}
