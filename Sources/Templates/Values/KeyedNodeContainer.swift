/// Writes a struct's or dictionary's fields into an ``ObjectBox``.
struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let codingPath: [any CodingKey]

    private func set(_ value: TemplateValue, _ key: Key) {
        box.entries[key.stringValue] = .value(value)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(EncodingNode.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(EncodingNode.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(EncodingNode.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(EncodingNode.integer(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.entries[key.stringValue] = try EncodingNode.make(for: value, codingPath: codingPath + [key])
    }

    // Synthesized `Encodable` skips nil optionals through these; write `.null` instead.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { set(value.map { .bool($0) } ?? .null, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        set(value.map { .string($0) } ?? .null, key)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        set(value.map { .double($0) } ?? .null, key)
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        set(value.map { .double(Double($0)) } ?? .null, key)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { set(value.map { .int($0) } ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encodeOptional(value, key)
    }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            set(.null, key)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        box.entries[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ListBox()
        box.entries[key.stringValue] = .list(nested)
        return UnkeyedNodeContainer(box: nested, codingPath: codingPath + [key])
    }

    /// The encoder for the superclass's fields, under the key `super` (what Foundation's
    /// encoders use). `Key` need not have a case for it: a `String`-keyed `CodingKeys` has none.
    mutating func superEncoder() -> any Encoder {
        deferredEncoder(at: ObjectKey("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        deferredEncoder(at: key)
    }

    private func deferredEncoder(at key: any CodingKey) -> any Encoder {
        let encoder = NodeEncoder(codingPath: codingPath + [key])
        box.entries[key.stringValue] = .deferred(encoder)
        return encoder
    }
}
