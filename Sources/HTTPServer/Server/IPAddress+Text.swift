extension IPAddress: CustomStringConvertible {
    /// Parses numeric text; nil for anything else (names, ports, brackets, garbage).
    package init?(_ text: some StringProtocol) {
        guard (2...45).contains(text.utf8.count), let bytes = Platform.addressBytes(of: String(text)) else { return nil }
        self.init(bytes: bytes)
    }

    /// The usual text form: `192.0.2.1`, `2001:db8::1`.
    package var description: String { Platform.addressText(bytes) }
}
