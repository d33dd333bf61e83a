package import App
package import Foundation
package import HTTPServer
package import Logging
package import Store
import Templates

/// The app wired as `main.swift` wires it, but on a database the test chooses (in memory by
/// default), a fixed clock, and the repository's templates (or a copy, for `--dev` reloading)
/// and public files.
package struct TestApp: Sendable {
    package let store: Store
    package let coordinator: AppCoordinator
    package let logSink: InMemoryLogSink

    /// The clock every test app uses: 2026-11-22 07:00 UTC.
    package static let fixedNow = Date(timeIntervalSince1970: 1_795_330_800)

    package init(
        journalPath: String = ":memory:", seed: [AppAction] = SeedContent.actions(at: TestApp.fixedNow),
        isDevelopment: Bool = false, templates: URL = RepositoryPaths.templates
    ) throws {
        logSink = InMemoryLogSink()
        let logger = Logger(label: "test", level: .debug, sink: logSink)
        store = try Store(journal: try SQLiteJournal(path: journalPath), seed: seed, logger: logger)
        let dependencies = Dependencies(
            store: store,
            now: { TestApp.fixedNow },
            templates: isDevelopment
                ? .reloading(try TemplateReloader(directory: templates)) : .compiled(try TemplateLibrary(directory: templates)),
            staticFiles: StaticFiles(root: RepositoryPaths.publicFiles),
            isDevelopment: isDevelopment,
            logger: logger
        )
        coordinator = AppCoordinator(dependencies: dependencies)
    }

    /// Sends `request` through the coordinator tree, as the server would.
    package func respond(_ request: HTTPRequest) async -> HTTPResponse {
        await coordinator.respond(to: request)
    }

    package func get(_ target: String) async -> HTTPResponse {
        await respond(HTTPRequest(method: .get, target: target, headers: ["Host": "test"]))
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`.
    package func post(_ target: String, form fields: KeyValuePairs<String, String>) async -> HTTPResponse {
        await respond(.form(target, fields))
    }
}

extension HTTPRequest {
    /// A POST with `fields` encoded as `application/x-www-form-urlencoded`.
    package static func form(_ target: String, _ fields: KeyValuePairs<String, String>) -> HTTPRequest {
        let body = fields.map { "\(URLEncodedForm.encode($0.key))=\(URLEncodedForm.encode($0.value))" }.joined(separator: "&")
        return HTTPRequest(
            method: .post, target: target,
            headers: ["Host": "test", "Content-Type": "application/x-www-form-urlencoded"],
            body: Array(body.utf8)
        )
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
}
