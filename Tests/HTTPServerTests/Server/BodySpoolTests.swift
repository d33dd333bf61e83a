import Foundation
import Glibc
import HTTPServer
import Logging
import Synchronization
import Testing

/// Large `multipart/form-data` bodies go to an unlinked file as they arrive (``BodySpool``):
/// the responder gets them whole, in the file, not in memory; smaller ones and other types stay
/// in memory; and the parts of a spooled form are found in place.
@Suite struct BodySpoolTests {
    static let boundary = "spoolboundary"

    /// A form with a short `note` field and `file` as `upload`.
    static func form(file: [UInt8]) -> [UInt8] {
        Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
            + Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a.bin\"\r\n\r\n".utf8)
            + file + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    static func head(length: Int, type: String = "multipart/form-data; boundary=\(boundary)") -> String {
        "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// What the responder saw of each request: whether the body was spooled, how large it was in
    /// memory, and the `upload` part's bytes read back from wherever they were.
    final class Seen: Sendable {
        struct Request: Sendable {
            var spooled: Bool
            var inMemory: Int
            var upload: [UInt8]?
        }

        let requests = Mutex<[Request]>([])
    }

    static func withServer(_ body: (TestServer, Seen, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let seen = Seen()
        let responder = ClosureResponder { request in
            var upload: [UInt8]?
            let type = request.headers["Content-Type"] ?? ""
            if let spooled = request.spooledBody {
                let form = try? MultipartForm(spooled: spooled, contentType: type, leavingInPlaceOver: 1024)
                if let part = form?["upload"], let range = part.spooledData {
                    upload = Self.copied(range, of: spooled, via: directory)
                } else {
                    upload = form?["upload"]?.body
                }
            } else {
                upload = (try? MultipartForm(body: request.body, contentType: type))?["upload"]?.body
            }
            seen.requests.withLock { $0.append(.init(spooled: request.spooledBody != nil, inMemory: request.body.count, upload: upload)) }
            return .text("ok")
        }
        // The body timeouts outlast the tests' waits: a test that stands still (the whole
        // process, in some CI runs, for over 20 s) must not find its half-sent body already
        // answered 408 and its file gone when it looks again.
        var timeouts = HTTPTimeouts()
        timeouts.bodyRead = RawClient.patience * 2
        timeouts.bodyRateGrace = RawClient.patience * 2
        timeouts.bodyDeadline = RawClient.patience * 3
        let server = try TestServer(responder: responder, timeouts: timeouts) { configuration in
            var spool = BodySpool(directory: directory)
            spool.threshold = 16 * 1024
            configuration.bodySpool = spool
        }
        try await body(server, seen, directory)
        await server.stop()
    }

    /// The bytes of `range` copied by the kernel into a new file, read back.
    static func copied(_ range: Range<Int>, of body: SpooledBody, via directory: String) -> [UInt8]? {
        let path = "\(directory)/copy-\(UUID().uuidString)"
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return nil }
        defer {
            close(descriptor)
            unlink(path)
        }
        guard (try? body.copy(range, to: descriptor)) != nil else { return nil }
        return (try? Data(contentsOf: URL(fileURLWithPath: path))).map { Array($0) }
    }

    @Test func aLargeUploadIsSpooledAndArrivesWholeInPlace() async throws {
        try await Self.withServer { server, seen, directory in
            let file = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            let body = Self.form(file: file)
            let client = try server.connect()
            // Sent in pieces, as it arrives over a network.
            client.send(Self.head(length: body.count))
            for start in stride(from: 0, to: body.count, by: 50_000) { client.send(Array(body[start..<min(start + 50_000, body.count)])) }
            #expect(try await client.readResponse().status == 200)
            let request = try #require(seen.requests.withLock { $0.last })
            #expect(request.spooled && request.inMemory == 0)
            #expect(request.upload == file)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "unlinked when made")
        }
    }

    @Test func smallUploadsAndOtherTypesStayInMemory() async throws {
        try await Self.withServer { server, seen, _ in
            let small = Self.form(file: [UInt8](repeating: 1, count: 10_000))
            let client = try server.connect()
            client.send(Array(Self.head(length: small.count).utf8) + small)
            #expect(try await client.readResponse().status == 200)
            let text = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
            client.send(Array(Self.head(length: text.count, type: "application/x-www-form-urlencoded").utf8) + text)
            #expect(try await client.readResponse().status == 200)
            let requests = seen.requests.withLock { $0 }
            #expect(requests.map(\.spooled) == [false, false])
            #expect(requests.map(\.inMemory) == [small.count, text.count])
            #expect(requests[0].upload == [UInt8](repeating: 1, count: 10_000))
        }
    }

    /// Open descriptors of this process on files made in `directory` (unlinked: `… (deleted)`).
    static func openFiles(in directory: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"))?.hasPrefix(directory + "/") == true
        }.count
    }

