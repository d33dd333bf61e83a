import Mail
import Testing

struct SMTPRelayTests {
    static let valid: [(String, SMTPRelay)] = [
        ("smtp://relay.example.com", SMTPRelay(host: "relay.example.com")),
        ("smtp://relay.example.com:587", SMTPRelay(host: "relay.example.com", port: 587)),
        ("SMTP://Relay.Example.com:25/", SMTPRelay(host: "Relay.Example.com", port: 25)),
        ("smtp://127.0.0.1:2525", SMTPRelay(host: "127.0.0.1", port: 2525)),
        ("smtp://localhost", SMTPRelay(host: "localhost")),
        ("smtp://[::1]:2525", SMTPRelay(host: "::1", port: 2525)),
        ("smtp://[2001:db8::25]", SMTPRelay(host: "2001:db8::25")),
        (
            "smtp://mailer:secret@relay.example.com:587",
            SMTPRelay(host: "relay.example.com", port: 587, credentials: SMTPCredentials(user: "mailer", password: "secret"))
        ),
        (
            "smtp://user%40example.com:p%40ss%3Aw%2Frd%20%C3%A9@mail.example.com:2525",
            SMTPRelay(
                host: "mail.example.com", port: 2525, credentials: SMTPCredentials(user: "user@example.com", password: "p@ss:w/rd é"))
        ),
        (
            "smtp://apikey:abc@def@[::1]:587",
            SMTPRelay(host: "::1", port: 587, credentials: SMTPCredentials(user: "apikey", password: "abc@def"))
        ),
        ("smtp://a:b+c@h", SMTPRelay(host: "h", credentials: SMTPCredentials(user: "a", password: "b+c"))),
    ]

    @Test(arguments: valid)
    func parsesRelayURLs(url: String, relay: SMTPRelay) throws {
        #expect(try SMTPRelay(parsing: url) == relay)
    }

    static let invalid: [(String, SMTPRelayURLError)] = [
        ("smtps://relay.example.com", .unsupportedScheme),
        ("http://relay.example.com", .unsupportedScheme),
        ("relay.example.com:25", .unsupportedScheme),
        ("", .unsupportedScheme),
        ("smtp://", .emptyHost),
        ("smtp://:25", .emptyHost),
        ("smtp://u:p@", .emptyHost),
        ("smtp://relay.example.com/path", .pathOrQuery),
        ("smtp://relay.example.com?tls=no", .pathOrQuery),
        ("smtp://relay.example.com#x", .pathOrQuery),
        ("smtp://relay.example.com:0", .invalidPort),
        ("smtp://relay.example.com:65536", .invalidPort),
        ("smtp://relay.example.com:", .invalidPort),
        ("smtp://relay.example.com:+25", .invalidPort),
        ("smtp://relay.example.com:2x", .invalidPort),
        ("smtp://[::1", .invalidHost),
        ("smtp://[not-an-address]:25", .invalidHost),
        ("smtp://[::1]x", .invalidHost),
        ("smtp://::1", .invalidHost),
        ("smtp://bad_host", .invalidHost),
        ("smtp://-bad.example.com", .invalidHost),
        ("smtp://mailer@relay.example.com", .userWithoutPassword),
        ("smtp://mailer:@relay.example.com", .userWithoutPassword),
        ("smtp://:secret@relay.example.com", .userWithoutPassword),
        ("smtp://mailer:%zz@relay.example.com", .invalidEscape),
        ("smtp://mailer:a%00b@relay.example.com", .invalidEscape),
        ("smtp://mailer:%FF@relay.example.com", .invalidEscape),
    ]

    @Test(arguments: invalid)
    func refusesBadURLs(url: String, error: SMTPRelayURLError) {
        #expect(throws: error) { try SMTPRelay(parsing: url) }
    }

    @Test func descriptionNeverShowsThePassword() throws {
        let relay = try SMTPRelay(parsing: "smtp://mailer:hunter2%21@[::1]:587")
        #expect(relay.credentials?.password == "hunter2!")
        #expect("\(relay)" == "smtp://mailer:********@[::1]:587")
        #expect(!"\(relay)".contains("hunter2"))
        #expect(relay.credentials.map { "\($0)" } == "mailer:********")
        #expect("\(try SMTPRelay(parsing: "smtp://relay.example.com"))" == "smtp://relay.example.com:25")
        for error in [SMTPRelayURLError.invalidEscape, .userWithoutPassword, .invalidPort] {
            #expect(!"\(error)".isEmpty)
        }
    }
}
