/// Turns an `Encodable` view into a ``TemplateValue``: structs and dictionaries become
/// `.object`, arrays `.list`, strings, Booleans and numbers their cases.
///
/// - `nil` optionals become `.null` (also for properties that synthesized code encodes with
///   `encodeIfPresent`), so a missing field stops a lookup instead of falling through to an outer
///   context with the same key.
/// - A value conforming to ``TemplateValueConvertible`` (including `TemplateValue` itself) is
///   taken as is; a `URL` becomes its absolute string.
/// - Integers beyond `Int` become `.double`; an object that encodes nothing becomes an empty
///   `.object`.
///
/// Each `encode` call builds its own private tree, so one encoder can be shared freely.
package struct TemplateValueEncoder: Sendable {
    /// An encoder; it has no options.
    package init() {}

    /// Encodes `value`.
    /// - Throws: whatever `value.encode(to:)` throws.
    package func encode<T: Encodable>(_ value: T) throws -> TemplateValue {
        try EncodingNode.make(for: value, codingPath: []).finish()
    }
}
