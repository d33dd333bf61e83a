private import CVips

/// What libvips said when an operation failed: the text of its error buffer.
///
/// libvips 8.14 keeps one error buffer for the whole process, so when two calls fail at the same
/// moment, one may take both messages and the other none. The message is for logs only; which
/// step failed decides what the failure means.
struct VipsFailure: Error, Equatable {
    let message: String

    /// Takes (copies and clears) libvips' error buffer: its lines joined with "; ", at most
    /// ``messageLimit`` characters of them.
    static func takeMessage() -> VipsFailure {
        guard let copy = cvips_error_buffer_copy() else { return VipsFailure(message: "libvips gave no message") }
        defer { cvips_free(copy) }
        let lines = String(decoding: UnsafeRawBufferPointer(start: copy, count: strlen(copy)), as: UTF8.self)
            .split(whereSeparator: \.isNewline)
        let text = lines.joined(separator: "; ")
        if text.isEmpty { return VipsFailure(message: "libvips gave no message") }
        return VipsFailure(message: text.count > messageLimit ? String(text.prefix(messageLimit)) + "…" : text)
    }

    /// The longest message kept: enough for libvips' usual one or two lines.
    static let messageLimit = 500
}
