package import Foundation

/// How the live parts of pages behave: the event streams' heartbeat and, with `--dev`, which
/// folders make every open page reload when a file in them changes.
package struct LiveSettings: Sendable {
    /// How often an open event stream gets a heartbeat comment (15 s; tests use milliseconds).
    package var heartbeatInterval: Duration
    /// `--dev`: `Templates/` and `Public/`; empty outside development.
    package var watchedFolders: [URL]
    /// `--dev`: how often each open page's stream looks at ``watchedFolders``.
    package var watchInterval: Duration

    package init(
        heartbeatInterval: Duration = .seconds(15), watchedFolders: [URL] = [], watchInterval: Duration = .milliseconds(250)
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.watchedFolders = watchedFolders
        self.watchInterval = watchInterval
    }
}