    @Test func aClientThatGoesAwayMidUploadLeavesNoFileOpen() async throws {
        try await Self.withServer { server, seen, directory in
            let body = Self.form(file: [UInt8](repeating: 3, count: 200_000))
            let client = try server.connect()
            client.send(Array(Self.head(length: body.count).utf8) + body.prefix(100_000))
            // Waits are bounded by the clock, with the clients' patience, not by a count of
            // 10 ms naps: in some CI runs the test stands still for seconds at a time (8 to over
            // 20), while the server, on threads of its own, keeps time (see `withServer`).
            let clock = ContinuousClock()
            var deadline = clock.now + RawClient.patience
            var held = Self.openFiles(in: directory)
            while held == 0, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                held = Self.openFiles(in: directory)
            }
            #expect(
                held == 1, "the half-sent body is in a file of the spool directory; the server logged: \(server.log.entries.map(\.message))")
            client.close()
            deadline = clock.now + RawClient.patience
            var left = held
            while left > 0, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                left = Self.openFiles(in: directory)
            }
            #expect(left == 0, "the file went with the connection")
            #expect(seen.requests.withLock { $0.isEmpty })
        }
    }

    @Test func aSpoolDirectoryThatCannotBeUsedIsA503NotACrash() async throws {
        let server = try TestServer(responder: ClosureResponder { _ in .text("ok") }) { configuration in
            var spool = BodySpool(directory: "/nonexistent-\(UUID().uuidString)")
            spool.threshold = 1024
            configuration.bodySpool = spool
        }
        let body = Self.form(file: [UInt8](repeating: 5, count: 10_000))
        let client = try server.connect()
        client.send(Array(Self.head(length: body.count).utf8) + body)
        let response = try await client.readResponse()
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        // Bodies that stay in memory are still served.
        let small = try server.connect()
        let form = Self.form(file: [1, 2, 3])
        small.send(Array(Self.head(length: form.count).utf8) + form)
        #expect(try await small.readResponse().status == 200)
        await server.stop()
    }

    @Test func aChunkedUploadIsSpooledToo() async throws {
        try await Self.withServer { server, seen, _ in
            let file = [UInt8](repeating: 9, count: 100_000)
            let body = Self.form(file: file)
            let client = try server.connect()
            var message = Array(
                "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=\(Self.boundary)\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .utf8)
            for start in stride(from: 0, to: body.count, by: 30_000) {
                let chunk = body[start..<min(start + 30_000, body.count)]
                message += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            }
            client.send(message + Array("0\r\n\r\n".utf8))
            #expect(try await client.readResponse().status == 200)
            let request = try #require(seen.requests.withLock { $0.last })
            #expect(request.spooled && request.upload == file)
        }
    }
}

@Suite struct SpooledMultipartTests {
    @Test func partsOverTheLimitAreLeftInPlaceAndTheRestCopied() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let spooled = try #require(SpooledBody(directory: directory))
        let file = [UInt8](repeating: 0x41, count: 5000)
        let body = BodySpoolTests.form(file: file)
        #expect(body.withUnsafeBytes { spooled.append($0) })
        #expect(spooled.count == body.count)
        let form = try MultipartForm(
            spooled: spooled, contentType: "multipart/form-data; boundary=\(BodySpoolTests.boundary)", leavingInPlaceOver: 100)
        #expect(form["note"]?.body == Array("hello".utf8))
        #expect(form["note"]?.spooledData == nil)
        let upload = try #require(form["upload"])
        #expect(upload.body.isEmpty)
        let range = try #require(upload.spooledData)
        #expect(Array(body[range]) == file)
        // The same body in memory parses to the same parts, the data copied.
        let inMemory = try MultipartForm(body: body, contentType: "multipart/form-data; boundary=\(BodySpoolTests.boundary)")
        #expect(inMemory["upload"]?.body == file)
    }

    @Test func aMalformedSpooledBodyIsRefusedLikeOneInMemory() throws {
        let spooled = try #require(SpooledBody(directory: FileManager.default.temporaryDirectory.path))
        let broken = Array("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nno close delimiter".utf8)
        #expect(broken.withUnsafeBytes { spooled.append($0) })
        #expect(throws: MultipartError.self) {
            try MultipartForm(spooled: spooled, contentType: "multipart/form-data; boundary=b", leavingInPlaceOver: 10)
        }
        let empty = try #require(SpooledBody(directory: FileManager.default.temporaryDirectory.path))
        #expect(throws: MultipartError.self) {
            try MultipartForm(spooled: empty, contentType: "multipart/form-data; boundary=b", leavingInPlaceOver: 10)
        }
    }
}
