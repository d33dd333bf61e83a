import Foundation
import HTTPServer
import Testing

/// Static files: types, validators, conditional requests, and no way out of the root.
@Suite struct StaticFilesTests {
    /// A fresh folder tree: `outside/secret.txt`, `public/site.css`, `public/a/b.js`, a
    /// symlink `public/escape` to the outside file and `public/link.css` to `site.css`.
    struct Fixture {
        let base: URL
        let files: StaticFiles

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
            let publicFolder = base.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: publicFolder.appendingPathComponent("a"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
            try Data("secret".utf8).write(to: base.appendingPathComponent("outside/secret.txt"))
            try Data("body { color: red }".utf8).write(to: publicFolder.appendingPathComponent("site.css"))
            try Data("let x = 1".utf8).write(to: publicFolder.appendingPathComponent("a/b.js"))
            try Data("hidden".utf8).write(to: publicFolder.appendingPathComponent(".env"))
            try Data("space".utf8).write(to: publicFolder.appendingPathComponent("my file.txt"))
            try FileManager.default.createSymbolicLink(
                atPath: publicFolder.appendingPathComponent("escape").path, withDestinationPath: "../outside/secret.txt")
            try FileManager.default.createSymbolicLink(
                atPath: publicFolder.appendingPathComponent("link.css").path, withDestinationPath: "site.css")
            files = StaticFiles(root: publicFolder)
        }

        func get(_ path: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> HTTPResponse? {
            files.response(for: HTTPRequest(method: method, target: path, headers: headers))
        }

        func remove() {
            try? FileManager.default.removeItem(at: base)
        }
    }

