package import Foundation
package import HTTPServer
package import Logging
import Store
package import StorePostgres

/// The command line and `QUOTEBOOK_*` environment, parsed: flags win over the environment,
/// the environment over defaults (SPEC.md "Running").
package struct AppOptions: Sendable, Equatable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// Where the SQLite database lives (unused with ``database``).
    package var dataDirectory = URL(fileURLWithPath: "data", isDirectory: true)
    /// `--database postgres://…`: keep everything in PostgreSQL, shared by every instance on it;
    /// nil (the default, also for an empty value) keeps SQLite under ``dataDirectory``. Its
    /// description never shows the password.
    package var database: PostgresURL?
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
    /// `--max-hashes-per-client`).
    package var accountLimits = AccountLimits()
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

    /// Parses `arguments` (without the program name) over `environment`.
    package static func parse(arguments: [String], environment: [String: String]) throws(ParseError) -> Command {
        if arguments.first == "render" { return .render(Array(arguments.dropFirst())) }
        do throws(ParseError) {
            if arguments.first == "user" { return try parseUserCommand(Array(arguments.dropFirst()), environment: environment) }
            return .serve(try parseOptions(arguments, environment: environment))
        } catch {
            if error == .helpRequested { return .help }
            throw error
        }
    }

    /// `user add NAME [--display-name NAME] [options]`.
    private static func parseUserCommand(_ words: [String], environment: [String: String]) throws(ParseError) -> Command {
        guard words.first == "add", words.count >= 2, !words[1].hasPrefix("-") else {
            throw ParseError(description: "usage: quotebook user add NAME [--display-name NAME] [--data DIR | --database URL]")
        }
        var rest: [String] = []
        var displayName: String?
        var remaining = words.dropFirst(2)
        while let word = remaining.popFirst() {
            let (name, inline) = split(word)
            if name == "--display-name" {
                guard let value = inline ?? remaining.popFirst() else {
                    throw ParseError(description: "--display-name needs a value; see --help")
                }
                displayName = value
            } else {
                rest.append(word)
            }
        }
        return .addUser(username: words[1], displayName: displayName, options: try parseOptions(rest, environment: environment))
    }

    private static func parseOptions(_ arguments: [String], environment: [String: String]) throws(ParseError) -> AppOptions {
        var options = AppOptions()
        for option in Option.allCases {
            if let value = environment[option.environmentName] {
                try options.apply(option, value: value, source: option.environmentName)
            }
        }
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" { throw ParseError.helpRequested }
            let (name, inlineValue) = split(word)
            guard let option = Option(rawValue: name) else { throw ParseError(description: "unknown option \(word); see --help") }
            if option.takesValue {
                guard let value = inlineValue ?? words.popFirst() else {
                    throw ParseError(description: "\(name) needs a value; see --help")
                }
                try options.apply(option, value: value, source: name)
            } else {
                try options.apply(option, value: inlineValue ?? "true", source: name)
            }
        }
        return options
    }

    /// The text `--help` prints.
    package static let usage = """
        Usage: quotebook [options]
               quotebook render NAME [--templates DIR] [--repeat N] < context.json
               quotebook user add NAME [--display-name NAME] [--data DIR | --database URL] < password

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
          --max-upload-body BYTES     largest multipart body, else 413 (default 3145728)
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

    private enum Option: String, CaseIterable {
        case host = "--host"
        case port = "--port"
        case data = "--data"
        case database = "--database"
        case root = "--root"
        case dev = "--dev"
        case secureCookies = "--secure-cookies"
        case hashingThreads = "--hashing-threads"
        case metrics = "--metrics"
        case trustedProxies = "--trusted-proxies"
        case logLevel = "--log-level"
        case maxRequestLine = "--max-request-line"
        case maxHeaderBytes = "--max-header-bytes"
        case maxHeaderFields = "--max-header-fields"
        case maxFormBody = "--max-form-body"
        case maxUploadBody = "--max-upload-body"
        case headerTimeout = "--header-timeout"
        case bodyTimeout = "--body-timeout"
        case bodyDeadline = "--body-deadline"
        case bodyMinRate = "--body-min-rate"
        case maxConnections = "--max-connections"
        case maxConnectionsPerClient = "--max-connections-per-client"
        case maxStreams = "--max-streams"
        case maxStreamsPerClient = "--max-streams-per-client"
        case idleTimeout = "--idle-timeout"
        case writeTimeout = "--write-timeout"
        case shutdownGrace = "--shutdown-grace"
        case eventLoops = "--event-loops"
        case signInsPerClient = "--sign-ins-per-client"
        case signUpsPerClient = "--sign-ups-per-client"
        case accountLimitWindow = "--account-limit-window"
        case maxHashesPerClient = "--max-hashes-per-client"

        var takesValue: Bool { self != .dev && self != .secureCookies && self != .metrics }

        var environmentName: String {
            "QUOTEBOOK_" + rawValue.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    private static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    private mutating func apply(_ option: Option, value: String, source: String) throws(ParseError) {
        switch option {
        case .host:
            guard !value.isEmpty else { throw ParseError(description: "\(source) must not be empty") }
            host = value
        case .port:
            guard let number = Int(value), (0...65_535).contains(number) else {
                throw ParseError(description: "\(source) must be a port number from 0 to 65535, not \(value)")
            }
            port = number
        case .data:
            dataDirectory = URL(fileURLWithPath: value, isDirectory: true)
        case .database:
            guard !value.isEmpty else {
                database = nil
                return
            }
            do {
                database = try PostgresURL(parsing: value)
            } catch {
                // The reason names the part at fault and never quotes the URL (or its password).
                throw ParseError(description: "\(source): \(error)")
            }
        case .root:
            root = URL(fileURLWithPath: value, isDirectory: true)
        case .dev:
            isDevelopment = try Self.flag(value, source: source)
        case .secureCookies:
            secureCookies = try Self.flag(value, source: source)
        case .hashingThreads:
            hashingThreads = try Self.count(value, source: source)
        case .metrics:
            metrics = try Self.flag(value, source: source)
        case .trustedProxies:
            var addresses = Set<IPAddress>()
            for word in value.split(separator: ",").map({ $0.trimmingASCIIWhitespace() }) where !word.isEmpty {
                guard let address = IPAddress(word) else {
                    throw ParseError(description: "\(source) must list numeric IP addresses, not \(word)")
                }
                addresses.insert(address)
            }
            trustedProxies = TrustedProxies(addresses)
        case .logLevel:
            guard let level = LogLevel(name: value) else {
                throw ParseError(description: "\(source) must be one of trace, debug, info, notice, warning, error")
            }
            logLevel = level
        case .maxRequestLine: limits.requestLine = try Self.count(value, source: source)
        case .maxHeaderBytes: limits.headerSection = try Self.count(value, source: source)
        case .maxHeaderFields: limits.headerCount = try Self.count(value, source: source)
        case .maxFormBody: limits.formBody = try Self.count(value, source: source)
        case .maxUploadBody: limits.uploadBody = try Self.count(value, source: source)
        case .headerTimeout: timeouts.header = try Self.seconds(value, source: source)
        case .bodyTimeout: timeouts.bodyRead = try Self.seconds(value, source: source)
        case .bodyDeadline: timeouts.bodyDeadline = try Self.seconds(value, source: source)
        case .bodyMinRate:
            guard let number = Int(value), number >= 0 else {
                throw ParseError(description: "\(source) must be a whole number of bytes a second (0: none), not \(value)")
            }
            timeouts.bodyMinimumRate = number
        case .maxConnections: maxConnections = try Self.count(value, source: source)
        case .maxConnectionsPerClient: maxConnectionsPerClient = try Self.count(value, source: source)
        case .maxStreams: maxStreams = try Self.count(value, source: source)
        case .maxStreamsPerClient: maxStreamsPerClient = try Self.count(value, source: source)
        case .idleTimeout: timeouts.idle = try Self.seconds(value, source: source)
        case .writeTimeout: timeouts.write = try Self.seconds(value, source: source)
        case .shutdownGrace: timeouts.shutdownGrace = try Self.seconds(value, source: source)
        case .eventLoops: eventLoops = try Self.count(value, source: source)
        case .signInsPerClient: accountLimits.signInsPerClient = try Self.count(value, source: source)
        case .signUpsPerClient: accountLimits.signUpsPerClient = try Self.count(value, source: source)
        case .accountLimitWindow:
            let window = try Self.seconds(value, source: source).components
            accountLimits.window = TimeInterval(window.seconds) + TimeInterval(window.attoseconds) / 1e18
        case .maxHashesPerClient: accountLimits.maxHashesPerClient = try Self.count(value, source: source)
        }
    }

    /// A flag's value: given alone it is `true`; from the environment, a yes or no word.
    private static func flag(_ value: String, source: String) throws(ParseError) -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ParseError(description: "\(source) must be true or false, not \(value)")
        }
    }

    /// A whole number of at least 1.
    private static func count(_ value: String, source: String) throws(ParseError) -> Int {
        guard let number = Int(value), number >= 1 else {
            throw ParseError(description: "\(source) must be a whole number of at least 1, not \(value)")
        }
        return number
    }

    /// Seconds, fractions allowed (`0.5`), more than 0 and at most a day.
    private static func seconds(_ value: String, source: String) throws(ParseError) -> Duration {
        guard let number = Double(value), number > 0, number <= 86_400 else {
            throw ParseError(description: "\(source) must be a number of seconds above 0, not \(value)")
        }
        return .milliseconds(Int((number * 1000).rounded(.up)))
    }
}
