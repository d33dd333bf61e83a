import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Request tasks belong to their connection: a client that goes away cancels its responder,
/// and the server's `run()` returns only after every task it started has ended, whether it
/// finished within the shutdown grace period or was cancelled at its end.
@Suite(.timeLimit(.minutes(1))) struct OwnedTaskTests {
    /// What happened, in order, across the test, the responder and the server.
    final class Events: Sendable {
        private let list = Mutex<[String]>([])
        private let arrivals = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

        func note(_ event: String) {
            list.withLock { $0.append(event) }
            let waiting = arrivals.withLock { $0.removeValue(forKey: event) ?? [] }
            for waiter in waiting { waiter.resume() }
        }

        var all: [String] { list.withLock { $0 } }

        /// Returns once `event` has been noted (at once if it has).
        func wait(for event: String) async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let seen = list.withLock { list in
                    if list.contains(event) { return true }
                    arrivals.withLock { $0[event, default: []].append(waiter) }
                    return false
                }
                if seen { waiter.resume() }
            }
        }
    }

    /// A responder that notes "started", then waits until cancelled (noting "cancelled"), then
    /// does a little more asynchronous work before noting "ended": cancellation is cooperative,
    /// and the server must wait for that end too.
    static func waitsForCancellation(_ events: Events) -> ClosureResponder {
        ClosureResponder { _ in
            events.note("started")
            await withTaskCancellationHandler {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            } onCancel: {
                events.note("cancelled")
            }
            for _ in 0..<10 { await Task.yield() }
            events.note("ended")
            return .text("too late")
        }
    }

    @Test(arguments: [false, true])
    func aClientThatGoesAwayCancelsItsResponder(resets: Bool) async throws {
        let events = Events()
        let server = try TestServer(responder: Self.waitsForCancellation(events))
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        await events.wait(for: "started")
        if resets { client.reset() } else { client.close() }
        await events.wait(for: "ended")
        #expect(events.all == ["started", "cancelled", "ended"])
        await server.stop()
    }

    @Test func shutdownWaitsForAResponderThatFinishesWithinTheGracePeriod() async throws {
        let events = Events()
        let release = Events()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                events.note("started")
                await release.wait(for: "go")
                events.note("ended")
                return .text("finished")
            }, eventLoops: 1)
        let probe = try server.connect()
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        await events.wait(for: "started")
        let shutdown = await server.beginShutdown(probe: probe)
        #expect(!shutdown.hasReturned, "returned with a responder still running")
        release.note("go")
        let response = try await client.readResponse()
        #expect(response.text == "finished")
        #expect(response.header("Connection") == "close")
        #expect(try await shutdown.returns())
        #expect(events.all == ["started", "ended"])
        await server.stop()
    }

    @Test func aResponderStillRunningWhenTheGracePeriodEndsIsCancelledAndAwaited() async throws {
        let events = Events()
        let clock = ManualServerClock()
        let server = try TestServer(responder: Self.waitsForCancellation(events), eventLoops: 1, clock: clock)
        let probe = try server.connect()
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        await events.wait(for: "started")
        // The grace period runs from when the loop begins the shutdown, which the probe shows:
        // a task that merely calls shutdown() may not have reached the loop before the clock
        // moves (a busy machine), and then the period would start 9,999 ms late.
        let shutdown = await server.beginShutdown(probe: probe)
        await clock.advance(by: .milliseconds(9_999))
        #expect(!events.all.contains("cancelled"))
        #expect(!shutdown.hasReturned)
        await clock.advance(by: .milliseconds(1))
        #expect(try await shutdown.returns())
        events.note("run returned")
        #expect(events.all == ["started", "cancelled", "ended", "run returned"])
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func aStreamProducerIsAwaitedAtShutdown() async throws {
        let events = Events()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                HTTPResponse(
                    status: .ok, headers: ["Content-Type": "text/event-stream"],
                    stream: HTTPBodyStream { writer in
                        events.note("started")
                        while await writer.write("data: tick\n\n"), !Task.isCancelled {
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                        // Cleaning up takes a while and cannot be cancelled: the server waits.
                        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { done.resume() }
                        }
                        events.note("ended")
                    })
            })
        let client = try server.connect()
        client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        await events.wait(for: "started")
        await server.server.shutdown()
        events.note("run returned")
        #expect(events.all == ["started", "ended", "run returned"])
        await server.stop()
    }
}
