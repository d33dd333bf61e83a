extension TemplateValue: Encodable {
    /// Encodes as the matching JSON-like value, so a view may hold a `TemplateValue` field
    /// (``TemplateValueEncoder`` takes it as is without calling this).
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let object):
            var container = encoder.container(keyedBy: ObjectKey.self)
            for (key, value) in object { try container.encode(value, forKey: ObjectKey(key)) }
        case .custom:
            // A custom object cannot list its keys: it encodes as an empty object.
            _ = encoder.container(keyedBy: ObjectKey.self)
        }
    }
}

/// A key by name: a dictionary key when encoding `.object`, and `super` for a superclass.
struct ObjectKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
