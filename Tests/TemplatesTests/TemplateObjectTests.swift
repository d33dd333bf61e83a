import Templates
import Testing

/// A ``TemplateObject`` renders exactly as the `.object` dictionary holding the same keys would.
@Suite struct TemplateObjectTests {
    /// A hash with a fixed key set that counts nothing and stores nothing: answers by `switch`.
    private struct Card: TemplateObject {
        let text: String
        let link: String?

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "text": .string(text)
            case "link": link.map(TemplateValue.string) ?? .null
            case "tags": .list([.custom(Tag(name: "a<b")), .custom(Tag(name: "c"))])
            default: nil
            }
        }
    }

    /// A nested object, for dotted names and lists of objects.
    private struct Tag: TemplateObject {
        let name: String

        func value(forKey key: String) -> TemplateValue? {
            key == "name" ? .string(name) : nil
        }
    }

    private func render(_ template: String, _ context: TemplateValue) throws -> String {
        try TemplateLibrary(sources: ["main": template]).render("main", context: context)
    }

    /// The same card as a plain dictionary.
    private func dictionary(_ card: Card) -> TemplateValue {
        .object([
            "text": .string(card.text), "link": card.link.map(TemplateValue.string) ?? .null,
            "tags": .list([.object(["name": "a<b"]), .object(["name": "c"])]),
        ])
    }

    @Test(arguments: [
        "{{text}}|{{{text}}}|{{&text}}",
        "{{#card}}{{text}} {{site}} {{#link}}[{{.}}]{{/link}}{{^link}}no link{{/link}}{{/card}}",
        "{{card.text}}{{card.missing}}{{card.tags}}",
        "{{#card.tags}}<{{name}}:{{text}}>{{/card.tags}}",
        "{{#card}}{{#tags}}{{name}}{{/tags}}{{/card}}{{^card}}none{{/card}}",
        "{{#card}}{{site}}{{/card}}",
    ])
    func rendersLikeTheSameDictionary(_ template: String) throws {
        for card in [Card(text: "Tom & \"Jerry\"", link: "/x?a=1&b=2"), Card(text: "", link: nil)] {
            let custom: TemplateValue = ["card": .custom(card), "text": "outer <text>", "site": "outer site"]
            let plain: TemplateValue = ["card": dictionary(card), "text": "outer <text>", "site": "outer site"]
            #expect(try render(template, custom) == render(template, plain))
        }
    }

    @Test func escapesTextTheObjectReturns() throws {
        #expect(try render("{{#c}}{{text}}{{/c}}", ["c": .custom(Card(text: "<b>'&'</b>", link: nil))]) == "&lt;b&gt;&#39;&amp;&#39;&lt;/b&gt;")
    }

    @Test func fallsThroughForUnknownKeysAndStopsAtNull() throws {
        let context: TemplateValue = ["link": "outer", "other": "outer other", "c": .custom(Card(text: "t", link: nil))]
        #expect(try render("{{#c}}[{{link}}][{{other}}]{{/c}}", context) == "[][outer other]")
    }

    @Test func isTruthyEvenWithoutKeys() throws {
        #expect(try render("{{#c}}yes{{/c}}{{^c}}no{{/c}}", ["c": .custom(Tag(name: ""))]) == "yes")
    }

    @Test func isRootContext() throws {
        #expect(try render("{{text}}/{{link}}", .custom(Card(text: "root", link: "/l"))) == "root//l")
    }
}
