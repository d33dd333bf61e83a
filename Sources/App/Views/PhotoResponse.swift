import HTTPServer
import Store

/// A photo's bytes as a response: its image type, the hash as a strong `ETag`, revalidated on
/// every use (it changes when the person picks another), 304 when the client has it.
enum PhotoResponse {
    static func response(for photo: StoredPhoto, request: HTTPRequest) -> HTTPResponse {
        let etag = "\"\(photo.reference.hash)\""
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": "public, no-cache", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        ]
        if request.ifNoneMatch(includes: etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: photo.reference.mediaType)
        return HTTPResponse(status: .ok, headers: headers, body: photo.bytes)
    }
}
