/// Names everything a ``TemplateObject`` answers, so that the library may keep what a section
/// body rendered for it and copy those bytes the next time (see ``TemplateObject/fragmentKey``).
///
/// Two objects of the same type with the same `id` and `version` must answer every key the same,
/// for as long as the library lives: a record's id and a version that grows with every change.
package struct TemplateFragmentKey: Hashable, Sendable {
    private let type: ObjectIdentifier
    private let id: Int
    private let version: Int

    /// The key of the object of type `type` numbered `id`, as it is at `version`.
    package init<Object>(_ type: Object.Type, id: Int, version: Int) {
        self.type = ObjectIdentifier(type)
        self.id = id
        self.version = version
    }
}
