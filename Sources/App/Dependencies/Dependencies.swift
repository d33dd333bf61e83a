package import Foundation
package import HTTPServer
package import Logging
package import Store

/// Everything the app's coordinators and controllers need from outside, built once by the
/// composition root (`main.swift`) or a test, and passed down through initialisers.
package struct Dependencies: Sendable {
    package var store: Store
    /// The current time; tests pass a fixed one.
    package var now: @Sendable () -> Date
    package var templates: PageRenderer.Source
    package var staticFiles: StaticFiles
    /// `--dev`: error pages show details.
    package var isDevelopment: Bool
    package var logger: Logger

    package init(
        store: Store, now: @escaping @Sendable () -> Date, templates: PageRenderer.Source,
        staticFiles: StaticFiles, isDevelopment: Bool, logger: Logger
    ) {
        self.store = store
        self.now = now
        self.templates = templates
        self.staticFiles = staticFiles
        self.isDevelopment = isDevelopment
        self.logger = logger
    }
}