    // 2300-01-01 is beyond Int nanoseconds since the epoch (which end in 2262); 1906 is before
    // the epoch (file systems here clamp older times to 1901, so 1678 cannot be set).
    @Test(arguments: [10_413_792_000.0, -2_000_000_000.0])
    func servesFilesDatedFarFromNow(secondsSinceEpoch: Double) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let url = fixture.base.appendingPathComponent("public/site.css")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: secondsSinceEpoch)], ofItemAtPath: url.path)
        let response = try #require(fixture.get("/site.css"))
        #expect(response.status == .ok)
        let year = secondsSinceEpoch > 0 ? "2300" : "1906"
        #expect(response.headers["Last-Modified"]?.contains(year) == true)
        let etag = try #require(response.headers["ETag"])
        #expect(fixture.get("/site.css", headers: ["If-None-Match": etag])?.status == .notModified)
    }

    /// A file is served with the type its extension names and no other: browsers must not sniff.
    @Test func everyFileAnswerSaysNosniff() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let large = fixture.base.appendingPathComponent("public/large.js")
        try Data(repeating: UInt8(ascii: " "), count: StaticFiles.cacheableSize + 1).write(to: large)
        for path in ["/site.css", "/a/b.js", "/large.js", "/link.css"] {
            let response = try #require(fixture.get(path))
            #expect(response.status == .ok)
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            #expect(fixture.get(path, method: .head)?.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            let etag = try #require(response.headers["ETag"])
            let notModified = try #require(fixture.get(path, headers: ["If-None-Match": etag]))
            #expect(notModified.status == .notModified)
            #expect(notModified.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
        }
    }

    @Test func servesFileWithTypeAndValidators() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let response = try #require(fixture.get("/site.css"))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "body { color: red }")
        #expect(response.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
        #expect(response.headers["Last-Modified"]?.hasSuffix(" GMT") == true)
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(fixture.get("/a/b.js")?.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(fixture.get("/my%20file.txt")?.status == .ok)
        #expect(fixture.get("/site.css", method: .head)?.status == .ok)
    }

    @Test func answers304ForMatchingETag() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let etag = try #require(fixture.get("/site.css")?.headers["ETag"])
        for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let response = try #require(fixture.get("/site.css", headers: ["If-None-Match": header]))
            #expect(response.status == .notModified)
            #expect(response.body.isEmpty)
            #expect(response.headers["ETag"] == etag)
        }
        #expect(fixture.get("/site.css", headers: ["If-None-Match": "\"nope\""])?.status == .ok)
    }

    @Test func answers304ForIfModifiedSinceNotBeforeModification() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let lastModified = try #require(fixture.get("/site.css")?.headers["Last-Modified"])
        #expect(fixture.get("/site.css", headers: ["If-Modified-Since": lastModified])?.status == .notModified)
        #expect(
            fixture.get("/site.css", headers: ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"])?.status == .ok)
        // If-None-Match takes precedence (RFC 9110 §13.1.3).
        #expect(
            fixture.get("/site.css", headers: ["If-Modified-Since": lastModified, "If-None-Match": "\"x\""])?.status == .ok)
    }

    @Test func servesChangedFileFresh() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let first = try #require(fixture.get("/site.css"))
        try Data("p { margin: 0 } /* longer */".utf8).write(to: fixture.base.appendingPathComponent("public/site.css"))
        let second = try #require(fixture.get("/site.css"))
        #expect(String(decoding: second.body, as: UTF8.self) == "p { margin: 0 } /* longer */")
        #expect(second.headers["ETag"] != first.headers["ETag"])
    }

    /// A file's version is a hash of its bytes: the same bytes anywhere give the same version,
    /// changed bytes a new one, and no file none. A request naming the current version may be
    /// kept a year (`immutable`); one naming an old version, or none, or the version twice, is
    /// revalidated as usual, gets the file as it is now, and a 304 keeps whichever it was.
    @Test func aRequestNamingTheContentsVersionMayBeKeptAYear() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let other = try Fixture()
        defer { other.remove() }
        let version = try #require(fixture.files.version(of: "/site.css"))
        #expect(version.utf8.count == 16 && version.allSatisfy(\.isHexDigit))
        #expect(other.files.version(of: "/site.css") == version, "the same bytes under another root")
        #expect(fixture.files.version(of: "/link.css") == version, "a symlink to it")
        #expect(fixture.files.version(of: "/a/b.js") != version)
        #expect(fixture.files.version(of: "/missing.css") == nil && fixture.files.version(of: "/../outside/secret.txt") == nil)

        let kept = try #require(fixture.get("/site.css?v=\(version)"))
        #expect(kept.status == .ok && kept.headers["Cache-Control"] == StaticFiles.versionedCacheControl)
        #expect(kept.headers["ETag"] != nil && kept.headers["X-Content-Type-Options"] == "nosniff")
        for plain in ["/site.css", "/site.css?v=0000000000000000", "/site.css?v=", "/site.css?x=\(version)", "/site.css?v=\(version)x"] {
            #expect(fixture.get(plain)?.headers["Cache-Control"] == "no-cache", "\(plain)")
        }
        let etag = try #require(kept.headers["ETag"])
        let revalidated = try #require(fixture.get("/site.css?v=\(version)", headers: ["If-None-Match": etag]))
        #expect(revalidated.status == .notModified && revalidated.headers["Cache-Control"] == StaticFiles.versionedCacheControl)

        try Data("p { margin: 0 } /* changed */".utf8).write(to: fixture.base.appendingPathComponent("public/site.css"))
        let changed = try #require(fixture.files.version(of: "/site.css"))
        #expect(changed != version)
        let old = try #require(fixture.get("/site.css?v=\(version)"))
        #expect(old.headers["Cache-Control"] == "no-cache" && String(decoding: old.body, as: UTF8.self) == "p { margin: 0 } /* changed */")
        #expect(fixture.get("/site.css?v=\(changed)")?.headers["Cache-Control"] == StaticFiles.versionedCacheControl)
    }

    @Test(arguments: [
        "/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/%2E%2E/outside/secret.txt", "/a/../../outside/secret.txt",
        "/..%2foutside%2fsecret.txt", "/..%2Foutside/secret.txt", "/..\\outside\\secret.txt", "/..%5coutside%5csecret.txt",
        "/site.css%00.txt", "/%c0%ae%c0%ae/outside/secret.txt", "/%e0%80%ae%e0%80%ae/outside/secret.txt", "/escape",
        "/.env", "/a/", "/a", "/", "//site.css", "/missing.css", "/site.css/", "/%zz", "site.css", "/./site.css",
    ])
    func refusesPathsOutsideRootOrNotRegularFiles(_ path: String) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        #expect(fixture.get(path) == nil)
    }

    @Test func followsSymlinkInsideRoot() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        #expect(fixture.get("/link.css")?.status == .ok)
    }

    @Test func ignoresOtherMethods() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        #expect(fixture.get("/site.css", method: .post) == nil)
    }

    @Test func servesFileThroughServerWithHeadKeepingLength() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let files = fixture.files
        let server = try TestServer(
            responder: ClosureResponder { request in files.response(for: request) ?? .text("no", status: .notFound) })
        let client = try server.connect()
        let get = try await client.exchange("GET /site.css HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(get.text == "body { color: red }")
        client.send("HEAD /site.css HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try await client.readResponse(isHead: true)
        #expect(head.header("Content-Length") == "19")
        let etag = try #require(get.header("ETag"))
        let conditional = try await client.exchange("GET /site.css HTTP/1.1\r\nHost: h\r\nIf-None-Match: \(etag)\r\n\r\n")
        #expect(conditional.status == 304)
        #expect(conditional.body.isEmpty)
        await server.stop()
    }
}
