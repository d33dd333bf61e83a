import Foundation
import Templates
import Testing

/// One test of the Mustache spec, loaded from `Fixtures/mustache-spec/`.
struct SpecCase: Sendable, CustomTestStringConvertible {
    /// The spec modules run here: all required ones plus `~inheritance` and `~dynamic-names`.
    static let modules = [
        "comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~dynamic-names",
        "~inheritance",
    ]

    let module: String
    /// 1-based position in its module's file: two `~inheritance` cases share a name.
    let number: Int
    let name: String
    let template: String
    let partials: [String: String]
    let data: TemplateValue
    let expected: String

    var testDescription: String { "\(module) #\(number): \(name)" }

    /// Every case of every module in ``modules``, in file order; empty when the fixtures are
    /// missing (``SpecTests`` checks the count).
    static let all: [SpecCase] = modules.flatMap { (try? load(module: $0)) ?? [] }

    static func fixturesDirectory() throws -> URL {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    static func load(module: String) throws -> [SpecCase] {
        let url = try fixturesDirectory().appendingPathComponent("mustache-spec/\(module).json")
        let document = try TemplateValue(json: Data(contentsOf: url))
        guard case .object(let root) = document, case .list(let tests)? = root["tests"] else { return [] }
        return tests.enumerated().compactMap { index, test in
            guard case .object(let fields) = test,
                case .string(let name)? = fields["name"],
                case .string(let template)? = fields["template"],
                case .string(let expected)? = fields["expected"]
            else { return nil }
            var partials: [String: String] = [:]
            if case .object(let given)? = fields["partials"] {
                for (key, value) in given {
                    if case .string(let text) = value { partials[key] = text }
                }
            }
            return SpecCase(
                module: module, number: index + 1, name: name, template: template, partials: partials, data: fields["data"] ?? .null,
                expected: expected)
        }
    }
}
