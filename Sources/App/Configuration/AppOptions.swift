package import Foundation
package import HTTPServer
package import Logging
package import Store

/// The command line and `QUOTEBOOK_*` environment, parsed: flags win over the environment,
/// the environment over defaults (SPEC.md "Running").
package struct AppOptions: Sendable, Equatable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// Where the SQLite database lives (unused with ``database``).
    package var dataDirectory = URL(fileURLWithPath: "data", isDirectory: true)
    /// `--database postgres://…`: keep everything in PostgreSQL, shared by every instance on it;
    /// nil (the default, also for an empty value) keeps SQLite under ``dataDirectory``. Read
    /// (and refused when unusable) where the backend is opened, not here; see ``DatabaseOption``.
    package var database: DatabaseOption?
    /// Folder holding `Templates/` and `Public/`; nil means "find it" (see ``resolveRoot``).
    package var root: URL?
    /// Re-read templates when they change and show error details.
    package var isDevelopment = false
    package var logLevel = LogLevel.info
    /// Request size limits (`--max-request-line`, `--max-header-bytes`, `--max-header-fields`,
    /// `--max-form-body`, `--max-upload-body`).
    package var limits = HTTPLimits()
    /// How long to wait on clients (`--header-timeout`, `--body-timeout`, `--idle-timeout`,
    /// `--write-timeout`, `--shutdown-grace`).
    package var timeouts = HTTPTimeouts()
    /// Event-loop threads; nil means one per core.
    package var eventLoops: Int?
    /// `--secure-cookies`: cookies carry `Secure` and the `__Host-` prefix (served over HTTPS behind a proxy).
    package var secureCookies = false
    /// Threads that hash passwords (`--hashing-threads`).
    package var hashingThreads = 2
    /// What one client address may have of sign-in, sign-up and the hashing pool
    /// (`--sign-ins-per-client`, `--sign-ups-per-client`, `--account-limit-window`,
    /// `--max-hashes-per-client`), and the sessions of one account (`--sessions-per-account`).
    package var accountLimits = AccountLimits()
    /// What one account and one client address may write to the book (`--writes-per-account`,
    /// `--writes-per-client`, `--write-limit-window`).
    package var writeLimits = WriteLimits()
    /// What one person and one client address may have of photo processing
    /// (`--photo-jobs-per-person`, `--photo-jobs-per-client`, `--photo-uploads-per-account`).
    package var photoLimits = PhotoUploadLimits()
    /// `--metrics`: count requests and actions, and serve the counters at `GET /metrics`.
    package var metrics = false
    /// `--trusted-proxies`: peers whose `X-Forwarded-For` names the client in the access log.
    package var trustedProxies = TrustedProxies()
    /// What one client address, and everyone together, may hold open (`--max-connections`,
    /// `--max-connections-per-client`, `--max-streams`, `--max-streams-per-client`); nil totals
    /// follow the descriptor limit.
    package var maxConnections: Int?
    package var maxConnectionsPerClient = HTTPServerConfiguration().maxConnectionsPerClient
    package var maxStreams: Int?
    package var maxStreamsPerClient = HTTPServerConfiguration().maxStreamsPerClient
    /// Mail: the relay, the sender, the links' address and the pause between tries.
    package var mail = MailOptions()

    package init() {}

    /// The server's configuration for these options.
    package var serverConfiguration: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(
            host: host, port: port, limits: limits, timeouts: timeouts,
            eventLoopCount: eventLoops ?? HTTPServerConfiguration.defaultEventLoopCount)
        configuration.trustedProxies = trustedProxies
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerClient = maxConnectionsPerClient
        configuration.maxStreams = maxStreams
        configuration.maxStreamsPerClient = maxStreamsPerClient
        // Uploads over 64 KiB go to files in $TMPDIR as they arrive (docs/photos.md).
        configuration.bodySpool = BodySpool(directory: FileManager.default.temporaryDirectory.path)
        return configuration
    }

    /// What the executable was asked to do.
    package enum Command: Equatable {
        case serve(AppOptions)
        case help
        /// `quotebook render …`, with the words after `render`.
        case render([String])
        /// `quotebook user add NAME [--display-name NAME]`: the password comes from standard input.
        case addUser(username: String, displayName: String?, options: AppOptions)
        /// `quotebook user role NAME moderator|member`: see ``RoleCommand``.
        case setRole(username: String, role: Role, options: AppOptions)
        /// `quotebook backup FILE [--data DIR]`: see ``BackupCommand``.
        case backup(file: String, options: AppOptions)
        /// `quotebook check [--data DIR | --database URL]`: see ``CheckCommand``.
        case check(AppOptions)
    }

    /// A flag or value the parser refused; the message is for the person who typed it.
    package struct ParseError: Error, CustomStringConvertible, Equatable {
        package let description: String

        package init(description: String) {
            self.description = description
        }

        /// `--help` or `-h` was given: not a failure, the caller prints the usage.
        static let helpRequested = ParseError(description: "--help")
    }

    /// The text `--help` prints.
    package static let usage = """
        Usage: quotebook [options]
               quotebook render NAME [--templates DIR] [--repeat N] < context.json
               quotebook user add NAME [--display-name NAME] [--data DIR | --database URL] < password
               quotebook user role NAME moderator|member [--data DIR | --database URL]
               quotebook backup FILE [--data DIR]
               quotebook check [--data DIR | --database URL]

        backup copies the SQLite book to the new file FILE while a server may be using it
        (to serve the copy, make it DIR/quotebook.sqlite3 and start with --data DIR; with
        --database use pg_dump instead). check replays the journal from its start, compares
        the result with the snapshot, the history index and the account tables, and exits 0
        when they agree, 1 when not.

        Serves Quotebook over HTTP. Every option can also be set as QUOTEBOOK_<NAME>
        (for example QUOTEBOOK_PORT=9000); a flag wins over the environment.

        Options:
          --host HOST        address to listen on (default 127.0.0.1)
          --port PORT        port to listen on; 0 picks a free one (default 8080)
          --data DIR         where the SQLite database is kept (default ./data)
          --database URL     postgres://USER[:PASSWORD]@HOST[:PORT]/DB: keep everything in
                             that PostgreSQL database instead, so several instances can
                             serve one book (default: SQLite under --data)
          --root DIR         folder holding Templates/ and Public/ (default: the current
                             directory, then the package root)
          --dev              re-read templates when they change; error pages show details
          --log-level LEVEL  trace, debug, info, notice, warning or error (default info)
          --secure-cookies   mark cookies Secure, named __Host-… (when served over HTTPS by a proxy)
          --hashing-threads N  threads that hash passwords (default 2)
          --metrics          count requests and store actions; serve them at GET /metrics
                             in the Prometheus text format (without it /metrics is a 404)
          --smtp URL         smtp://[USER:PASSWORD@]HOST[:PORT]: the relay mail goes through,
                             with STARTTLS whenever it offers it, and always with a password
                             (default: each mail is written to the log instead)
          --smtp-ca FILE     a CA certificate (PEM) to trust for the relay besides the system's
          --mail-from ADDRESS  the From address of mail (default quotebook@localhost)
          --public-url URL   the address people reach the app at, e.g.
                             https://quotes.example.org: links in mail use it (default: the
                             address the server listens on)
          --mail-retry-delay SECONDS  the pause after a mail first fails for now; each later
                             one doubles, to at most an hour, for two days (default 30)
          --trusted-proxies ADDRESSES  comma-separated addresses of load balancers (such as
                             127.0.0.1 for nginx on this machine) whose X-Forwarded-For
                             names the client in the access log (default: none, the
                             header is ignored)
          --help             show this text

        HTTP limits and timeouts (defaults as in SPEC.md):
          --max-request-line BYTES    longest request line, else 414 (default 8192)
          --max-header-bytes BYTES    largest header section, else 431 (default 16384)
          --max-header-fields N       most header fields, else 431 (default 100)
          --max-form-body BYTES       largest form body, else 413 (default 1048576)
          --max-upload-body BYTES     largest multipart body, else 413 (default 22020096)
          --header-timeout SECONDS    to receive a request's header section (default 10)
          --body-timeout SECONDS      longest pause inside a request body (default 10)
          --body-deadline SECONDS     longest a whole request body may take, else 408
                                      (default 120)
          --body-min-rate BYTES       bytes a second a body must average after its first
                                      10 s, else 408; 0 turns it off (default 1024)
          --max-connections N         open connections at once; past it new ones get 503
                                      and are closed (default: the descriptor limit less
                                      a reserve for the database and files)
          --max-connections-per-client N  open connections one client address may hold,
                                      trusted proxies excepted (default 256)
          --max-streams N             live-page event streams at once, else 503 (default:
                                      half the connection limit)
          --max-streams-per-client N  event streams one client address may hold (default 32)
          --idle-timeout SECONDS      keep-alive between requests (default 60)
          --write-timeout SECONDS     for a client to take more of a response (default 30)
          --shutdown-grace SECONDS    for requests in flight at shutdown (default 10)
          --event-loops N             event-loop threads (default: one per core)

        Sign-in and sign-up limits per client address (the peer, or whom a --trusted-proxies
        proxy forwarded for; IPv6 by its /64); past one, 429 with Retry-After:
          --sign-ins-per-client N         password checks that did not sign in, per window
                                          (default 20)
          --sign-ups-per-client N         accounts made, per window (default 10)
          --account-limit-window SECONDS  the window of both (default 600)
          --max-hashes-per-client N       password hashes queued or running at once (default 2)
          --sessions-per-account N        sessions one account may have; signing in past it
                                          ends the least recently used (default 100)

        Writes (adding, editing, restoring or deleting a quote, a favourite, a name, removing
        a photo; one for each 4 KiB of text begun); past one, 429 with Retry-After:
          --writes-per-account N          writes of one account per window (default 300)
          --writes-per-client N           writes from one client address per window (default 600)
          --write-limit-window SECONDS    the window of both (default 600)

        Photo processing per person and per client address; past a share, 503 with
        Retry-After, past the uploads, 429:
          --photo-jobs-per-person N       photos of one account queued or being processed at
                                          once (default 1)
          --photo-jobs-per-client N       the same for one client address (default 2)
          --photo-uploads-per-account N   photos one account may send an hour (default 20)

        """

    /// The folder holding `Templates/` and `Public/`: `--root`, else the current directory if it
    /// has `Templates/`, else `packageRoot`.
    package func resolveRoot(currentDirectory: URL, packageRoot: URL) -> URL {
        if let root { return root }
        let local = currentDirectory.appendingPathComponent("Templates", isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: local.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return currentDirectory
        }
        return packageRoot
    }
}
