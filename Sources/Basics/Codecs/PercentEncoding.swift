/// Percent-encoding (RFC 3986 §2.1) for paths, queries and form bodies: the one codec that
/// routes, static paths and forms share. The two dialects differ only in `+` (a space in a form
/// or query, itself in a path) and in whether `/` is kept.
package enum PercentEncoding {
    /// `%` not followed by two hex digits.
    package struct BadEscape: Error, Equatable {}

    /// `bytes` with every `%XX` decoded, and with `plusIsSpace` each `+` as a space (forms and
    /// queries, https://url.spec.whatwg.org/#urlencoded-parsing). The result may not be UTF-8.
    package static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) throws(BadEscape) -> [UInt8] {
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBufferPointer { buffer throws(BadEscape) in try decode(buffer, plusIsSpace: plusIsSpace) }
    }

    /// ``decode(_:plusIsSpace:)-(some Collection<UInt8>,_)`` of contiguous bytes: the one
    /// implementation, concrete so that callers in other modules do not run it unspecialised.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) throws(BadEscape) -> [UInt8] {
        // An array made with capacity 0 is the runtime's one shared empty array, whose count the
        // initializer writes: two threads decoding empty text at once were a data race under
        // ThreadSanitizer (SMTPRelayTests, in CI). Nothing to decode makes the literal instead.
        guard !bytes.isEmpty else { return [] }
        var failure: BadEscape?
        let decoded = [UInt8](unsafeUninitializedCapacity: bytes.count) { output, initialized in
            do throws(BadEscape) {
                initialized = try decode(bytes, plusIsSpace: plusIsSpace, into: output)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return decoded
    }

    /// Decodes `bytes` into `output` (room for at least `bytes.count`: decoding never lengthens)
    /// and returns how many bytes it wrote, so a caller can decode into memory it already has.
    package static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool, into output: UnsafeMutableBufferPointer<UInt8>
    ) throws(BadEscape) -> Int {
        precondition(output.count >= bytes.count, "room for every byte")
        var index = 0
        var written = 0
        while index < bytes.count {
            var byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let h = Hex.value(of: bytes[index + 1]), let l = Hex.value(of: bytes[index + 2]) else {
                    throw BadEscape()
                }
                byte = h << 4 | l
                index += 2
            } else if plusIsSpace, byte == UInt8(ascii: "+") {
                byte = UInt8(ascii: " ")
            }
            output[written] = byte
            written += 1
            index += 1
        }
        return written
    }

    /// `string` with every byte but RFC 3986's unreserved ones (and `/` when `keepingSlash`)
    /// written as `%XX`; with `spaceAsPlus` a space becomes `+` (forms and queries).
    package static func encode(_ string: String, keepingSlash: Bool, spaceAsPlus: Bool) -> String {
        // Most values (a path word, an id, a username) need no escape: returned as they are,
        // without a copy (a list page links two routes per quote).
        if string.utf8.allSatisfy(isUnreserved) { return string }
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case _ where isUnreserved(byte):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(Hex.uppercase[Int(byte >> 4)])
                out.append(Hex.uppercase[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 §2.3 unreserved characters: kept as they are in every dialect.
    @inline(__always)
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
