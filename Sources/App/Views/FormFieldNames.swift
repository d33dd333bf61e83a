import Templates

/// Form field names for templates, from the typed field enums: `{{fields.displayName}}` renders
/// `display_name`, so a template never spells a field name itself.
enum FormFieldNames {
    static func of<Field: FormField>(_ type: Field.Type) -> TemplateValue {
        var names: [String: TemplateValue] = [:]
        for field in Field.allCases { names[String(describing: field)] = .string(field.rawValue) }
        return .object(names)
    }
}
