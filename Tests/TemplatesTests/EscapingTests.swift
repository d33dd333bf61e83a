import Foundation
import Templates
import Testing

/// `{{name}}` escapes exactly `& < > " '` and replaces the controls HTML does not allow;
/// `{{{name}}}` and `{{&name}}` copy verbatim.
@Suite struct EscapingTests {
    static let cases: [(input: String, escaped: String)] = [
        ("plain text", "plain text"),
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("\"", "&quot;"),
        ("'", "&#39;"),
        ("/ = ` %", "/ = ` %"),
        ("a<b>c&d\"e'f", "a&lt;b&gt;c&amp;d&quot;e&#39;f"),
        ("&amp;", "&amp;amp;"),
        ("— · é 日本 🎉 <x>", "— · é 日本 🎉 &lt;x&gt;"),
        ("", ""),
        ("<<>>", "&lt;&lt;&gt;&gt;"),
        ("ends with &", "ends with &amp;"),
    ]

    @Test(arguments: cases)
    func escapesExactlyFiveCharacters(_ input: String, _ escaped: String) throws {
        let library = try TemplateLibrary(sources: ["t": "{{value}}"])
        #expect(try library.render("t", context: ["value": .string(input)]) == escaped)
    }

    @Test(arguments: cases)
    func copiesRawValuesVerbatim(_ input: String, _ escaped: String) throws {
        let library = try TemplateLibrary(sources: ["t": "{{{value}}}|{{&value}}"])
        #expect(try library.render("t", context: ["value": .string(input)]) == input + "|" + input)
    }

    @Test(arguments: [
        ("a\u{0}b", "a\u{FFFD}b"),
        ("\u{1}\u{8}\u{B}\u{E}\u{1B}\u{1F}", String(repeating: "\u{FFFD}", count: 6)),
        ("del\u{7F}", "del\u{FFFD}"),
        ("\u{80}c1\u{85}\u{9F}", "\u{FFFD}c1\u{FFFD}\u{FFFD}"),
        ("<\u{0}&", "&lt;\u{FFFD}&amp;"),
        // Allowed: HTML's whitespace controls, and the Latin-1 letters that share C1's lead byte.
        ("tab\tLF\nFF\u{C}CR\r", "tab\tLF\nFF\u{C}CR\r"),
        ("\u{A0}©¿ÀĀ\u{202E}", "\u{A0}©¿ÀĀ\u{202E}"),
        ("Â ends with ©", "Â ends with ©"),
        ("ends with \u{85}", "ends with \u{FFFD}"),
    ])
    func replacesTheControlsHTMLDoesNotAllow(_ input: String, _ escaped: String) throws {
        let library = try TemplateLibrary(sources: ["t": "{{value}}|{{{value}}}"])
        #expect(try library.render("t", context: ["value": .string(input)]) == escaped + "|" + input)
    }

    @Test func escapesLongValuesWithSpecialCharactersFarApart() throws {
        let long = String(repeating: "abcdefgh", count: 100) + "<" + String(repeating: "ijklmnop", count: 100)
        let library = try TemplateLibrary(sources: ["t": "{{value}}"])
        let expected = String(repeating: "abcdefgh", count: 100) + "&lt;" + String(repeating: "ijklmnop", count: 100)
        #expect(try library.render("t", context: ["value": .string(long)]) == expected)
    }

    /// The word-at-a-time scan must find every special byte at every alignment.
    @Test(arguments: Array(0..<20))
    func findsSpecialCharacterAtEveryOffset(_ offset: Int) throws {
        let library = try TemplateLibrary(sources: ["t": "{{v}}"])
        for special in ["&", "<", ">", "\"", "'"] {
            let filler = "abcdefghijklmnopqrstuvwxyz0123456789 =/%!\u{0}(*)"
            let prefix = String(filler.prefix(offset))
            let input = prefix + special + "z0 =/?"
            let expected = prefix + ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"][special]! + "z0 =/?"
            #expect(try library.render("t", context: ["v": .string(input)]) == expected)
        }
    }

    @Test func leavesNeighboursOfSpecialBytesAlone() throws {
        let neighbours = (0x20...0x40).map { Character(Unicode.Scalar(UInt8($0))) }
        let input = String(neighbours)
        let expected = input.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
        let library = try TemplateLibrary(sources: ["t": "{{v}}"])
        #expect(try library.render("t", context: ["v": .string(input + input + input)]) == expected + expected + expected)
    }
}
