import Basics

/// Turns a percent-encoded request path into safe path segments below a root folder.
///
/// Rejects (nil) anything that could leave the root or name something odd: `.` and `..`
/// segments (also encoded as `%2e`), encoded `/` (`%2f`), backslashes, NUL and other control
/// bytes, invalid or overlong UTF-8 (RFC 3629 §3), empty segments, and dot-files. RFC 3986
/// §3.3 and §2.1 define the path and its encoding.
enum StaticPath {
    static func segments(ofEncodedPath path: String) -> [String]? {
        guard path.hasPrefix("/"), path.utf8.count <= 4096 else { return nil }
        var result: [String] = []
        for raw in path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let segment = decode(raw), !segment.isEmpty, !segment.hasPrefix(".") else { return nil }
            result.append(segment)
        }
        return result
    }

    /// Percent-decodes one segment and validates the bytes.
    private static func decode(_ raw: Substring.UTF8View.SubSequence) -> String? {
        guard let bytes = try? PercentEncoding.decode(raw, plusIsSpace: false),
            bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
