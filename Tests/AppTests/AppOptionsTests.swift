import App
import Composition
import Foundation
import HTTPServer
import Logging
import Store
import StoreBackend
import StorePostgres
import Testing

@Suite struct AppOptionsTests {
    func serve(_ arguments: [String], _ environment: [String: String] = [:]) throws -> AppOptions {
        guard case .serve(let options) = try AppOptions.parse(arguments: arguments, environment: environment) else {
            throw AppOptions.ParseError(description: "not serve")
        }
        return options
    }

    @Test func defaultsMatchTheSpec() throws {
        let options = try serve([])
        #expect(options.host == "127.0.0.1")
        #expect(options.port == 8080)
        #expect(options.dataDirectory.lastPathComponent == "data")
        #expect(options.isDevelopment == false)
        #expect(options.logLevel == .info)
    }

    @Test func flagsSetEveryOption() throws {
        let options = try serve(["--host", "0.0.0.0", "--port=0", "--data", "/tmp/qb", "--root", "/srv", "--dev", "--log-level", "debug"])
        #expect(options.host == "0.0.0.0")
        #expect(options.port == 0)
        #expect(options.dataDirectory.path == "/tmp/qb")
        #expect(options.root?.path == "/srv")
        #expect(options.isDevelopment)
        #expect(options.logLevel == .debug)
    }

    @Test func environmentIsReadAndFlagsWin() throws {
        let environment = ["QUOTEBOOK_PORT": "9000", "QUOTEBOOK_HOST": "::1", "QUOTEBOOK_DEV": "1", "QUOTEBOOK_LOG_LEVEL": "error"]
        let options = try serve(["--port", "9001"], environment)
        #expect(options.port == 9001)
        #expect(options.host == "::1")
        #expect(options.isDevelopment)
        #expect(options.logLevel == .error)
    }

    @Test func metricsIsOffUnlessTheFlagOrTheEnvironmentTurnsItOn() throws {
        #expect(try serve([]).metrics == false)
        #expect(try serve(["--metrics"]).metrics)
        #expect(try serve(["--metrics=true"]).metrics)
        #expect(try serve([], ["QUOTEBOOK_METRICS": "1"]).metrics)
        #expect(try serve([], ["QUOTEBOOK_METRICS": "yes"]).metrics)
        #expect(try serve([], ["QUOTEBOOK_METRICS": "off"]).metrics == false)
        #expect(try serve(["--metrics=false"], ["QUOTEBOOK_METRICS": "1"]).metrics == false, "the flag wins")
        #expect(throws: AppOptions.ParseError.self) { try serve([], ["QUOTEBOOK_METRICS": "sometimes"]) }
        #expect(AppOptions.usage.contains("--metrics"))
    }

    @Test func clientLimitsReachTheServerWithDefaultsAPersonNeverMeets() throws {
        let defaults = try serve([]).serverConfiguration
        #expect(defaults.maxConnections == nil, "from the descriptor limit")
        #expect(defaults.maxConnectionsPerClient == 256)
        #expect(defaults.maxStreams == nil)
        #expect(defaults.maxStreamsPerClient == 32)
        #expect(defaults.timeouts.bodyDeadline == .seconds(120))
        #expect(defaults.timeouts.bodyMinimumRate == 1024)
        let set = try serve(
            [
                "--max-connections", "500", "--max-connections-per-client=20", "--max-streams", "100",
                "--body-deadline", "30", "--body-min-rate", "0",
            ], ["QUOTEBOOK_MAX_STREAMS_PER_CLIENT": "4"]
        ).serverConfiguration
        #expect(set.maxConnections == 500)
        #expect(set.maxConnectionsPerClient == 20)
        #expect(set.maxStreams == 100)
        #expect(set.maxStreamsPerClient == 4)
        #expect(set.timeouts.bodyDeadline == .seconds(30))
        #expect(set.timeouts.bodyMinimumRate == 0)
        #expect(throws: AppOptions.ParseError.self) { try serve(["--body-min-rate", "-1"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--max-connections", "0"]) }
    }

