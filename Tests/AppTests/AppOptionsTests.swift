import App
import Foundation
import Logging
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

    @Test(arguments: [["--port", "70000"], ["--port", "x"], ["--port"], ["--bogus"], ["--log-level", "loud"], ["--dev=maybe"]])
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
