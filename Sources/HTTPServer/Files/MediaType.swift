/// `Content-Type` values for static files by file extension (RFC 9110 §8.3; IANA media types).
enum MediaType {
    /// The type for `fileExtension` (case-insensitive); `application/octet-stream` if unknown.
    static func forExtension(_ fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "txt": "text/plain; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "woff2": "font/woff2"
        case "json", "map": "application/json"
        default: "application/octet-stream"
        }
    }
}
