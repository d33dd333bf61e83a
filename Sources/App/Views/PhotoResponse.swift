import HTTPServer
import Store

/// A photo's bytes as a response: `image/webp`, the content hash as a strong `ETag`, 304 when
/// the client has it. Asked for by the version that is current (the address every page makes,
/// ``PhotoVersion``), it may be kept a year without asking again (`immutable`): a new photo
/// has a new address. Asked for without a version, or by an old one, it is revalidated on every use.
enum PhotoResponse {
    static func response(for photo: StoredPhoto, version: String?, request: HTTPRequest) -> HTTPResponse {
        let etag = "\"\(photo.reference.hash)\""
        let isCurrent = version == PhotoVersion.of(photo.reference.hash)
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": isCurrent ? "public, max-age=31536000, immutable" : "public, no-cache",
            "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox",
        ]
        if request.ifNoneMatch(includes: etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: photo.reference.mediaType)
        return HTTPResponse(status: .ok, headers: headers, body: photo.bytes)
    }
}

/// The version a photo's address carries: the first 16 hex digits of its content hash.
enum PhotoVersion {
    static func of(_ hash: String) -> String { String(hash.prefix(16)) }

    /// The addresses of `user`'s photo, 512 px and 96 px, each with its version; nil without one.
    static func urls(of user: User) -> (large: String, small: String)? {
        guard let photo = user.photo else { return nil }
        return (
            ProfilesRoute.photo(user.username, version: of(photo.hash)).path,
            ProfilesRoute.smallPhoto(user.username, version: of(photo.small ?? photo.hash)).path
        )
    }
}
