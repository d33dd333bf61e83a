package import HTTPServer

/// A POST's form, decoded once by the root (to check its CSRF token) and handed to the child:
/// `application/x-www-form-urlencoded` fields, or `multipart/form-data` fields and files.
package struct SubmittedForm: Sendable {
    private var fields: [(name: String, value: String)] = []
    private var files: [MultipartForm.Part] = []
    /// The body the server spooled to a file, which large files' data is left in.
    private var spooled: SpooledBody?

    /// Files larger than this stay in a spooled body rather than being copied into memory.
    static let inMemoryFileLimit = 64 * 1024

    package init() {}

    /// Decodes `request`'s body by its `Content-Type`; nil when it is not a form we can read.
    package init?(_ request: HTTPRequest) {
        let contentType = request.headers["Content-Type"] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            spooled = request.spooledBody
            let parsed =
                if let spooled {
                    try? MultipartForm(spooled: spooled, contentType: contentType, leavingInPlaceOver: Self.inMemoryFileLimit)
                } else {
                    try? MultipartForm(body: request.body, contentType: contentType)
                }
            guard let multipart = parsed else { return nil }
            for part in multipart.parts {
                if part.filename != nil {
                    files.append(part)
                } else if part.spooledData != nil {
                    return nil  // a text field that large is no field of ours
                } else if let value = String(validating: part.body, as: UTF8.self) {
                    fields.append((part.name, value))
                } else {
                    return nil
                }
            }
        } else {
            guard let form = try? URLEncodedForm(request.body) else { return nil }
            fields = form.pairs
        }
    }

    /// The first value of text field `field`, or nil.
    package subscript(field: some FormField) -> String? {
        fields.first { $0.name == field.rawValue }?.value
    }

    /// The first file sent in `field`; nil when none was chosen (browsers send an empty part
    /// with an empty filename then).
    package func file(_ field: some FormField) -> UploadedFile? {
        guard let part = files.first(where: { $0.name == field.rawValue }) else { return nil }
        if let range = part.spooledData, let spooled {
            return UploadedFile(count: range.count) { descriptor throws(UploadedFileError) in
                do throws(SpooledBodyError) { try spooled.copy(range, to: descriptor) } catch { throw UploadedFileError(errno: error.errno) }
            }
        }
        guard !(part.filename ?? "").isEmpty || !part.body.isEmpty else { return nil }
        return UploadedFile(bytes: part.body)
    }
}
