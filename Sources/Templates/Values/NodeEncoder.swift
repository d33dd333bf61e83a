/// The `Encoder` handed to `encode(to:)`; holds the one node that value produces.
final class NodeEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    var node: EncodingNode?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = node {
            box = existing
        } else {
            box = ObjectBox()
            node = .object(box)
        }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ListBox
        if case .list(let existing) = node {
            box = existing
        } else {
            box = ListBox()
            node = .list(box)
        }
        return UnkeyedNodeContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(encoder: self)
    }
}
