package import Foundation

/// The built `quotebook` executable run as a child process, the way a person runs it.
///
/// Every wait (for a line, for the exit) runs through ``offPool(_:)``, never on the cooperative
/// pool. Not Sendable: one test owns it and calls it from one task.
package final class QuotebookProcess {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    /// The port from the listening line, once ``waitUntilListening()`` has read it.
    package private(set) var port: Int?
    /// The child's process id, for reading what it holds under `/proc`.
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Where SwiftPM put the executable: beside the test bundle in the build folder.
    package static var executableURL: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("quotebook")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("quotebook")
    }

    /// Starts the executable; `input`, when given, is its whole standard input (else none);
    /// `fileLimit` lowers its `RLIMIT_NOFILE` (through the shell's `ulimit -n`); `umask` (octal
    /// digits, such as "022") is the file mode mask it starts with (the shell's `umask`).
    package init(
        arguments: [String], environment: [String: String] = [:], input: Data? = nil, fileLimit: Int? = nil, umask: String? = nil
    ) throws {
        let setUp = [fileLimit.map { "ulimit -n \($0)" }, umask.map { "umask \($0)" }].compactMap { $0 }
        if !setUp.isEmpty {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", (setUp + ["exec \"$0\" \"$@\""]).joined(separator: " && "), Self.executableURL.path] + arguments
        } else {
            process.executableURL = Self.executableURL
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("QUOTEBOOK_") }
            .merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        try process.run()
        if let input, let inputPipe {
            let writer = inputPipe.fileHandleForWriting
            Thread {
                writer.write(input)
                try? writer.close()
            }.start()
        }
    }

    /// Everything written to standard output (read to its end, i.e. after the process ended).
    package func standardOutput() async -> Data {
        let reader = output.fileHandleForReading
        return await offPool { reader.readDataToEndOfFile() }
    }

    /// Reads standard output up to the first newline; nil if the process ended first.
    package func firstLine() async -> String? {
        let reader = output.fileHandleForReading
        return await offPool {
            var bytes: [UInt8] = []
            while true {
                let data = reader.availableData
                if data.isEmpty { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
                bytes.append(contentsOf: data)
                if let newline = bytes.firstIndex(of: 10) { return String(decoding: bytes[..<newline], as: UTF8.self) }
            }
        }
    }

    /// Waits for `Quotebook listening on http://HOST:PORT` and returns the line.
    @discardableResult
    package func waitUntilListening() async throws -> String {
        guard let line = await firstLine() else {
            throw SocketClient.Failure(description: "quotebook exited before listening: \(await standardError())")
        }
        port = line.split(separator: ":").last.flatMap { Int($0) }
        return line
    }

    /// Sends `signal` and waits for the process to exit; returns its status.
    package func stop(signal: Int32 = SIGTERM) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return await waitForExit()
    }

    /// Waits for the process to end by itself; returns its status.
    package func waitForExit() async -> Int32 {
        let process = self.process
        return await offPool {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Everything written to standard error (read after the process ended).
    package func standardError() async -> String {
        let reader = errors.fileHandleForReading
        return await offPool { String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) }
    }
}
