/// A hash that answers the renderer's key lookups itself, instead of being written out as an
/// `[String: TemplateValue]` before every render.
///
/// A view's context struct conforms with a `switch` over the key, so a render allocates no
/// dictionary and computes only the fields the template asks for. Lookup semantics are exactly
/// those of ``TemplateValue/object(_:)`` (Mustache spec, `interpolation`): return `nil` for a key
/// this object does not have, so the lookup goes on down the context stack; return `.null` for a
/// key it has without a value, so the lookup stops there.
///
/// Text a conformer returns is escaped by the renderer like any other `.string`; conformers never
/// escape anything themselves.
package protocol TemplateObject: Sendable {
    /// The value under `key`, or `nil` when this object has no such key.
    func value(forKey key: String) -> TemplateValue?
}

extension TemplateObject {
    /// This object as a template value.
    package var templateValue: TemplateValue { .custom(self) }
}