    @Test func perAddressLimitsHaveDefaultsAPersonNeverMeetsAndCanBeSet() throws {
        let defaults = try serve([]).accountLimits
        #expect(defaults.signInsPerClient == 20)
        #expect(defaults.signUpsPerClient == 10)
        #expect(defaults.window == 600)
        #expect(defaults.maxHashesPerClient == 2)
        let options = try serve(
            ["--sign-ins-per-client", "50", "--account-limit-window=90.5"],
            ["QUOTEBOOK_SIGN_UPS_PER_CLIENT": "3", "QUOTEBOOK_SIGN_INS_PER_CLIENT": "7"])
        #expect(options.accountLimits.signInsPerClient == 50, "the flag wins")
        #expect(options.accountLimits.signUpsPerClient == 3)
        #expect(options.accountLimits.window == 90.5)
        #expect(try serve([], ["QUOTEBOOK_MAX_HASHES_PER_CLIENT": "4"]).accountLimits.maxHashesPerClient == 4)
        #expect(defaults.sessionsPerAccount == 100)
        #expect(try serve(["--sessions-per-account", "12"]).accountLimits.sessionsPerAccount == 12)
        #expect(throws: AppOptions.ParseError.self) { try serve(["--sessions-per-account", "0"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--sign-ups-per-client", "0"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--account-limit-window", "-1"]) }
        for name in [
            "--sign-ins-per-client N", "--sign-ups-per-client N", "--account-limit-window SECONDS", "--max-hashes-per-client N",
            "--sessions-per-account N",
        ] {
            #expect(AppOptions.usage.contains(name))
        }
    }

    @Test func writeLimitsHaveDefaultsAPersonNeverMeetsAndCanBeSet() throws {
        let defaults = try serve([]).writeLimits
        #expect(defaults.perAccount == 300)
        #expect(defaults.perClient == 600)
        #expect(defaults.window == 600)
        let options = try serve(
            ["--writes-per-account", "40", "--write-limit-window=60.5"],
            ["QUOTEBOOK_WRITES_PER_CLIENT": "90", "QUOTEBOOK_WRITES_PER_ACCOUNT": "7"])
        #expect(options.writeLimits.perAccount == 40, "the flag wins")
        #expect(options.writeLimits.perClient == 90)
        #expect(options.writeLimits.window == 60.5)
        #expect(throws: AppOptions.ParseError.self) { try serve(["--writes-per-account", "0"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--writes-per-client", "many"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--write-limit-window", "0"]) }
        for name in ["--writes-per-account N", "--writes-per-client N", "--write-limit-window SECONDS"] {
            #expect(AppOptions.usage.contains(name))
        }
    }

    @Test func trustedProxiesAreAListOfAddressesThatReachTheServer() throws {
        #expect(try serve([]).serverConfiguration.trustedProxies.isEmpty, "X-Forwarded-For ignored by default")
        let options = try serve(["--trusted-proxies", "127.0.0.1, ::1,10.0.0.2"])
        #expect(Set(options.serverConfiguration.trustedProxies.addresses.map(\.description)) == ["127.0.0.1", "::1", "10.0.0.2"])
        #expect(try serve([], ["QUOTEBOOK_TRUSTED_PROXIES": "192.0.2.1"]).trustedProxies.addresses.map(\.description) == ["192.0.2.1"])
        #expect(throws: AppOptions.ParseError.self) { try serve(["--trusted-proxies", "nginx.local"]) }
        #expect(throws: AppOptions.ParseError.self) { try serve(["--trusted-proxies", "10.0.0.0/8"]) }
    }

    @Test func httpLimitsAndTimeoutsAreOptions() throws {
        let options = try serve(
            [
                "--max-request-line", "100", "--max-header-bytes=200", "--max-header-fields", "3", "--max-form-body", "400",
                "--header-timeout", "0.5", "--body-timeout", "2", "--idle-timeout", "3", "--write-timeout", "4",
                "--shutdown-grace", "5", "--event-loops", "1",
            ],
            ["QUOTEBOOK_MAX_UPLOAD_BODY": "500", "QUOTEBOOK_IDLE_TIMEOUT": "99"])
        let configuration = options.serverConfiguration
        #expect(configuration.limits.requestLine == 100)
        #expect(configuration.limits.headerSection == 200)
        #expect(configuration.limits.headerCount == 3)
        #expect(configuration.limits.formBody == 400)
        #expect(configuration.limits.uploadBody == 500)
        #expect(configuration.timeouts.header == .milliseconds(500))
        #expect(configuration.timeouts.bodyRead == .seconds(2))
        #expect(configuration.timeouts.idle == .seconds(3))
        #expect(configuration.timeouts.write == .seconds(4))
        #expect(configuration.timeouts.shutdownGrace == .seconds(5))
        #expect(configuration.eventLoopCount == 1)
    }

