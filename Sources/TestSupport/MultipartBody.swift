/// A `multipart/form-data` body as a browser sends a form with a CSRF token and one file.
package struct MultipartBody: Sendable {
    package static let boundary = "----TestBoundary7MA4YWxkTrZu0gW"
    /// The request's `Content-Type`, naming the boundary.
    package static let contentType = "multipart/form-data; boundary=\(boundary)"

    package let bytes: [UInt8]

    /// The `csrf_token` field, then `field` holding `file` named `filename` of type `fileType`.
    package init(token: String, field: String, filename: String, fileType: String, file: [UInt8]) {
        let boundary = Self.boundary
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n\(token)\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\n".utf8)
        body += Array("Content-Type: \(fileType)\r\n\r\n".utf8) + file + Array("\r\n--\(boundary)--\r\n".utf8)
        bytes = body
    }
}
