/// Signs the values of the app's cookies that other instances must believe and nobody can make
/// (``SeenWriteCookie``, ``KnownDeviceCookie``): a code of the first 128 bits of HMAC-SHA256,
/// base64url, under a key derived from the book's secret (the one CSRF tokens are made with,
/// kept in the shared database) and a label of each cookie's own, so a code for one cookie is
/// never one for another, nor a CSRF token.
struct CookieSigner: Sendable {
    /// Bytes of the HMAC kept in a code: 128 bits, past any guessing.
    static let codeByteCount = 16

    private let key: [UInt8]

    init(bookSecret: [UInt8], label: String) {
        key = HMACSHA256.authenticationCode(for: Array(label.utf8), key: bookSecret)
    }

    /// The code of `signed`.
    func code(for signed: some Collection<UInt8>) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: signed, key: key).prefix(Self.codeByteCount))
    }

    /// Whether `code` is `signed`'s, compared in constant time.
    func verifies(_ code: some Collection<UInt8>, for signed: some Collection<UInt8>) -> Bool {
        ConstantTime.equals(code, Array(self.code(for: signed).utf8))
    }
}
