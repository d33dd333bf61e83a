internal import Foundation

/// A value under construction: containers are reference boxes so nested containers can keep
/// writing into them after they are handed out, as `Encoder` requires.
enum EncodingNode {
    case value(TemplateValue)
    case object(ObjectBox)
    case list(ListBox)
    case deferred(NodeEncoder)

    /// Encodes `value` into a node, taking shortcuts for values that know their template form.
    static func make<T: Encodable>(for value: T, codingPath: [any CodingKey]) throws -> EncodingNode {
        if let convertible = value as? any TemplateValueConvertible {
            return .value(convertible.templateValue)
        }
        if let url = value as? URL {
            return .value(.string(url.absoluteString))
        }
        let encoder = NodeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.node ?? .object(ObjectBox())
    }

    /// The finished value.
    func finish() -> TemplateValue {
        switch self {
        case .value(let value): value
        case .object(let box): .object(box.entries.mapValues { $0.finish() })
        case .list(let box): .list(box.items.map { $0.finish() })
        case .deferred(let encoder): (encoder.node ?? .object(ObjectBox())).finish()
        }
    }

    /// An integer as `.int`, or `.double` when it does not fit.
    static func integer<T: BinaryInteger>(_ value: T) -> TemplateValue {
        if let exact = Int(exactly: value) { return .int(exact) }
        return .double(Double(value))
    }
}

/// The entries of a keyed container.
final class ObjectBox {
    var entries: [String: EncodingNode] = [:]
}

/// The items of an unkeyed container.
final class ListBox {
    var items: [EncodingNode] = []
}
