/// The message as it goes after DATA (RFC 5321 §4.5.2 and §4.1.1.4): every line that starts
/// with `.` gets another in front (the relay removes it), and the data ends with a line holding
/// only `.`.
enum SMTPData {
    /// `message` dot-stuffed and terminated: `CRLF . CRLF`, whose first CRLF ends the message's
    /// last line (one is added when `message` does not end with CRLF).
    static func stuffed(_ message: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.count + message.count / 64 + 5)
        var atLineStart = true
        for byte in message {
            if atLineStart && byte == dot { output.append(dot) }
            output.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        if !output.isEmpty && !output.ends(with: crlf) { output += crlf }
        return output + [dot] + crlf
    }

    private static let dot = UInt8(ascii: ".")
    private static let crlf: [UInt8] = [13, 10]
}

extension Array where Element == UInt8 {
    /// Whether the last bytes are `suffix`.
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
