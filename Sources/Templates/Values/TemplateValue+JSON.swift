package import Foundation

extension TemplateValue {
    /// Parses JSON text (RFC 8259) into a value: numbers written without a fraction or exponent
    /// become `.int` (or `.double` past `Int`'s range), other numbers `.double`, `true`/`false`
    /// `.bool`, `null` `.null`.
    ///
    /// A hand-written reader rather than `JSONSerialization`, whose `NSNumber`s on Linux blur
    /// Booleans, integers and `1.0`.
    /// - Throws: ``TemplateError`` with the line and column of the first syntax error.
    package init(json: Data) throws(TemplateError) {
        var reader = JSONReader(bytes: [UInt8](json))
        self = try reader.readDocument()
    }
}
