import Foundation
import TestSupport
import Testing

/// libvips, and the hundred libraries it brings, are loaded when the first photo arrives, not at
/// start-up (Sources/CVips/include/cvips.h): a server that is never sent a photo never maps them.
@Suite(.timeLimit(.minutes(2))) struct LibraryLoadingTests {
    /// The shared libraries mapped into process `pid` whose file names contain `name`.
    static func mapped(_ name: String, in pid: Int32) throws -> Set<String> {
        // Read to its end: a file of /proc says it is empty, so reading by its size reads nothing.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("libswiftCore.so"), "the maps of \(pid) were read")
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init).flatMap { $0.contains(name) ? $0 : nil }
        })
    }

    @Test func libvipsIsLoadedByTheFirstPhotoNotByTheStart() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let quotebook = try QuotebookProcess(
            arguments: ["--port", "0", "--data", data.url.path, "--root", RepositoryPaths.root.path, "--log-level", "warning"])
        try await quotebook.waitUntilListening()
        var browser = SocketBrowser(port: try #require(quotebook.port))
        #expect(try await browser.signUp("ada").status == 303)
        #expect(try await browser.get("/").status == 200)
        #expect(try Self.mapped("libvips", in: quotebook.processIdentifier).isEmpty, "libvips is mapped before any photo")
        #expect(try Self.mapped("libheif", in: quotebook.processIdentifier).isEmpty)

        let upload = try await browser.upload(
            "/profile/photo", field: "photo", filename: "me.png", fileType: "image/png", file: try await TestPhotos.png(1),
            formPage: "/profile/edit")
        #expect(upload.status == 303)
        #expect(upload.header("Location") == "/users/ada")
        let photo = try await browser.get("/users/ada/photo")
        #expect(photo.status == 200)
        #expect(photo.header("Content-Type") == "image/webp")
        #expect(!(try Self.mapped("libvips.so", in: quotebook.processIdentifier)).isEmpty, "the photo went through libvips")
        #expect(await quotebook.stop() == 0)
    }
}
