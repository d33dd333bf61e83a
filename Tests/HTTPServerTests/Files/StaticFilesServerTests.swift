import Foundation
import HTTPServer
import Testing

/// Static files through the real server, raw bytes in and out: no request target reaches a
/// file outside the root, and file responses carry the server's fields.
@Suite struct StaticFilesServerTests {
    /// What sits next to the root in the fixture, as `Package.swift` sits next to `Public/`.
    static let outsideMarker = "PACKAGE-OUTSIDE-ROOT"

    /// A ``StaticFilesTests/Fixture`` with `Package.swift` beside the root, served by a real
    /// server whose responder answers 404 when ``StaticFiles`` has no file.
    struct Served {
        let fixture: StaticFilesTests.Fixture
        let server: TestServer

        init() throws {
            fixture = try StaticFilesTests.Fixture()
            try Data("let secret = \"\(StaticFilesServerTests.outsideMarker)\"".utf8)
                .write(to: fixture.base.appendingPathComponent("Package.swift"))
            let files = fixture.files
            server = try TestServer(
                responder: ClosureResponder { request in
                    files.response(for: request) ?? .text("not found", status: .notFound)
                })
        }

        func stop() async {
            await server.stop()
            fixture.remove()
        }
    }

    static let traversalTargets = [
        "/../Package.swift", "/%2e%2e/Package.swift", "/%2E%2E/Package.swift", "/%2F../Package.swift",
        "/%2F..%2FPackage.swift", "/a/../../Package.swift", "/..\\Package.swift", "/..%5CPackage.swift",
        "/..%5cPackage.swift", "/Package.swift%00", "/..%2FPackage.swift%00.css", "/%c0%ae%c0%ae/Package.swift",
        "/%e0%80%ae%e0%80%ae/Package.swift", "/../outside/secret.txt", "http://h/../Package.swift",
    ]

    @Test(arguments: traversalTargets)
    func answersTraversalAttemptWith4xxAndNoOutsideContent(_ target: String) async throws {
        let served = try Served()
        let client = try served.server.connect()
        client.send("GET \(target) HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        let (bytes, closed) = await client.readToEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(closed)
        #expect(text.hasPrefix("HTTP/1.1 4"), "\(text.prefix(40))")
        #expect(!text.contains(Self.outsideMarker))
        #expect(!text.contains("secret"))
        await served.stop()
    }

    @Test func doesNotFollowSymlinkPointingOutsideRoot() async throws {
        let served = try Served()
        let client = try served.server.connect()
        // `public/escape` links to `../outside/secret.txt`; `public/link.css` stays inside.
        let escape = try await client.exchange("GET /escape HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(escape.status == 404)
        #expect(!escape.text.contains("secret"))
        #expect(try await client.exchange("GET /link.css HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await served.stop()
    }

    @Test func sendsDateOnNotModified() async throws {
        let served = try Served()
        let client = try served.server.connect()
        let first = try await client.exchange("GET /site.css HTTP/1.1\r\nHost: h\r\n\r\n")
        let etag = try #require(first.header("ETag"))
        let response = try await client.exchange("GET /site.css HTTP/1.1\r\nHost: h\r\nIf-None-Match: \(etag)\r\n\r\n")
        #expect(response.status == 304)
        #expect(response.headerCount("Date") == 1)
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        #expect(response.header("Content-Type") == nil)
        await served.stop()
    }

    @Test func cachesOneEntryForEncodedVariantsOverTheWire() async throws {
        let served = try Served()
        let client = try served.server.connect()
        for target in ["/site.css", "/%73ite.css", "/site%2Ecss", "/site%2ecss"] {
            let response = try await client.exchange("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(response.text == "body { color: red }")
        }
        #expect(served.fixture.files.cacheUsage.files == 1)
        #expect(served.fixture.files.cacheUsage.paths == 1)
        await served.stop()
    }
}
