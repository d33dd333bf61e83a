import Basics
private import CLinuxEvents
import Glibc

/// Thin typed wrappers over the Linux system calls the server uses; the only files (with
/// `Platform+Addresses.swift` and `FileSystem+Glibc.swift`) that spell C names.
///
/// Every call goes through ``Platform/call(_:_:)``, which retries `EINTR`, reports
/// `EAGAIN`/`EWOULDBLOCK` as ``IOOutcome/wouldBlock`` and turns any other `-1` into an
/// ``HTTPServerError/systemCall(_:errno:)`` naming the call, with `errno` read first.
enum Platform {
    /// The result of a non-blocking call: a value, or "try again when the poller says so".
    enum IOOutcome: Equatable {
        case done(Int)
        case wouldBlock
    }

    /// Runs `body` (a C call returning -1 on failure) until it does not fail with `EINTR`
    /// (``SystemCall/retryingInterrupts(_:)``).
    static func call(_ name: String, _ body: () -> Int) throws(HTTPServerError) -> IOOutcome {
        let result = SystemCall.retryingInterrupts(body)
        if result != -1 { return .done(result) }
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        default: throw .systemCall(name, errno: code)
        }
    }

    /// Like ``call(_:_:)`` for calls that never legitimately would-block.
    @discardableResult
    static func callBlocking(_ name: String, _ body: () -> Int) throws(HTTPServerError) -> Int {
        switch try call(name, body) {
        case .done(let value): return value
        case .wouldBlock: throw .systemCall(name, errno: EAGAIN)
        }
    }

    /// `strerror` text for an errno value.
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Errno values the server reacts to by name.
    static let errnoTooManyFiles: Int32 = EMFILE
    static let errnoSystemTooManyFiles: Int32 = ENFILE
    static let errnoNoBuffers: Int32 = ENOBUFS
    static let errnoNoMemory: Int32 = ENOMEM
    static let errnoConnectionAborted: Int32 = ECONNABORTED

    // MARK: listening

    /// A non-blocking, close-on-exec TCP socket bound to `host:port` with `SO_REUSEADDR`,
    /// listening with `backlog`; returns the descriptor and the bound port.
    static func makeListeningSocket(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6: Bool
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            isV6 = false
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            isV6 = true
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        } else {
            throw .invalidAddress(host)
        }
        guard (0...65535).contains(port) else { throw .invalidAddress("\(host):\(port)") }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = Int32(try callBlocking("socket") { Int(socket(isV6 ? AF_INET6 : AF_INET, type, 0)) })
        do {
            try setOption(fd, level: SOL_SOCKET, option: SO_REUSEADDR, value: 1, name: "setsockopt(SO_REUSEADDR)")
            if isV6 {
                try callBlocking("bind") {
                    withUnsafePointer(to: &v6) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            Int(bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)))
                        }
                    }
                }
            } else {
                try callBlocking("bind") {
                    withUnsafePointer(to: &v4) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            Int(bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)))
                        }
                    }
                }
            }
            try callBlocking("listen") { Int(listen(fd, backlog)) }
            var storage = sockaddr_in6()
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            try callBlocking("getsockname") {
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(getsockname(fd, $0, &length)) }
                }
            }
            // sin_port and sin6_port sit at the same offset.
            let bound = Int(UInt16(bigEndian: storage.sin6_port))
            return (fd, bound)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }

    /// Accepts one connection as a non-blocking, close-on-exec socket with `TCP_NODELAY` set.
    /// Accepts a pending connection: its descriptor and its peer's address bytes (nil when
    /// the kernel gave none), or nil when none is pending.
    static func accept(_ listener: Int32) throws(HTTPServerError) -> (fd: Int32, peer: [UInt8]?)? {
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let outcome = try call("accept4") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(accept4(listener, $0, &length, flags)) }
            }
        }
        switch outcome {
        case .wouldBlock: return nil
        case .done(let fd):
            let fd = Int32(fd)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return (fd, addressBytes(of: &storage))
        }
    }

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`).
    static func fileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// Raises the soft descriptor limit to the hard one (at most `ceiling`), as Go's runtime
    /// does at start-up; returns the soft limit then in force.
    static func raiseFileLimit(to ceiling: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return fileLimit() }
        let wanted = min(limit.rlim_max, rlim_t(ceiling))
        if wanted > limit.rlim_cur {
            limit.rlim_cur = wanted
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return fileLimit()
    }

    private static func setOption(_ fd: Int32, level: Int32, option: Int32, value: Int32, name: String) throws(HTTPServerError) {
        var value = value
        try callBlocking(name) { Int(setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))) }
    }

    // MARK: reading and writing

    /// Reads at most `buffer.count` bytes; `.done(0)` is end of stream.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(HTTPServerError) -> IOOutcome {
        try call("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Sends bytes with `MSG_NOSIGNAL`, so a peer that has gone away is an `EPIPE` error, never a
    /// `SIGPIPE`.
    static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(HTTPServerError) -> IOOutcome {
        try call("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends `first` then `second` in one call (`sendmsg` with two parts when both have bytes),
    /// so a body kept in its own array goes out behind its head without being copied.
    static func send(
        _ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer
    ) throws(HTTPServerError) -> IOOutcome {
        if second.isEmpty { return try send(fd, first) }
        if first.isEmpty { return try send(fd, second) }
        var parts = (
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
        )
        return try withUnsafeMutableBytes(of: &parts) { raw throws(HTTPServerError) -> IOOutcome in
            var message = msghdr()
            message.msg_iov = raw.baseAddress?.assumingMemoryBound(to: iovec.self)
            message.msg_iovlen = 2
            return try call("sendmsg") { Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Reads and drops what a new socket already received (one read, never waiting), so that
    /// closing it straight away sends the canned answer before a FIN, not a reset.
    static func discardPendingInput(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        _ = scratch.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    }

    /// Half-closes the sending side (FIN), for a lingering close.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Makes the next `close` abortive (`SO_LINGER` 0: the kernel sends RST and drops whatever it
    /// still queues for the peer, instead of trickling it to a client that does not read).
    static func abortOnClose(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is released anyway
    /// and a retry could close a descriptor another thread has just been given.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    // MARK: epoll and eventfd

    // <sys/epoll.h>, <sys/eventfd.h> and `accept4` come from the CLinuxEvents module (shim.h),
    // which also builds and reads the packed `struct epoll_event` in C.

    /// Event bits (`EPOLLIN` …), named for Swift callers.
    static let eventReadable = EPOLLIN.rawValue
    static let eventWritable = EPOLLOUT.rawValue
    static let eventError = EPOLLERR.rawValue
    static let eventHangUp = EPOLLHUP.rawValue | EPOLLRDHUP.rawValue
    static let eventExclusive = EPOLLEXCLUSIVE.rawValue
    static let eventEdgeTriggered = EPOLLET.rawValue

    static func epollCreate() throws(HTTPServerError) -> Int32 {
        Int32(try callBlocking("epoll_create1") { Int(epoll_create1(Int32(EPOLL_CLOEXEC))) })
    }

    /// `EPOLL_CTL_ADD`, `_MOD` or `_DEL` for `fd` with `token` as the event's data.
    static func epollControl(_ epoll: Int32, _ operation: EpollOperation, fd: Int32, events: UInt32, token: UInt64) throws(HTTPServerError)
    {
        let op: Int32
        switch operation {
        case .add: op = EPOLL_CTL_ADD
        case .delete: op = EPOLL_CTL_DEL
        case .modify: op = EPOLL_CTL_MOD
        }
        try callBlocking("epoll_ctl") { Int(clinuxevents_epoll_ctl(epoll, op, fd, events, token)) }
    }

    /// What ``epollControl(_:_:fd:events:token:)`` does.
    enum EpollOperation { case add, modify, delete }

    /// Room for `capacity` ready events: a loop allocates it once and passes it to every
    /// ``epollWait(_:events:timeoutMilliseconds:_:)``. (A temporary allocation of 256 events per
    /// wait is 3 KB, over what `withUnsafeTemporaryAllocation` places on the stack: it was a heap
    /// allocation, aligned, on every wake-up.) Freed with `deallocate()` by its owner.
    static func allocateEpollEvents(capacity: Int) -> UnsafeMutableRawBufferPointer {
        .allocate(
            byteCount: capacity * MemoryLayout<epoll_event>.stride, alignment: MemoryLayout<epoll_event>.alignment)
    }

    /// Waits at most `timeoutMilliseconds` (-1: forever) for at most as many events as `events`
    /// (from ``allocateEpollEvents(capacity:)``) holds, and calls `handle(events, token)` for each
    /// ready descriptor; returns how many there were (0 on timeout or `EINTR`).
    static func epollWait(
        _ epoll: Int32, events buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32,
        _ handle: (UInt32, UInt64) -> Void
    ) throws(HTTPServerError) -> Int {
        let capacity = buffer.count / MemoryLayout<epoll_event>.stride
        let events = buffer.bindMemory(to: epoll_event.self)
        let count = Int(epoll_wait(epoll, events.baseAddress, Int32(capacity), timeoutMilliseconds))
        if count < 0 {
            let code = errno
            if code == EINTR { return 0 }
            throw .systemCall("epoll_wait", errno: code)
        }
        for index in 0..<Int32(count) {
            handle(clinuxevents_event_mask(events.baseAddress, index), clinuxevents_event_token(events.baseAddress, index))
        }
        return count
    }

    static func eventCreate() throws(HTTPServerError) -> Int32 {
        Int32(try callBlocking("eventfd") { Int(eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))) })
    }

    /// Adds one to an eventfd counter, waking its poller.
    static func eventSignal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = try? call("write(eventfd)") { Glibc.write(fd, &one, 8) }
    }

    /// Resets an eventfd counter.
    static func eventDrain(_ fd: Int32) {
        var value: UInt64 = 0
        _ = try? call("read(eventfd)") { Glibc.read(fd, &value, 8) }
    }

    // MARK: time

    /// Nanoseconds on the monotonic clock (only differences mean anything).
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Seconds since the Unix epoch on the wall clock.
    static func wallClockSeconds() -> Int {
        Int(time(nil))
    }
}
