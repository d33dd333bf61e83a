@testable import HTTPServer

/// An ``HTTPConnectionMachine/Action`` reduced to what a test compares: its kind and the part
/// of its payload that identifies it.
enum Step: Equatable, Sendable {
    case none
    /// The dispatched request's method and target, e.g. `GET /a`.
    case dispatch(String)
    case reserveBody(Int)
    /// The access record's status; nil when the send carries no record (100 Continue, a chunk).
    case send(Int?)
    case startStream
    /// The body bytes the stream's access record counts.
    case finishStream(Int)
    /// The rejection's status code.
    case reject(Int)
    case cancelResponder
    case halfClose
    case close(HTTPConnectionMachine.CloseReason)
    case abort(HTTPConnectionMachine.CloseReason)

    /// Whether this is a close, for whatever reason.
    var isClose: Bool {
        if case .close = self { return true }
        return false
    }

    init(_ action: HTTPConnectionMachine.Action) {
        switch action {
        case .none: self = .none
        case .dispatch(let request): self = .dispatch("\(request.method) \(request.target)")
        case .reserveBody(let bytes): self = .reserveBody(bytes)
        case .send(let record): self = .send(record?.status)
        case .startStream: self = .startStream
        case .finishStream(let record): self = .finishStream(record.bodyBytes)
        case .reject(let rejection): self = .reject(rejection.status.code)
        case .cancelResponder: self = .cancelResponder
        case .halfClose: self = .halfClose
        case .close(let reason): self = .close(reason)
        case .abort(let reason): self = .abort(reason)
        }
    }
}

/// Plays the event loop around one ``HTTPConnectionMachine`` with explicit times, as
/// `EventLoop+Connections.swift` does: feeds received bytes, "sends" pending output through a
/// socket that takes all or part of it (recording what it took), answers dispatches and
/// rejections, grants body reservations. Each event method sends one event and returns the
/// machine's action as a ``Step``; ``play(_:)`` then carries on as the loop would.
struct MachineDriver {
    typealias Machine = HTTPConnectionMachine

    /// The `Date` field every response gets.
    static let dateField = Array("Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n".utf8)

    private(set) var machine: Machine
    /// Every byte the socket accepted, in order.
    private(set) var wire: [UInt8] = []
    /// Every step the machine returned, in order.
    private(set) var steps: [Step] = []
    /// Every request dispatched, in order.
    private(set) var requests: [HTTPRequest] = []
    /// The time of the last event.
    private(set) var now: UInt64
    /// What ``play(_:)`` answers dispatches with, in order; a dispatch finding none waits.
    var responses: [HTTPResponse] = []
    /// Whether ``play(_:)`` grants body reservations at once.
    var grantsBodies = true
    /// How many bytes the socket takes per flush while playing.
    var socketWindow = Int.max
    private var lastAction = Machine.Action.none
    private var lastRejection: HTTPRejection?

    /// A connection accepted at `now`.
    init(rules: Machine.Rules = .testing(), now: UInt64) {
        machine = Machine(rules: rules, now: now)
        self.now = now
    }

    var phase: Machine.Phase { machine.phase }
    var deadline: UInt64? { machine.deadline }
    var wantsInput: Bool { machine.wantsInput }
    var pendingOutputCount: Int { machine.pendingOutputCount }
    var unconsumedInputCount: Int { machine.unconsumedInputCount }
    /// What the socket accepted so far, as text.
    var written: String { String(decoding: wire, as: UTF8.self) }
    /// What waits to be sent, as text.
    var pending: String {
        var machine = machine
        return machine.withPendingOutput { String(decoding: Array($0) + Array($1), as: UTF8.self) }
    }
    /// The status lines the socket accepted, in order (interim responses included; the
    /// bodies in these tests never contain `HTTP/1.1 `).
    var statusLines: [String] {
        written.split(separator: "HTTP/1.1 ", omittingEmptySubsequences: false).dropFirst().map { rest in
            "HTTP/1.1 " + rest.prefix { $0 != "\r\n" }
        }
    }

    // MARK: One event each

    mutating func received(_ text: String, at now: UInt64) -> Step {
        let bytes = Array(text.utf8)
        let action = bytes.withUnsafeBytes { machine.received($0, now: now) }
        return record(action, at: now)
    }

    mutating func endOfInput(at now: UInt64) -> Step {
        record(machine.endOfInput(now: now), at: now)
    }

    /// The socket takes up to `window` bytes of the pending output (the loop reports no
    /// progress when it takes none), then the loop reports the flush.
    mutating func flush(at now: UInt64, accepting window: Int = .max) -> Step {
        let count = min(window, machine.pendingOutputCount)
        if count > 0 {
            let accepted = machine.withPendingOutput { Array((Array($0) + Array($1)).prefix(count)) }
            wire.append(contentsOf: accepted)
            machine.sent(count, now: now)
        }
        return record(machine.flushed(now: now), at: now)
    }

    mutating func respond(_ response: HTTPResponse, at now: UInt64) -> Step {
        record(machine.responseReady(response, dateField: Self.dateField, now: now), at: now)
    }

    mutating func streamed(_ text: String, at now: UInt64) -> Step {
        record(machine.streamed(Array(text.utf8), now: now), at: now)
    }

    mutating func streamEnded(overflowed: Bool = false, at now: UInt64) -> Step {
        record(machine.streamEnded(overflowed: overflowed, now: now), at: now)
    }

    mutating func tick(at now: UInt64) -> Step {
        record(machine.tick(now: now), at: now)
    }

    mutating func shutdown(at now: UInt64) -> Step {
        record(machine.shutdown(now: now), at: now)
    }

    mutating func bodyGranted(at now: UInt64) -> Step {
        record(machine.bodyGranted(now: now), at: now)
    }

    /// Answers the rejection the machine asked for last.
    mutating func answerBeforeBody(_ response: HTTPResponse, at now: UInt64) -> Step {
        record(machine.answerBeforeBody(response, dateField: Self.dateField, now: now), at: now)
    }

    mutating func reject(at now: UInt64) -> Step {
        guard let rejection = lastRejection else { return .none }
        return record(machine.reject(rejection, dateField: Self.dateField, now: now), at: now)
    }

    // MARK: The loop

    /// Sends `event`, then does what the loop does with each action until the machine waits:
    /// flushes sends (``socketWindow`` bytes at a time), answers dispatches from ``responses``,
    /// grants bodies when ``grantsBodies``, answers rejections. All at the event's time.
    /// - Returns: every step, the event's own first.
    @discardableResult
    mutating func play(_ event: (inout MachineDriver) -> Step) -> [Step] {
        let first = steps.count
        _ = event(&self)
        following: while true {
            switch lastAction {
            case .send, .startStream, .finishStream:
                _ = flush(at: now, accepting: socketWindow)
            case .reject:
                _ = reject(at: now)
            case .reserveBody where grantsBodies:
                _ = bodyGranted(at: now)
            case .dispatch where !responses.isEmpty:
                _ = respond(responses.removeFirst(), at: now)
            case .none, .reserveBody, .dispatch, .cancelResponder, .halfClose, .close, .abort:
                break following
            }
        }
        return Array(steps[first...])
    }

    private mutating func record(_ action: Machine.Action, at now: UInt64) -> Step {
        self.now = now
        lastAction = action
        if case .dispatch(let request) = action { requests.append(request) }
        if case .reject(let rejection) = action { lastRejection = rejection }
        let step = Step(action)
        steps.append(step)
        return step
    }
}
