/// Writes an array's elements into a ``ListBox``.
struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let box: ListBox
    let codingPath: [any CodingKey]

    var count: Int { box.items.count }

    private var nextKey: IndexKey { IndexKey(intValue: box.items.count) }

    mutating func encodeNil() throws { box.items.append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { box.items.append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { box.items.append(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { box.items.append(.value(.double(value))) }
    mutating func encode(_ value: Int) throws { box.items.append(.value(.int(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(try EncodingNode.make(for: value, codingPath: codingPath + [nextKey]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        let path = codingPath + [nextKey]
        box.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ListBox()
        let path = codingPath + [nextKey]
        box.items.append(.list(nested))
        return UnkeyedNodeContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = NodeEncoder(codingPath: codingPath + [nextKey])
        box.items.append(.deferred(encoder))
        return encoder
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) {
        guard let value = Int(stringValue) else { return nil }
        intValue = value
    }
}
