import Basics
import Glibc

/// The system calls the SMTP client makes, as thin typed functions: the only file of the module
/// spelling socket C names (the TLS files spell OpenSSL's). Every call is non-blocking or bounded
/// by a timeout, except `getaddrinfo(3)`, which has none (the resolver's own timeouts, a few
/// seconds per server, bound it).
enum SocketCalls {
    /// One address `getaddrinfo` returned, as the bytes of its `sockaddr`.
    struct Address {
        let family: Int32
        let bytes: [UInt8]
    }

    /// What ``resolve(host:port:)`` found.
    enum Resolution {
        case found([Address])
        /// The resolver's message (`gai_strerror`).
        case failed(String)
    }

    /// What a call that may have nothing to do right now returned.
    enum Outcome {
        /// That many bytes moved; 0 from ``receive(_:into:)`` is the end of the stream.
        case done(Int)
        case wouldBlock
        case failed(Int32)
    }

    /// The addresses of `host` (a name or an IP address) for TCP to `port`, in the resolver's
    /// order (RFC 6724), or the resolver's message.
    static func resolve(host: String, port: Int) -> Resolution {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failed(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                let raw = UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen))
                addresses.append(Address(family: current.pointee.ai_family, bytes: Array(raw)))
            }
            entry = current.pointee.ai_next
        }
        return .found(addresses)
    }

    /// A new non-blocking, close-on-exec TCP socket for `family` (`.done(descriptor)`), or
    /// `.failed(errno)`.
    static func openSocket(family: Int32) -> Outcome {
        let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { return .failed(errno) }
        var one: Int32 = 1
        // Commands are small and each waits for its reply: Nagle's delay would only add latency.
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return .done(Int(descriptor))
    }

    /// Starts connecting `descriptor` to `address`: `.done(0)` when connected at once,
    /// `.wouldBlock` while in progress (wait until writable, then ``pendingError(_:)``).
    static func startConnect(_ descriptor: Int32, to address: Address) -> Outcome {
        let result = address.bytes.withUnsafeBytes { raw in
            SystemCall.retryingInterrupts {
                connect(descriptor, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
        }
        if result == 0 { return .done(0) }
        let code = errno
        // EINTR above is retried, and a retried connect in progress reports EALREADY.
        return code == EINPROGRESS || code == EALREADY ? .wouldBlock : .failed(code)
    }

    /// The outcome of a finished non-blocking connect (`SO_ERROR`): 0 when connected.
    static func pendingError(_ descriptor: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    /// Waits up to `milliseconds` until `descriptor` is readable (or writable): true when it is
    /// or may be (an error, a hang-up, or a signal's interruption all make the next call tell),
    /// false when the time ran out.
    static func wait(_ descriptor: Int32, forWriting: Bool, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) != 0
    }

    /// Reads what has arrived, without waiting.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        outcome(SystemCall.retryingInterrupts { recv(descriptor, buffer.baseAddress, buffer.count, 0) })
    }

    /// Sends what the kernel takes now, with `MSG_NOSIGNAL` so a relay that went away is an
    /// `EPIPE` error, never a `SIGPIPE` that would end the process.
    static func send(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Outcome {
        outcome(SystemCall.retryingInterrupts { Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) })
    }

    private static func outcome(_ result: Int) -> Outcome {
        if result >= 0 { return .done(result) }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(code)
    }

    /// Closes `descriptor` once, never retried (close(2): on Linux it is released even when
    /// interrupted).
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// `strerror(code)`, e.g. "Connection refused".
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Whether `text` is an IPv6 address (`inet_pton(3)`), as a bracketed URL host must be.
    static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// Whether `text` is an IPv4 or IPv6 address rather than a name: a TLS certificate is then
    /// checked for that IP address, and no SNI is sent (RFC 6066 §3 allows names only).
    static func isIPAddress(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1 || isIPv6Address(text)
    }
}
