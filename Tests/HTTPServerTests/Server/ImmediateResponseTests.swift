import Basics
import HTTPServer
import Logging
import TestSupport
import Testing

/// The synchronous path: a responder's `reply(to:in:)` answers `.now` on the event loop, and
/// `.later` work runs in a task (on both kinds of execution).
@Suite(.timeLimit(.minutes(1))) struct ImmediateResponseTests {
    /// Answers paths starting with `/now` at once, every other path asynchronously; each body
    /// says which path made it.
    struct SplitResponder: HTTPResponder {
        func reply(to request: HTTPRequest, in context: HTTPRequest) -> Basics.Step<HTTPResponse> {
            if request.path.hasPrefix("/now") { return .now(.text("now \(request.path)")) }
            return .later {
                await Task.yield()
                return .text("async \(request.path)")
            }
        }
    }

    @Test(arguments: [ResponderExecution.cooperativePool, .eventLoop])
    func answersImmediatelyWhenTheResponderCanElseAsynchronously(execution: ResponderExecution) async throws {
        let server = try TestServer(responder: SplitResponder(), execution: execution)
        let client = try server.connect()
        #expect(try await client.exchange("GET /now/1 HTTP/1.1\r\nHost: h\r\n\r\n").text == "now /now/1")
        #expect(try await client.exchange("GET /later HTTP/1.1\r\nHost: h\r\n\r\n").text == "async /later")
        let head = try await client.exchange("HEAD /now/2 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == String("now /now/2".utf8.count))
        await server.stop()
    }

    @Test func pipelinedImmediateAndAsynchronousAnswersKeepTheirOrder() async throws {
        let server = try TestServer(responder: SplitResponder())
        let client = try server.connect()
        let paths = ["/later/0", "/now/1", "/now/2", "/later/3", "/now/4"]
        client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined())
        for path in paths {
            #expect(try await client.readResponse().text == (path.hasPrefix("/now") ? "now " : "async ") + path)
        }
        await server.stop()
    }

    @Test func theDefaultSendsEverythingToRespond() {
        #expect(EchoResponder().immediateResponse(to: HTTPRequest(method: .get, target: "/", headers: ["Host": "h"])) == nil)
    }

    @Test func anImmediateAnswerIsLoggedAndClosesOnRequest() async throws {
        let server = try TestServer(responder: SplitResponder())
        let client = try server.connect()
        let response = try await client.exchange("GET /now/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        await server.stop()
        #expect(server.log.entries.contains { $0.message.hasPrefix("127.0.0.1 GET /now/x 200 ") })
    }
}
