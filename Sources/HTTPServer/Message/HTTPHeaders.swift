import Basics

/// An ordered list of header fields; names compare case-insensitively (RFC 9110 §5.1).
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// Fields sent on many responses (a page's security headers), checked and encoded once
    /// (``writtenOnce()``) and shared by every copy: they come first, and a response head writes
    /// their bytes as they are. Copying headers that have them copies one reference, not each
    /// field's two strings (on an array every thread shares). Nil when there are none. Set only
    /// by `writtenOnce()`, beside the encoder whose rules it follows (`HTTPResponseEncoder.swift`;
    /// the fuzzers build this file without the encoder); removing any of its fields turns them
    /// back into ``fields``.
    var written: WrittenFields?
    /// The fields after the ``written`` ones, in the order they were added, with the name's
    /// original spelling.
    package private(set) var fields: [(name: String, value: String)] = []

    /// Fields checked and encoded once, shared by the headers made from them.
    final class WrittenFields: Sendable {
        let fields: [(name: String, value: String)]
        /// The fields as a response head writes them (unsafe ones already dropped).
        let bytes: [UInt8]

        init(fields: [(name: String, value: String)], bytes: [UInt8]) {
            self.fields = fields
            self.bytes = bytes
        }
    }

    package init() {}

    package init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        var found: String?
        forEachValue(for: name) { value in
            found = value
            return false
        }
        return found
    }

    /// Every value of `name`, in order.
    package func values(for name: String) -> [String] {
        var values: [String] = []
        forEachValue(for: name) { value in
            values.append(value)
            return true
        }
        return values
    }

    /// Whether a value of a field called `name` satisfies `condition`, asked in order until one does.
    package func containsValue(for name: String, where condition: (String) -> Bool) -> Bool {
        var found = false
        forEachValue(for: name) { value in
            found = condition(value)
            return !found
        }
        return found
    }

    /// Calls `body` with the value of each field called `name`, in order, until it returns false.
    ///
    /// The fields are read in place. A `for` over them, `first(where:)` or `filter` copied every
    /// field it passed, a retain and a release of its name and of its value: about 90 calls a
    /// signed-in request (counted), for look-ups that mostly find nothing.
    package func forEachValue(for name: String, _ body: (String) -> Bool) {
        if let written, !Self.forEachValue(in: written.fields, for: name, body) { return }
        _ = Self.forEachValue(in: fields, for: name, body)
    }

    /// ``forEachValue(for:_:)`` over `fields`; false once `body` has returned false.
    private static func forEachValue(
        in fields: [(name: String, value: String)], for name: String, _ body: (String) -> Bool
    ) -> Bool {
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) {
                guard body(fields[index].value) else { return false }
            }
            return true
        }
    }

    package func contains(_ name: String) -> Bool { self[name] != nil }

    package mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Makes room for `count` more fields, so adding them allocates once at most.
    package mutating func reserveCapacity(adding count: Int) {
        fields.reserveCapacity(fields.count + count)
    }

    /// Replaces every field called `name` with one field holding `value`.
    package mutating func set(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    package mutating func remove(name: String) {
        if let written, written.fields.contains(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields = written.fields + fields
            self.written = nil
        }
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    package var count: Int { (written?.fields.count ?? 0) + fields.count }

    /// Every field in order: the written ones, then the rest.
    package struct Iterator: IteratorProtocol {
        var written: IndexingIterator<[(name: String, value: String)]>?
        var rest: IndexingIterator<[(name: String, value: String)]>

        package mutating func next() -> (name: String, value: String)? {
            if let field = written?.next() { return field }
            written = nil
            return rest.next()
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(written: written?.fields.makeIterator(), rest: fields.makeIterator())
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive comparison, enough for header names and tokens.
    ///
    /// Both are read in place from their UTF-8 storage; zipping their views retained and
    /// released each string once more for every comparison (the response encoder's five a
    /// field made it its largest source of reference counting, counted).
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return withUTF8InPlace { lhs in other.withUTF8InPlace { rhs in ASCII.equalsIgnoringCase(lhs, rhs) } }
    }
}
