import Basics

/// `bytea` values in PostgreSQL's hex format, `\x` then two hex digits per byte
/// (https://www.postgresql.org/docs/15/datatype-binary.html#id-1.5.7.12.9): how bytes go in as a
/// text parameter and come back as text (``PostgresConnection`` sets `bytea_output=hex`).
package enum PostgresBytea {
    /// `bytes` as `\x0aff…`, to pass as a text parameter for a `bytea` column.
    package static func encode(_ bytes: [UInt8]) -> String {
        "\\x" + Hex.encode(bytes)
    }

    /// The bytes of a hex-format `bytea` text, or nil when `text` is not one.
    package static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else { return nil }
        return Hex.decode(Substring(text.utf8.dropFirst(2)))
    }
}
