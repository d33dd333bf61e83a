/// A Swift value that knows its own template representation.
///
/// A page's view model conforms, building its context by hand, so the renderer gets exactly the
/// value tree the view means and never reflects over Swift values.
package protocol TemplateValueConvertible {
    /// The value as the renderer sees it.
    var templateValue: TemplateValue { get }
}

extension TemplateValue: TemplateValueConvertible {
    /// The value itself.
    package var templateValue: TemplateValue { self }
}
