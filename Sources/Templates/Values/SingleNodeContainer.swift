/// Writes a single value (a primitive, or `nil`) as its encoder's node.
struct SingleNodeContainer: SingleValueEncodingContainer {
    let encoder: NodeEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.node = .value(.null) }
    mutating func encode(_ value: Bool) throws { encoder.node = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.node = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.node = .value(.double(value)) }
    mutating func encode(_ value: Float) throws { encoder.node = .value(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { encoder.node = .value(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.node = .value(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { encoder.node = .value(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { encoder.node = .value(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { encoder.node = .value(EncodingNode.integer(value)) }
    mutating func encode(_ value: UInt) throws { encoder.node = .value(EncodingNode.integer(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.node = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.node = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.node = .value(EncodingNode.integer(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.node = .value(EncodingNode.integer(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.node = try EncodingNode.make(for: value, codingPath: codingPath)
    }
}
