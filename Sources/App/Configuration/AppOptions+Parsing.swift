import Foundation
import HTTPServer
import Logging
import Mail
import Store

/// Reading the command line and the environment into a ``AppOptions/Command``.
extension AppOptions {
    /// Parses `arguments` (without the program name) over `environment`.
    package static func parse(arguments: [String], environment: [String: String]) throws(ParseError) -> Command {
        if arguments.first == "render" { return .render(Array(arguments.dropFirst())) }
        do throws(ParseError) {
            if arguments.first == "user" { return try parseUserCommand(Array(arguments.dropFirst()), environment: environment) }
            if arguments.first == "check" { return .check(try parseOptions(Array(arguments.dropFirst()), environment: environment)) }
            if arguments.first == "backup" {
                guard arguments.count >= 2, !arguments[1].hasPrefix("-") else {
                    throw ParseError(description: "usage: quotebook backup FILE [--data DIR]")
                }
                return .backup(file: arguments[1], options: try parseOptions(Array(arguments.dropFirst(2)), environment: environment))
            }
            return .serve(try parseOptions(arguments, environment: environment))
        } catch {
            if error == .helpRequested { return .help }
            throw error
        }
    }

    /// `user add NAME [--display-name NAME] [options]`, `user role NAME moderator|member [options]`.
    fileprivate static func parseUserCommand(_ words: [String], environment: [String: String]) throws(ParseError) -> Command {
        if words.first == "role" {
            guard words.count >= 3, !words[1].hasPrefix("-"), let role = Role(rawValue: words[2]) else {
                throw ParseError(description: "usage: quotebook user role NAME moderator|member [--data DIR | --database URL]")
            }
            return .setRole(username: words[1], role: role, options: try parseOptions(Array(words.dropFirst(3)), environment: environment))
        }
        guard words.first == "add", words.count >= 2, !words[1].hasPrefix("-") else {
            throw ParseError(
                description: "usage: quotebook user add NAME [--display-name NAME] [--data DIR | --database URL]\n"
                    + "       quotebook user role NAME moderator|member [--data DIR | --database URL]")
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

    fileprivate static func parseOptions(_ arguments: [String], environment: [String: String]) throws(ParseError) -> AppOptions {
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

    fileprivate enum Option: String, CaseIterable {
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
        case sessionsPerAccount = "--sessions-per-account"
        case writesPerAccount = "--writes-per-account"
        case writesPerClient = "--writes-per-client"
        case writeLimitWindow = "--write-limit-window"
        case photoJobsPerPerson = "--photo-jobs-per-person"
        case photoJobsPerClient = "--photo-jobs-per-client"
        case photoUploadsPerAccount = "--photo-uploads-per-account"
        case smtp = "--smtp"
        case smtpCA = "--smtp-ca"
        case mailFrom = "--mail-from"
        case publicURL = "--public-url"
        case mailRetryDelay = "--mail-retry-delay"

        var takesValue: Bool { self != .dev && self != .secureCookies && self != .metrics }

        var environmentName: String {
            "QUOTEBOOK_" + rawValue.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    fileprivate static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    fileprivate mutating func apply(_ option: Option, value: String, source: String) throws(ParseError) {
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
            // The URL is read where the backend is opened (``DatabaseOption``).
            database = value.isEmpty ? nil : DatabaseOption(url: value, source: source)
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
        case .accountLimitWindow: accountLimits.window = try Self.interval(value, source: source)
        case .maxHashesPerClient: accountLimits.maxHashesPerClient = try Self.count(value, source: source)
        case .sessionsPerAccount: accountLimits.sessionsPerAccount = try Self.count(value, source: source)
        case .writesPerAccount: writeLimits.perAccount = try Self.count(value, source: source)
        case .writesPerClient: writeLimits.perClient = try Self.count(value, source: source)
        case .writeLimitWindow: writeLimits.window = try Self.interval(value, source: source)
        case .photoJobsPerPerson: photoLimits.jobsPerPerson = try Self.count(value, source: source)
        case .photoJobsPerClient: photoLimits.jobsPerClient = try Self.count(value, source: source)
        case .photoUploadsPerAccount: photoLimits.uploadsPerAccount = try Self.count(value, source: source)
        case .smtp:
            guard !value.isEmpty else {
                mail.relay = nil
                return
            }
            do {
                mail.relay = try SMTPRelay(parsing: value)
            } catch {
                // The reason names the part at fault and never quotes the URL (or its password).
                throw ParseError(description: "\(source): \(error)")
            }
        case .smtpCA:
            mail.extraCAFile = value.isEmpty ? nil : value
        case .mailFrom:
            switch MailAddress.check(value) {
            case .success(let address): mail.from = address
            case .failure(let problem): throw ParseError(description: "\(source) must be an email address (\(problem)), not \(value)")
            }
        case .publicURL:
            guard let url = PublicURL(value) else {
                throw ParseError(description: "\(source) must be an http:// or https:// address without a query, not \(value)")
            }
            mail.publicURL = url
        case .mailRetryDelay:
            let pause = try Self.seconds(value, source: source).components
            mail.firstRetryPause = Double(pause.seconds) + Double(pause.attoseconds) / 1e18
        }
    }

    /// A flag's value: given alone it is `true`; from the environment, a yes or no word.
    fileprivate static func flag(_ value: String, source: String) throws(ParseError) -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ParseError(description: "\(source) must be true or false, not \(value)")
        }
    }

    /// A whole number of at least 1.
    fileprivate static func count(_ value: String, source: String) throws(ParseError) -> Int {
        guard let number = Int(value), number >= 1 else {
            throw ParseError(description: "\(source) must be a whole number of at least 1, not \(value)")
        }
        return number
    }

    /// Seconds, fractions allowed (`0.5`), more than 0 and at most a day.
    fileprivate static func seconds(_ value: String, source: String) throws(ParseError) -> Duration {
        guard let number = Double(value), number > 0, number <= 86_400 else {
            throw ParseError(description: "\(source) must be a number of seconds above 0, not \(value)")
        }
        return .milliseconds(Int((number * 1000).rounded(.up)))
    }

    /// ``seconds(_:source:)`` as a `TimeInterval` (a limit's window).
    fileprivate static func interval(_ value: String, source: String) throws(ParseError) -> TimeInterval {
        let window = try seconds(value, source: source).components
        return TimeInterval(window.seconds) + TimeInterval(window.attoseconds) / 1e18
    }
}
