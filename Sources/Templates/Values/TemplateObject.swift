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

    /// What identifies every answer of this object, or nil (the default) when nothing does.
    ///
    /// With a key, a section rendered for this object (`{{#card}}…{{/card}}`, or one element of
    /// a list) is rendered once and its bytes reused for every later object with the same key
    /// — when the body read nothing but this object's keys (see ``FragmentCache``).
    var fragmentKey: TemplateFragmentKey? { get }
}

extension TemplateObject {
    package var fragmentKey: TemplateFragmentKey? { nil }
}

extension TemplateObject {
    /// This object as a template value.
    package var templateValue: TemplateValue { .custom(self) }
}
