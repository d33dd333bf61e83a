import Foundation
import Mail
import Testing

struct MailMessageFormattingTests {
    static let expectedHeaders = [
        "From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
    ]

    static func message(
        fromName: String? = "Quotebook", subject: String = "Reset your password", text: String = "Hello.\n"
    ) -> MailMessage {
        .fixture(fromName: fromName, subject: subject, text: text)
    }

    @Test func writesTheHeadersInOrderWithCRLF() throws {
        let bytes = Self.message().formatted()
        let mail = try ParsedMail(bytes)
        #expect(mail.headers.map(\.name) == Self.expectedHeaders)
        #expect(mail.value("From") == "Quotebook <noreply@quotes.example>")
        #expect(mail.value("To") == "Someone@example.org")
        #expect(mail.value("Subject") == "Reset your password")
        #expect(mail.value("Date") == "Sun, 29 Nov 2026 06:43:48 +0000")
        #expect(mail.value("Message-ID") == "<0123456789abcdef0123456789abcdef@quotes.example>")
        #expect(mail.value("MIME-Version") == "1.0")
        #expect(mail.value("Content-Type") == "text/plain; charset=utf-8")
        #expect(mail.value("Content-Transfer-Encoding") == "quoted-printable")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line break is CRLF")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
        #expect(bytes.allSatisfy { $0 < 0x80 }, "7-bit only")
        #expect(text.hasSuffix("\r\n"))
    }

    static let injections: [String] = [
        "Hi\r\nBcc: victim@example.com",
        "Hi\nBcc: victim@example.com",
        "Hi\rBcc: victim@example.com",
        "Hi\r\n\r\nbody",
        "Hi\u{85}Bcc: victim@example.com",
        "Hi\u{2028}Bcc: victim@example.com",
        "Grüße\r\nBcc: victim@example.com",
        "=?utf-8?Q?x?=\r\nBcc: victim@example.com",
        "\r\nTo: victim@example.com",
    ]

    @Test(arguments: injections)
    func subjectAndNameCannotAddAHeader(injection: String) throws {
        for message in [Self.message(subject: injection), Self.message(fromName: injection)] {
            let mail = try ParsedMail(message.formatted())
            #expect(mail.headers.map(\.name) == Self.expectedHeaders)
            #expect(!mail.headerLines.contains { $0.hasPrefix("Bcc") || $0.hasPrefix("To: victim") })
        }
        let subject = try #require(try ParsedMail(Self.message(subject: injection).formatted()).decoded("Subject"))
        #expect(!subject.contains("\r") && !subject.contains("\n"))
        #expect(subject.contains("Bcc: victim@example.com") || subject.contains("To: victim@example.com") || subject == "Hi body")
    }

    static let subjects: [String] = [
        "Grüße aus Köln",
        "日本語のテキストをここに。長い件名は複数のエンコードされた単語に分割され、各行が七十八文字以内に収まる必要があります。",
        "Emoji 👩‍👩‍👧‍👦 and flags 🇫🇷🇩🇪 in a subject long enough to need two encoded words at least, surely",
        "Plain ASCII but far longer than one header line can hold, so it has to be folded at the spaces between words",
        "A word longer than any line: " + String(repeating: "x", count: 90),
        "Looks like =?utf-8?B?SGk=?= an encoded word",
        "  leading, trailing and   inner   runs of spaces  ",
    ]

