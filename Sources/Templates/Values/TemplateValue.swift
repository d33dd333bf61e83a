/// The data a template renders: an explicit, JSON-like value tree.
///
/// Views turn their Swift values into this enum (directly, or through ``TemplateValueConvertible``);
/// the renderer never reflects over arbitrary values.
///
/// Truthiness (Mustache spec, `sections` and `inverted`): `.null`, `.bool(false)`, an empty
/// `.list` and an empty `.string` are falsy; everything else, including `0`, an empty `.object`
/// and every `.custom` object, is truthy. The spec leaves empty strings open; treating them as falsy lets a view
/// write `{{#note}}<p>{{note}}</p>{{/note}}` for an optional text field.
package enum TemplateValue: Sendable {
    /// No value: renders as the empty string and is falsy.
    case null
    /// A Boolean: renders as `true` or `false`.
    case bool(Bool)
    /// An integer: renders in decimal.
    case int(Int)
    /// A floating-point number: renders in its shortest round-trip form, without a trailing `.0`
    /// when integral (`1.21` → `1.21`, `2.0` → `2`).
    case double(Double)
    /// Text: HTML-escaped by `{{name}}`, copied verbatim by `{{{name}}}` and `{{&name}}`.
    case string(String)
    /// A list: a section renders once per element, with the element on top of the context stack.
    case list([TemplateValue])
    /// A hash: names resolve against its keys.
    case object([String: TemplateValue])
    /// A hash that looks its keys up itself (see ``TemplateObject``): renders like `.object`
    /// without building a dictionary.
    case custom(any TemplateObject)
}

extension TemplateValue {
    /// Whether a section renders its content for this value (see the type's documentation).
    package var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .int, .double, .object, .custom: true
        case .string(let value): !value.isEmpty
        case .list(let items): !items.isEmpty
        }
    }

    /// The text an interpolation tag writes for this value, before escaping.
    ///
    /// Lists and objects have no text form and render as the empty string.
    package var renderedText: String {
        switch self {
        case .null, .list, .object, .custom: ""
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): Self.format(value)
        case .string(let value): value
        }
    }

    /// Formats a double as JavaScript would for the common cases: integral values within
    /// ±2^53 without a fraction, others in Swift's shortest round-trip form.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int(value))
        }
        return value.description
    }
}

extension TemplateValue: Equatable {
    /// Structural equality. A `.custom` object cannot list its keys, so it equals nothing, not
    /// even itself (as NaN); equality is for tests of plain values.
    package static func == (lhs: TemplateValue, rhs: TemplateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.list(a), .list(b)): a == b
        case let (.object(a), .object(b)): a == b
        case (.null, _), (.bool, _), (.int, _), (.double, _), (.string, _), (.list, _), (.object, _), (.custom, _): false
        }
    }
}

extension TemplateValue {
    /// The value under `key` when this is a hash (`.object` or `.custom`), else `nil`.
    func member(_ key: String) -> TemplateValue? {
        switch self {
        case .object(let object): object[key]
        case .custom(let object): object.value(forKey: key)
        case .null, .bool, .int, .double, .string, .list: nil
        }
    }
}

extension TemplateValue: ExpressibleByStringLiteral {
    /// A `.string` value, so tests and views can write `"text"` where a value is expected.
    package init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension TemplateValue: ExpressibleByIntegerLiteral {
    /// An `.int` value.
    package init(integerLiteral value: Int) {
        self = .int(value)
    }
}

extension TemplateValue: ExpressibleByFloatLiteral {
    /// A `.double` value.
    package init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension TemplateValue: ExpressibleByBooleanLiteral {
    /// A `.bool` value.
    package init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension TemplateValue: ExpressibleByArrayLiteral {
    /// A `.list` value.
    package init(arrayLiteral elements: TemplateValue...) {
        self = .list(elements)
    }
}

extension TemplateValue: ExpressibleByDictionaryLiteral {
    /// An `.object` value; a repeated key keeps its last value.
    package init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TemplateValue: ExpressibleByNilLiteral {
    /// The `.null` value.
    package init(nilLiteral: ()) {
        self = .null
    }
}
