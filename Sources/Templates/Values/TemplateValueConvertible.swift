/// A Swift value that knows its own template representation.
///
/// ``TemplateValueEncoder`` uses `templateValue` instead of `Encodable` when a value conforms, so
/// a view can hand over a precomputed or specially shaped value.
package protocol TemplateValueConvertible {
    /// The value as the renderer sees it.
    var templateValue: TemplateValue { get }
}

extension TemplateValue: TemplateValueConvertible {
    /// The value itself.
    package var templateValue: TemplateValue { self }
}