    @Test(arguments: subjects)
    func subjectsRoundTripWithinLineLimits(subject: String) throws {
        let bytes = Self.message(subject: subject).formatted()
        let mail = try ParsedMail(bytes)
        let expected = subject.split(separator: " ").joined(separator: " ")
        #expect(mail.decoded("Subject") == expected)
        for line in mail.headerLines { #expect(line.utf8.count <= 78, "\(line)") }
        if subject.utf8.allSatisfy({ $0 < 0x80 }) == false {
            #expect(mail.value("Subject")?.hasPrefix("=?utf-8?") == true)
        }
    }

    /// A display name, the From header as written, and as a reader shows it (nil: as written).
    static let names: [(String, String, String?)] = [
        ("Quotebook", "Quotebook <noreply@quotes.example>", nil),
        ("Quote Book", "Quote Book <noreply@quotes.example>", nil),
        ("Quotes, Inc. \"the\" best", #""Quotes, Inc. \"the\" best" <noreply@quotes.example>"#, nil),
        ("Zitatbüchlein", "=?utf-8?B?Wml0YXRiw7xjaGxlaW4=?= <noreply@quotes.example>", "Zitatbüchlein <noreply@quotes.example>"),
        (
            "Die Zitatbüchlein-Redaktion der Stadtbibliothek Köln und Umgebung",
            "=?utf-8?B?RGllIFppdGF0YsO8Y2hsZWluLVJlZGFrdGlvbiBkZXIgU3RhZHRiaWJs?= =?utf-8?B?aW90aGVrIEvDtmxuIHVuZCBVbWdlYnVuZw==?= <noreply@quotes.example>",
            "Die Zitatbüchlein-Redaktion der Stadtbibliothek Köln und Umgebung <noreply@quotes.example>"
        ),
        ("", "noreply@quotes.example", nil),
        (" \r\n ", "noreply@quotes.example", nil),
    ]

    @Test(arguments: names)
    func writesTheDisplayName(name: String, header: String, shown: String?) throws {
        let mail = try ParsedMail(Self.message(fromName: name).formatted())
        #expect(mail.value("From") == header)
        #expect(mail.decoded("From") == shown ?? header)
        for line in mail.headerLines { #expect(line.utf8.count <= 78, "\(line)") }
    }

    @Test func writesTheBareAddressWithoutAName() throws {
        #expect(try ParsedMail(Self.message(fromName: nil).formatted()).value("From") == "noreply@quotes.example")
    }

    static let bodies: [String] = [
        "Hello.\n",
        "No final line break",
        "",
        "\n",
        "Windows\r\nline\r\nbreaks\r\n",
        "Old Mac\rline breaks\r",
        ".\n..\n.starts with a dot\nFrom the start\nFrom nowhere\n From indented\n",
        "Trailing spaces   \nand tabs\t\t\nand = signs == 3\n",
        "Ünïcödé, 日本語, emoji 👍🏽 and a combining e\u{301}\n",
        String(repeating: "A long line without breaks. ", count: 20),
        String(repeating: "é", count: 100) + "\n" + String(repeating: ".", count: 200) + "\n",
        "Control \u{0} \u{7} \u{1B}[31m characters\n",
        "Link: https://quotes.example/reset?token=abc123&next=%2Fhome\n",
        String(repeating: "x", count: 75) + " \n" + String(repeating: "y", count: 76) + "\n" + String(repeating: "z", count: 77),
    ]

    @Test(arguments: bodies)
    func bodyRoundTripsThroughQuotedPrintable(text: String) throws {
        let mail = try ParsedMail(Self.message(text: text).formatted())
        let expected = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        #expect(mail.text == expected)
        let lines = String(decoding: mail.body, as: UTF8.self).components(separatedBy: "\r\n")
        for line in lines {
            #expect(line.utf8.count <= 76, "\(line)")
            #expect(!line.hasPrefix("."), "a leading dot is encoded")
            #expect(!line.hasPrefix("From "), "a leading From is encoded")
            #expect(line.last != " " && line.last != "\t", "no trailing white space")
        }
        #expect(mail.body.allSatisfy { $0 < 0x80 && ($0 >= 0x20 || $0 == 13 || $0 == 10 || $0 == 9) })
    }

    @Test func formatsDatesInUTC() throws {
        let dates: [(TimeInterval, String)] = [
            (0, "Thu, 01 Jan 1970 00:00:00 +0000"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 +0000"),
            (1_795_934_628.999, "Sun, 29 Nov 2026 06:43:48 +0000"),
            (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 +0000"),
        ]
        for (seconds, text) in dates {
            var message = Self.message()
            message.date = Date(timeIntervalSince1970: seconds)
            #expect(try ParsedMail(message.formatted()).value("Date") == text)
        }
    }

    @Test func makesRandomMessageIDs() throws {
        let ids = (0..<100).map { _ in MailMessage.newMessageID(domain: "quotes.example") }
        #expect(Set(ids).count == 100)
        for id in ids {
            let parts = id.split(separator: "@")
            #expect(parts.count == 2 && parts[1] == "quotes.example")
            #expect(parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
        var message = Self.message()
        message.messageID = "evil>\r\nBcc: x@y.z"
        let mail = try ParsedMail(message.formatted())
        #expect(mail.headers.map(\.name) == Self.expectedHeaders)
        #expect(mail.value("Message-ID") == "<evilBccx@y.z>")
    }

    @Test func roundTripsThroughJSON() throws {
        let message = Self.message(fromName: "Zitatbüchlein", subject: "Grüße\r\n", text: ".a\nb")
        let json = try JSONEncoder().encode(message)
        #expect(try JSONDecoder().decode(MailMessage.self, from: json) == message)
        var unnamed = message
        unnamed.fromName = nil
        #expect(try JSONDecoder().decode(MailMessage.self, from: JSONEncoder().encode(unnamed)) == unnamed)
    }
}