    @Test func databaseSelectsPostgreSQLFromTheFlagOrTheEnvironment() throws {
        #expect(try serve([]).database == nil, "SQLite under --data by default")
        let flag = try serve(["--database", "postgres://ada@db.example:6543/book"])
        #expect(flag.database == DatabaseOption(url: "postgres://ada@db.example:6543/book", source: "--database"))
        #expect(try Backend(options: flag) == .postgres(PostgresURL(user: "ada", host: "db.example", port: 6543, database: "book")))
        let environment = ["QUOTEBOOK_DATABASE": "postgresql://quotebook:s3cret@10.0.0.5/quotes"]
        let fromEnvironment = try serve([], environment)
        #expect(fromEnvironment.database?.source == "QUOTEBOOK_DATABASE")
        #expect(
            try Backend(options: fromEnvironment)
                == .postgres(PostgresURL(user: "quotebook", password: "s3cret", host: "10.0.0.5", database: "quotes")))
        #expect(try serve(["--database=postgres://bob@h/other"], environment).database?.url == "postgres://bob@h/other", "the flag wins")
        #expect(try serve([], ["QUOTEBOOK_DATABASE": ""]).database == nil, "empty means unset")
        #expect(try Backend(options: serve([])) == .sqliteDirectory(URL(fileURLWithPath: "data", isDirectory: true)))
        #expect(AppOptions.usage.contains("--database URL"))
    }

    @Test func theDatabaseOptionNeverShowsItsURL() throws {
        let options = try serve(["--database", "postgres://ada:s3cret@h/db"])
        var dumped = ""
        dump(options, to: &dumped)
        #expect(!dumped.contains("s3cret"))
        #expect(!"\(options)".contains("s3cret"))
    }

    /// The URL is read where the backend is opened (Composition's `Backend(options:)`), which
    /// the executable calls before anything else and answers as it answers a refused option.
    @Test(arguments: [
        ["--database", "mysql://ada:s3cret@h/db"], ["--database", "postgres://ada:s3cret@h:99999/db"],
        ["--database", "postgres://ada:s3cret@h"], ["--database", "postgres://ada:s3cret@h/db?sslmode=require"],
    ])
    func aBadDatabaseURLIsRefusedWithoutShowingThePassword(arguments: [String]) {
        let error = #expect(throws: AppOptions.ParseError.self) {
            guard case .serve(let options) = try AppOptions.parse(arguments: arguments, environment: [:]) else { return }
            _ = try Backend(options: options)
        }
        #expect(error?.description.hasPrefix("--database: invalid database URL") == true)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test func aDatabaseFlagWithoutAURLIsRefused() {
        let error = #expect(throws: AppOptions.ParseError.self) { try AppOptions.parse(arguments: ["--database"], environment: [:]) }
        #expect(error?.description.hasPrefix("--database") == true)
    }

    @Test func aBadDatabaseURLInTheEnvironmentNamesTheVariable() throws {
        let options = try serve([], ["QUOTEBOOK_DATABASE": "postgres://ada:s3cret@/db"])
        let error = #expect(throws: AppOptions.ParseError.self) { try Backend(options: options) }
        #expect(error?.description.hasPrefix("QUOTEBOOK_DATABASE: invalid database URL") == true)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test func httpDefaultsAreTheSpecs() throws {
        let configuration = try serve([]).serverConfiguration
        #expect(configuration.limits == HTTPLimits())
        #expect(configuration.timeouts == HTTPTimeouts())
        #expect(configuration.eventLoopCount == HTTPServerConfiguration.defaultEventLoopCount)
    }

    @Test(arguments: [
        ["--port", "70000"], ["--port", "x"], ["--port"], ["--bogus"], ["--log-level", "loud"], ["--dev=maybe"],
        ["--max-form-body", "0"], ["--header-timeout", "-1"], ["--idle-timeout", "soon"], ["--event-loops", "0"],
    ])
    func badOptionsAreRefusedWithAMessage(arguments: [String]) {
        #expect(throws: AppOptions.ParseError.self) { try AppOptions.parse(arguments: arguments, environment: [:]) }
    }

    @Test func helpAndRenderAreCommands() throws {
        #expect(try AppOptions.parse(arguments: ["--help"], environment: [:]) == .help)
        #expect(
            try AppOptions.parse(arguments: ["render", "home", "--repeat", "3"], environment: [:]) == .render(["home", "--repeat", "3"]))
    }

    @Test func rootFallsBackFromCurrentDirectoryToPackageRoot() throws {
        let options = try serve([])
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("qb-empty-\(UUID())")
        let package = URL(fileURLWithPath: "/pkg")
        #expect(options.resolveRoot(currentDirectory: empty, packageRoot: package) == package)
    }
}
