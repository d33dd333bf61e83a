/// The TCP connection to the relay: owns a non-blocking socket descriptor, closes it exactly
/// once (``close()``), and makes every read and write wait with `poll(2)` no longer than its
/// ``Deadline``.
///
/// Not Sendable: one delivery's thread uses it from start to end.
final class SMTPSocket {
    /// The descriptor; -1 once closed.
    private var descriptor: Int32
    /// `host:port`, for error messages.
    let peer: String

    private init(descriptor: Int32, peer: String) {
        self.descriptor = descriptor
        self.peer = peer
    }

    deinit {
        assert(descriptor < 0, "an SMTPSocket must be closed before it goes")
    }

    /// Connects to `host`:`port`, trying each address the resolver gives in turn until one
    /// answers, all within `deadline`.
    ///
    /// - Throws: ``MailDeliveryError/temporary(_:)``: a name that does not resolve may be a DNS
    ///   outage, and a refused or unreachable relay may be back later.
    static func connect(host: String, port: Int, deadline: Deadline) throws(MailDeliveryError) -> SMTPSocket {
        let peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let addresses: [SocketCalls.Address]
        switch SocketCalls.resolve(host: host, port: port) {
        case .found(let found): addresses = found
        case .failed(let message): throw .temporary("cannot resolve \(host): \(message)")
        }
        var failures: [String] = []
        for address in addresses {
            if deadline.hasPassed { break }
            switch attempt(address, deadline: deadline) {
            case .connected(let descriptor): return SMTPSocket(descriptor: descriptor, peer: peer)
            case .failed(let reason): failures.append(reason)
            }
        }
        if failures.isEmpty { failures.append("no address") }
        throw .temporary("cannot connect to \(peer): " + failures.joined(separator: "; "))
    }

    /// What trying one address gave.
    private enum Attempt {
        case connected(Int32)
        /// Why not; the descriptor is closed.
        case failed(String)
    }

    private static func attempt(_ address: SocketCalls.Address, deadline: Deadline) -> Attempt {
        let descriptor: Int32
        switch SocketCalls.openSocket(family: address.family) {
        case .done(let opened): descriptor = Int32(opened)
        case .failed(let code): return .failed(SocketCalls.message(code))
        case .wouldBlock: return .failed("socket(2) would block")
        }
        var failure: String
        switch SocketCalls.startConnect(descriptor, to: address) {
        case .done:
            return .connected(descriptor)
        case .failed(let code):
            failure = SocketCalls.message(code)
        case .wouldBlock:
            failure = "timed out after \(deadline.timeout)"
            while !deadline.hasPassed {
                guard SocketCalls.wait(descriptor, forWriting: true, milliseconds: deadline.remainingMilliseconds) else { continue }
                let code = SocketCalls.pendingError(descriptor)
                if code == 0 { return .connected(descriptor) }
                failure = SocketCalls.message(code)
                break
            }
        }
        SocketCalls.close(descriptor)
        return .failed(failure)
    }

    /// Reads what has arrived, up to `limit` bytes, waiting for at least one until `deadline`.
    ///
    /// - Throws: ``MailDeliveryError/temporary(_:)`` naming `step` when the time runs out, the
    ///   relay closes the connection (an empty read is never returned) or the read fails.
    func receive(limit: Int, deadline: Deadline, step: String) throws(MailDeliveryError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let outcome = buffer.withUnsafeMutableBytes { SocketCalls.receive(descriptor, into: $0) }
            switch outcome {
            case .done(0):
                throw .temporary("\(peer) closed the connection \(step)")
            case .done(let count):
                return Array(buffer[..<count])
            case .failed(let code):
                throw .temporary("\(peer): reading failed \(step): \(SocketCalls.message(code))")
            case .wouldBlock:
                try wait(forWriting: false, deadline: deadline, step: step)
            }
        }
    }

    /// Sends every byte of `bytes`, waiting for room until `deadline`.
    func send(_ bytes: some Collection<UInt8>, deadline: Deadline, step: String) throws(MailDeliveryError) {
        let bytes = Array(bytes)
        var sent = 0
        while sent < bytes.count {
            let outcome = bytes[sent...].withUnsafeBytes { SocketCalls.send(descriptor, $0) }
            switch outcome {
            case .done(let count):
                sent += count
            case .failed(let code):
                throw .temporary("\(peer): sending failed \(step): \(SocketCalls.message(code))")
            case .wouldBlock:
                try wait(forWriting: true, deadline: deadline, step: step)
            }
        }
    }

    private func wait(forWriting: Bool, deadline: Deadline, step: String) throws(MailDeliveryError) {
        while !SocketCalls.wait(descriptor, forWriting: forWriting, milliseconds: deadline.remainingMilliseconds) {
            if deadline.hasPassed { throw .temporary("\(peer): timed out after \(deadline.timeout) \(step)") }
        }
    }

    /// Closes the socket; later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        SocketCalls.close(descriptor)
        descriptor = -1
    }
}

@available(*, unavailable, message: "A socket belongs to one delivery's thread.")
extension SMTPSocket: Sendable {}
