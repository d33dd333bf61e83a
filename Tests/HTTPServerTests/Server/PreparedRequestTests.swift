import Basics
import HTTPServer
import Synchronization
import Testing

/// The server prepares each request once, from its head, and hands that context back with the
/// whole request; an answer its head decided but that must wait is awaited once the body is read.
@Suite(.timeLimit(.minutes(1))) struct PreparedRequestTests {
    /// Numbers the requests it prepares; a path under `/decided` is answered by its head, later.
    final class NumberingResponder: HTTPResponder {
        let prepared = Mutex(0)
        let replies = Mutex(0)

        func prepare(_ head: HTTPRequest) -> Int {
            prepared.withLock {
                $0 += 1
                return $0
            }
        }

        func reply(to request: HTTPRequest, in context: Int) -> Basics.Step<HTTPResponse> {
            replies.withLock { $0 += 1 }
            return .now(.text("request \(context) body=\(String(decoding: request.body, as: UTF8.self))"))
        }

        func replyBeforeBody(in context: Int) -> Basics.Step<HTTPResponse>? {
            guard context == 2 else { return nil }
            return .later {
                await Task.yield()
                return .text("decided by the head of request \(context)", status: .forbidden)
            }
        }
    }

    @Test func aRequestWithABodyIsPreparedOnceFromItsHead() async throws {
        let responder = NumberingResponder()
        let server = try TestServer(responder: responder)
        let client = try server.connect()
        let posted = try await client.exchange("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        #expect(posted.text == "request 1 body=hello")
        let decided = try await client.exchange("POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")
        #expect(decided.status == 403)
        #expect(decided.text == "decided by the head of request 2")
        let fetched = try await client.exchange("GET /c HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(fetched.text == "request 3 body=")
        #expect(responder.prepared.withLock { $0 } == 3)
        #expect(responder.replies.withLock { $0 } == 2, "the head's answer is not asked again")
        await server.stop()
    }
}
