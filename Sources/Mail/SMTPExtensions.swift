/// What the relay's EHLO reply offers (RFC 5321 §4.1.1.1): one keyword a line after the first,
/// with parameters; only STARTTLS (RFC 3207) and AUTH's mechanisms (RFC 4954 §3) matter here.
struct SMTPExtensions: Equatable {
    /// The keywords, upper-cased (`STARTTLS`, `AUTH`, `SIZE`…).
    private(set) var keywords: Set<String> = []
    /// AUTH's mechanisms, upper-cased (`PLAIN`, `LOGIN`…).
    private(set) var authMechanisms: Set<String> = []

    /// Nothing offered: what a relay that answered HELO (RFC 821) offers.
    static let none = SMTPExtensions()

    private init() {}

    /// The extensions the lines after the first of an EHLO reply list. Old relays also write
    /// `AUTH=LOGIN PLAIN` (a draft's spelling), read here as AUTH too.
    init(ehloReply: SMTPReply) {
        for line in ehloReply.lines.dropFirst() {
            let words = line.split(separator: " ").map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            if keyword == "AUTH" {
                authMechanisms.formUnion(words.dropFirst())
            } else if keyword.hasPrefix("AUTH=") {
                authMechanisms.formUnion([String(keyword.dropFirst(5))] + words.dropFirst())
                keywords.insert("AUTH")
                continue
            }
            keywords.insert(keyword)
        }
    }

    var offersStartTLS: Bool { keywords.contains("STARTTLS") }
}
