import Foundation
import HTTPServer
import Testing

/// The static-file cache holds one entry per real file, whatever spelling of its path a client
/// uses, and stays within its entry and byte limits however many files are asked for.
@Suite struct StaticFileCacheTests {
    typealias Fixture = StaticFilesTests.Fixture

    @Test func encodingVariantsShareOneEntry() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let variants = ["/site.css", "/%73ite.css", "/site%2Ecss", "/site%2ecss", "/%73%69%74%65%2E%63%73%73"]
        for path in variants {
            let response = try #require(fixture.get(path), "\(path)")
            #expect(String(decoding: response.body, as: UTF8.self) == "body { color: red }")
        }
        let usage = fixture.files.cacheUsage
        #expect(usage.files == 1)
        #expect(usage.paths == 1)
        #expect(usage.bytes == "body { color: red }".utf8.count)
    }

    @Test func symlinkAliasSharesTheTargetsEntry() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        #expect(fixture.get("/site.css")?.status == .ok)
        #expect(fixture.get("/link.css")?.status == .ok)
        let usage = fixture.files.cacheUsage
        #expect(usage.files == 1)
        #expect(usage.bytes == "body { color: red }".utf8.count)
    }

    @Test func refusedPathsLeaveCacheEmpty() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        for path in ["/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/escape", "/missing.css", "/a", "/.env"] {
            #expect(fixture.get(path) == nil)
        }
        let usage = fixture.files.cacheUsage
        #expect(usage.files == 0 && usage.paths == 0 && usage.bytes == 0)
    }

    @Test func staysWithinEntryLimitAndServesEvictedFilesFresh() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let root = fixture.base.appendingPathComponent("public")
        for index in 0..<12 {
            try Data("file \(index)".utf8).write(to: root.appendingPathComponent("n\(index).txt"))
        }
        let files = StaticFiles(root: root, cacheEntryLimit: 3)
        for round in 0..<2 {
            for index in 0..<12 {
                let response = files.response(for: HTTPRequest(method: .get, target: "/n\(index).txt"))
                #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "file \(index)", "round \(round)")
                let usage = files.cacheUsage
                #expect(usage.files <= 3 && usage.paths <= 3)
            }
        }
        #expect(files.cacheUsage.files == 3)
    }

    @Test func staysWithinByteLimit() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let root = fixture.base.appendingPathComponent("public")
        for index in 0..<6 {
            try Data(repeating: UInt8(ascii: "a") + UInt8(index), count: 20).write(to: root.appendingPathComponent("b\(index).txt"))
        }
        try Data(repeating: UInt8(ascii: "z"), count: 80).write(to: root.appendingPathComponent("large.txt"))
        let files = StaticFiles(root: root, cacheByteLimit: 50)
        for index in 0..<6 {
            let response = try #require(files.response(for: HTTPRequest(method: .get, target: "/b\(index).txt")))
            #expect(response.body == [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 20))
            #expect(files.cacheUsage.bytes <= 50)
        }
        // A file larger than the whole budget is served but not kept.
        #expect(files.response(for: HTTPRequest(method: .get, target: "/large.txt"))?.body.count == 80)
        #expect(files.cacheUsage.bytes <= 50)
        #expect(files.cacheUsage.files == 2)
    }
}
