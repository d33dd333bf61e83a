extension HTTPConnectionMachine {
    /// Where the connection is in its protocol. Pending output is orthogonal: a keep-alive
    /// response may still be sending while the next request is read.
    enum Phase: Equatable, Sendable {
        /// Between requests, nothing of the next one received.
        case idle
        /// Bytes of a request's header section have arrived (or wait, pipelined, in the input).
        case head
        /// The header section was accepted and its body needs memory the loop's body budget
        /// does not have yet: nothing more is parsed (reading stops at the input high-water
        /// mark) until ``HTTPConnectionMachine/bodyGranted(now:)``, or 503 at the body-read deadline.
        case waitingForBudget
        /// The header section was accepted; the body is being read.
        case body
        /// A whole request was handed to the responder; waiting for its answer.
        case responding
        /// A streamed body is being produced and sent.
        case streaming
        /// No more requests: once the output is sent, the write side is shut.
        case closing
        /// The write side is shut; input is read and dropped until the client's FIN or the
        /// linger deadline, so unread request bytes cannot turn the close into a reset.
        case lingering
        /// Done; the loop closes the socket.
        case closed
    }

    /// What the loop must do after an event. Events that need several steps return the first;
    /// the loop's next event (``flushed(now:)`` after a send, ``responseReady(_:dateField:now:)``
    /// after a dispatch) returns the next.
    enum Action: Sendable {
        /// Nothing until the next event.
        case none
        /// Answer this request (on the loop if the responder can, else in an owned task), then
        /// report the answer with ``responseReady(_:dateField:now:)``.
        case dispatch(HTTPRequest)
        /// Reserve this many bytes of the body budget for the body that follows, then report
        /// ``bodyGranted(now:)`` (at once, or when another body releases enough).
        case reserveBody(Int)
        /// Send the pending output (``withPendingOutput(_:)``), report progress with
        /// ``sent(_:now:)``, then ``flushed(now:)``; log the record if there is one.
        case send(AccessRecord?)
        /// Send the head, which is the pending output (``withPendingOutput(_:)``), then run the
        /// body's producer in an owned task.
        case startStream(HTTPBodyStream)
        /// The streamed body has ended: stop its producer, log, then send as for ``send(_:)``.
        case finishStream(AccessRecord)
        /// The request is refused (by the parser, or it timed out): answer it with
        /// ``reject(_:dateField:now:)``, which closes after the answer.
        case reject(HTTPRejection)
        /// The client has gone: cancel the responder's task. Its answer is still taken.
        case cancelResponder
        /// Shut the write side (`shutdown(SHUT_WR)`) and keep reading, to drop.
        case halfClose
        /// Close the socket (FIN), cancelling any task the connection owns.
        case close(CloseReason)
        /// Close with a reset (`SO_LINGER` 0): drop what the kernel still holds for the client.
        case abort(CloseReason)
    }

    /// Why a connection ends; for the debug log and tests.
    enum CloseReason: String, Sendable {
        case clientClosed = "client closed"
        case clientClosedDuringStream = "client closed during a stream"
        case responseSentClientClosed = "response sent, client closed"
        case lingerEnded = "client closed after the response"
        case idleTimeout = "idle timeout"
        case lingerTimeout = "linger timeout"
        case writeTimeout = "write timeout"
        case idleAtShutdown = "idle at shutdown"
        case shutdownGraceOver = "shutdown grace period over"
        case streamReaderTooSlow = "streaming client does not read"
    }

    /// One line of the access log: what was asked, what was answered, how long it took.
    struct AccessRecord: Sendable {
        /// `-` when no request line was parsed.
        var method: String
        var path: String
        /// nil for a streamed body.
        var status: Int?
        var bodyBytes: Int
        /// Monotonic nanoseconds at which the request started.
        var started: UInt64
        /// Set when the parser refused the request.
        var rejection: HTTPRejection?
    }

    /// The limits and timeouts every connection of a server shares (one instance per server).
    final class Rules: Sendable {
        let limits: HTTPLimits
        let header: UInt64
        let bodyRead: UInt64
        /// Longest a body may take from when its reading starts to its last byte.
        let bodyDeadline: UInt64
        /// Bytes per second a body must average once ``bodyRateGrace`` is over; 0: no minimum.
        let bodyMinimumRate: UInt64
        /// How long a body may start slowly before ``bodyMinimumRate`` applies.
        let bodyRateGrace: UInt64
        let idle: UInt64
        let write: UInt64
        let shutdownGrace: UInt64
        /// How long a closing connection waits for the client's FIN before it is dropped.
        let linger: UInt64
        /// The same during a graceful shutdown.
        let shutdownLinger: UInt64
        /// Stop parsing pipelined requests while this many response bytes wait to be sent.
        let outputHighWater: Int
        /// Stop reading while this many received bytes wait to be parsed.
        let inputHighWater: Int
        /// A streaming client with more unsent bytes than this is dropped.
        let streamBufferLimit: Int

        init(
            limits: HTTPLimits, timeouts: HTTPTimeouts, streamBufferLimit: Int,
            linger: UInt64 = 2_000_000_000, shutdownLinger: UInt64 = 50_000_000,
            outputHighWater: Int = 256 * 1024, inputHighWater: Int = 64 * 1024
        ) {
            self.limits = limits
            header = timeouts.header.nanoseconds
            bodyRead = timeouts.bodyRead.nanoseconds
            bodyDeadline = timeouts.bodyDeadline.nanoseconds
            bodyMinimumRate = UInt64(max(0, timeouts.bodyMinimumRate))
            bodyRateGrace = timeouts.bodyRateGrace.nanoseconds
            idle = timeouts.idle.nanoseconds
            write = timeouts.write.nanoseconds
            shutdownGrace = timeouts.shutdownGrace.nanoseconds
            self.linger = linger
            self.shutdownLinger = shutdownLinger
            self.outputHighWater = outputHighWater
            self.inputHighWater = inputHighWater
            self.streamBufferLimit = streamBufferLimit
        }

        /// The shortest timeout, which sets how often the loop checks deadlines.
        var shortestTimeout: UInt64 { min(header, bodyRead, idle, write) }
    }

    /// The request being answered: what the encoder and the access log need.
    struct Exchange: Sendable {
        var method: HTTPMethod
        var path: String
        var version: HTTPVersion
        var keepAlive: Bool
        var started: UInt64
        var streamedBytes = 0
        var isChunked = false
        /// Why the request's body was not read, for the access line.
        var refusal: HTTPRejection?
    }
}
