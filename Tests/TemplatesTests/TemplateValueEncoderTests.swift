import Foundation
import Templates
import Testing

/// `TemplateValueEncoder` maps `Encodable` views onto `TemplateValue`.
@Suite struct TemplateValueEncoderTests {
    struct Author: Encodable {
        var name: String
        var age: Int?
    }

    struct QuoteView: Encodable {
        var text: String
        var author: Author
        var tags: [String]
        var rating: Double
        var isFavorite: Bool
        var views: UInt8
        var note: String?
        var editor: Author?
        var scores: [Int?]
        var extra: TemplateValue
        var link: URL
    }

    @Test func encodesNestedStructsArraysOptionalsAndScalars() throws {
        let view = QuoteView(
            text: "Hi", author: Author(name: "Ada", age: nil), tags: ["a", "b"], rating: 4.5, isFavorite: true,
            views: 7, note: nil, editor: Author(name: "Bob", age: 40), scores: [1, nil], extra: ["k": [1, "x"]],
            link: URL(string: "https://example.org/q?a=1")!)
        let value = try TemplateValueEncoder().encode(view)
        let expected: TemplateValue = [
            "text": "Hi",
            "author": ["name": "Ada", "age": nil],
            "tags": ["a", "b"],
            "rating": 4.5,
            "isFavorite": true,
            "views": 7,
            "note": nil,
            "editor": ["name": "Bob", "age": 40],
            "scores": [1, nil],
            "extra": ["k": [1, "x"]],
            "link": "https://example.org/q?a=1",
        ]
        #expect(value == expected)
    }

    @Test func encodesTopLevelScalarsArraysAndDictionaries() throws {
        let encoder = TemplateValueEncoder()
        #expect(try encoder.encode("s") == .string("s"))
        #expect(try encoder.encode(3) == .int(3))
        #expect(try encoder.encode(false) == .bool(false))
        #expect(try encoder.encode(Optional<Int>.none) == .null)
        #expect(try encoder.encode([1, 2]) == .list([1, 2]))
        #expect(try encoder.encode(["k": "v"]) == .object(["k": "v"]))
        #expect(try encoder.encode(UInt64.max) == .double(Double(UInt64.max)))
    }

    @Test func usesTemplateValueConvertibleRepresentation() throws {
        struct Money: Encodable, TemplateValueConvertible {
            var cents: Int
            var templateValue: TemplateValue { .string("$\(cents / 100).\(cents % 100)") }
        }
        struct Row: Encodable { var price: Money }
        #expect(try TemplateValueEncoder().encode(Row(price: Money(cents: 1250))) == ["price": "$12.50"])
    }

    @Test func encodesEmptyStructAsEmptyObject() throws {
        struct Empty: Encodable {}
        #expect(try TemplateValueEncoder().encode(Empty()) == .object([:]))
    }

    @Test func encodesCustomEncodeImplementationsWithNestedContainers() throws {
        struct Custom: Encodable {
            enum Keys: String, CodingKey { case a, b, c }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
                try nested.encode(1, forKey: .b)
                var list = container.nestedUnkeyedContainer(forKey: .c)
                try list.encode("x")
                try list.encodeNil()
            }
        }
        #expect(try TemplateValueEncoder().encode(Custom()) == ["a": ["b": 1], "c": ["x", nil]])
    }

    @Test func encodesASuperclassUnderSuperEvenWithoutSuchACodingKey() throws {
        // A String-keyed CodingKeys has no case "super" and no integer keys: the superclass's
        // fields still go under "super" (this used to force-unwrap a nil key and crash).
        class Base: Encodable {
            var base = 1
        }
        final class Derived: Base {
            enum CodingKeys: String, CodingKey { case own }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(2, forKey: .own)
                try super.encode(to: container.superEncoder())
            }
        }
        #expect(try TemplateValueEncoder().encode(Derived()) == ["own": 2, "super": ["base": 1]])
    }

    @Test func propagatesEncodingErrors() {
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        #expect(throws: EncodingError.self) { try TemplateValueEncoder().encode(Failing()) }
    }
}
