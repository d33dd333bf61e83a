import Basics
import Glibc

/// Socket addresses: text to bytes and back, and the bytes in a `sockaddr`.
extension Platform {
    /// The 4 (IPv4) or 16 (IPv6) bytes of a numeric address in text, or nil.
    static func addressBytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The address in a `sockaddr_in6`-sized buffer holding an IPv4 or IPv6 socket address.
    static func addressBytes(of storage: inout sockaddr_in6) -> [UInt8]? {
        switch Int32(storage.sin6_family) {
        case AF_INET6:
            return withUnsafeBytes(of: &storage.sin6_addr) { Array($0) }
        case AF_INET:
            return withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    withUnsafeBytes(of: &v4.pointee.sin_addr) { Array($0) }
                }
            }
        default:
            return nil
        }
    }

    /// `bytes` (4 or 16) in the usual text form (`192.0.2.1`, `2001:db8::1`).
    static func addressText(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return "-" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
