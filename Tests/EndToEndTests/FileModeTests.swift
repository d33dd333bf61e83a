import Foundation
import Glibc
import TestSupport
import Testing

/// What Quotebook creates is its owner's alone (SPEC.md "Running"): started under the usual
/// umask 022, the data directory is `0700` and every file in it `0600`; a backup is `0600`,
/// and never lands on an existing file or through a symbolic link. Real processes.
@Suite struct FileModeTests {
    /// The permission bits of `path` (not following a link), or nil when nothing is there.
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }

    /// Every entry of `directory` and its mode.
    static func modes(in directory: String) throws -> [String: mode_t] {
        try FileManager.default.contentsOfDirectory(atPath: directory).reduce(into: [:]) { modes, name in
            modes[name] = mode(directory + "/" + name)
        }
    }

    static func serve(_ data: String, umask: String = "022") async throws -> QuotebookProcess {
        let server = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path, "--data", data], umask: umask)
        try await server.waitUntilListening()
        return server
    }

    @Test func aServerStartedUnderUmask022KeepsEveryFileToItsOwner() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("data").path
        let server = try await Self.serve(data)
        var browser = SocketBrowser(port: try #require(server.port))
        #expect(try await browser.signUp("ada").status == 303)
        let running = try Self.modes(in: data)
        #expect(await server.stop() == 0)
        let stopped = try Self.modes(in: data)

        #expect(Self.mode(data) == 0o700)
        for name in ["quotebook.sqlite3", "quotebook.sqlite3-wal", "quotebook.sqlite3-shm", "quotebook.lock"] {
            #expect(running[name] == 0o600, "\(name) while serving: \(running[name].map { String($0, radix: 8) } ?? "missing")")
        }
        for (name, mode) in running.merging(stopped, uniquingKeysWith: { $1 }) {
            #expect(mode == 0o600, "\(name): \(String(mode, radix: 8))")
        }
        #expect(await !server.standardError().contains("has mode"), "no warning for a directory it made itself")
    }

    @Test func aDataDirectoryOthersCanReadIsLoggedAsAWarning() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("open").path
        #expect(mkdir(data, 0o755) == 0 && chmod(data, 0o755) == 0)
        let server = try await Self.serve(data)
        #expect(await server.stop() == 0)
        let errors = await server.standardError()
        #expect(errors.contains("warning") && errors.contains("has mode 0755") && errors.contains("chmod 700"), "\(errors)")
        #expect(Self.mode(data) == 0o755, "the operator's directory is left as it was")
        #expect(try Self.modes(in: data).values.allSatisfy { $0 == 0o600 }, "its new files are still the owner's")
    }

    @Test func aBackupIsTheOwnersAloneAndLeavesNothingElseBehind() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("data").path
        #expect(try await Self.serve(data).stop() == 0)
        let copies = temporary.url.appendingPathComponent("copies").path
        #expect(mkdir(copies, 0o755) == 0)
        let file = copies + "/copy.sqlite3"
        let backup = try QuotebookProcess(arguments: ["backup", file, "--data", data], umask: "022")
        let status = await backup.waitForExit()
        let errors = await backup.standardError()
        #expect(status == 0, "\(errors)")
        #expect(try Self.modes(in: copies) == ["copy.sqlite3": 0o600], "no private directory or journal left")
    }

    @Test func aBackupNeverFollowsALinkNorReplacesAFile() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("data").path
        #expect(try await Self.serve(data).stop() == 0)
        let victim = temporary.url.appendingPathComponent("victim").path
        try Data("someone else's file".utf8).write(to: URL(fileURLWithPath: victim))
        let link = temporary.url.appendingPathComponent("link.sqlite3").path
        let dangling = temporary.url.appendingPathComponent("dangling.sqlite3").path
        let nowhere = temporary.url.appendingPathComponent("would-be-made").path
        #expect(symlink(victim, link) == 0 && symlink(nowhere, dangling) == 0)
        let existing = temporary.url.appendingPathComponent("existing.sqlite3").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))

        for (target, said) in [(link, "a symbolic link"), (dangling, "a symbolic link"), (existing, "already exists")] {
            let backup = try QuotebookProcess(arguments: ["backup", target, "--data", data])
            #expect(await backup.waitForExit() == 1, "\(target)")
            let errors = await backup.standardError()
            #expect(errors.contains(said) && errors.contains("never replaces"), "\(errors)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "someone else's file")
        #expect(Self.mode(nowhere) == nil, "the link's target was never made")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).allSatisfy { !$0.hasPrefix(".quotebook-backup") })
    }
}
