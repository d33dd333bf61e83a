import Store

/// The sentence shown beside a field that holds a character ``TypedText`` refuses: it names the
/// character by code point, since most of them are invisible, and says what to do.
enum TypedTextMessage {
    /// The message for `scalar` found in `field` ("the quote's text", "your username").
    static func forbidden(_ scalar: Unicode.Scalar, in field: String) -> String {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D:
            "Please write \(field) on one line, without tabs or line breaks."
        case _ where TypedText.isBidirectionalControl(scalar):
            "Please remove the text-direction control \(codePoint(scalar)) from \(field): it can make the page read in the wrong order."
        default:
            "Please remove the invisible control character \(codePoint(scalar)) from \(field)."
        }
    }

    /// `U+` and at least four upper-case hex digits, as Unicode names code points.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
