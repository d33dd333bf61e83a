import HTTPServer
import Testing

/// Long bodies go out from their own arrays behind their heads (``OutputQueue``): over a real
/// socket, pipelined between short ones and HEAD requests, every response arrives whole, in order.
@Suite(.timeLimit(.minutes(1))) struct LongBodyTests {
    /// A body of `count` bytes that names `index` in every line, so a misplaced part shows.
    static func body(_ index: Int, count: Int) -> [UInt8] {
        let line = Array("response \(index) \n".utf8)
        return (0..<count).map { line[$0 % line.count] }
    }

    @Test func pipelinedLongAndShortBodiesArriveWholeAndInOrder() async throws {
        let sizes = [10, 9000, 40, 2048, 2047, 300_000, 1, 5000]
        let server = try TestServer(
            responder: ClosureResponder { request in
                let index = Int(request.path.dropFirst()) ?? 0
                return HTTPResponse(status: .ok, body: Self.body(index, count: sizes[index % sizes.count]))
            })
        let client = try server.connect()
        let count = 24
        var requests = ""
        for index in 0..<count {
            requests += "\(index % 5 == 4 ? "HEAD" : "GET") /\(index) HTTP/1.1\r\nHost: h\r\n\r\n"
        }
        client.send(requests)
        for index in 0..<count {
            let isHead = index % 5 == 4
            let response = try await client.readResponse(isHead: isHead)
            #expect(response.status == 200, "response \(index)")
            #expect(response.header("Content-Length") == "\(sizes[index % sizes.count])", "response \(index)")
            #expect(response.body == (isHead ? [] : Self.body(index, count: sizes[index % sizes.count])), "response \(index)")
        }
        client.close()
        await server.stop()
    }
}
