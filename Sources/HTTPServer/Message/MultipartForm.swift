/// The fields of a `multipart/form-data` body (RFC 7578), split at the boundary that its
/// `Content-Type` names (RFC 2046 §5.1.1).
///
/// A value type built in one pass over the whole body, which the caller has already read
/// within ``HTTPLimits/uploadBody``. Parsing is linear in the body size: the delimiter search
/// resumes where it stopped and never rescans, and each part's data is copied exactly once.
/// Limits: ``partLimit`` parts, and per part ``headerFieldLimit`` header fields in at most
/// ``headerSectionLimit`` bytes.
package struct MultipartForm: Sendable {
    /// One field: its headers, the name and optional file name from its `Content-Disposition`,
    /// and its raw data (no transfer decoding; RFC 7578 §4.7 deprecates
    /// `Content-Transfer-Encoding`).
    package struct Part: Sendable, Equatable {
        /// The `name` parameter of `Content-Disposition: form-data`; never empty.
        package var name: String
        /// The `filename` parameter: nil for a plain field, `""` when a browser sends a file
        /// input with no file chosen. A client-supplied name: never use it as a path.
        package var filename: String?
        /// The part's `Content-Type` as sent, nil if absent (RFC 7578 §4.4: then `text/plain`).
        package var contentType: String?
        /// All header fields of the part, in order.
        package var headers: HTTPHeaders
        /// The data between the blank line after the headers and the next delimiter; empty when
        /// it was left in the spooled body (``spooledData``).
        package var body: [UInt8]
        /// Where the data is in the request's ``SpooledBody``, when it was large and left there
        /// rather than copied into memory; nil when it is in ``body``.
        package var spooledData: Range<Int>?

        package init(name: String, filename: String? = nil, contentType: String? = nil, headers: HTTPHeaders, body: [UInt8]) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.headers = headers
            self.body = body
        }
    }

    /// Most parts in one body (else ``MultipartError/tooManyParts``).
    package static let partLimit = 100
    /// Largest header section of one part, counting each field line and its CRLF.
    package static let headerSectionLimit = 8 * 1024
    /// Most header fields in one part.
    package static let headerFieldLimit = 16

    /// The parts in body order; a name may repeat.
    package private(set) var parts: [Part]

    /// Parses `body` as the `multipart/form-data` payload described by `contentType`, the
    /// request's `Content-Type` value.
    ///
    /// - Throws: ``MultipartError``: the media type is wrong, the boundary is missing or
    ///   invalid, the body breaks the grammar (no close delimiter, bad part headers, a part
    ///   without `Content-Disposition: form-data` or without a `name`), or it has too many parts.
    package init(body: [UInt8], contentType: String) throws(MultipartError) {
        let boundary = try Self.boundary(ofContentType: contentType)
        parts = try body.withUnsafeBufferPointer { buffer throws(MultipartError) in
            try Self.parseParts(buffer, boundary: boundary)
        }
    }

    /// Parses a body the server spooled to a file, described by `contentType`, from a read-only
    /// mapping of the file: parts over `inPlace` bytes stay in the file (``Part/spooledData``).
    package init(spooled body: SpooledBody, contentType: String, leavingInPlaceOver inPlace: Int) throws(MultipartError) {
        let boundary = try Self.boundary(ofContentType: contentType)
        let parsed = try body.withMappedBytes { buffer throws(MultipartError) in
            try Self.parseParts(buffer, boundary: boundary, leavingInPlaceOver: inPlace)
        }
        guard let parsed else { throw .malformed(reason: "the spooled body could not be read back") }
        parts = parsed
    }

    /// The first part called `name`, or nil.
    package subscript(name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The `boundary` parameter of a `multipart/form-data` media type, checked against
    /// RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`.
    static func boundary(ofContentType contentType: String) throws(MultipartError) -> [UInt8] {
        guard let parameters = HeaderParameters(contentType) else {
            throw .malformed(reason: "unparsable Content-Type")
        }
        guard parameters.value == "multipart/form-data" else { throw .notMultipart }
        guard let boundary = parameters["boundary"] else { throw .missingBoundary }
        let bytes = Array(boundary.utf8)
        guard parameters.count(of: "boundary") == 1, (1...70).contains(bytes.count), bytes.allSatisfy(isBoundaryByte),
            bytes.last != ASCII.space
        else { throw .invalidBoundary }
        return bytes
    }

    /// `bchars` of RFC 2046 §5.1.1: digits, letters, space and `'()+_,-./:=?`.
    static func isBoundaryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"),
            UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "="), UInt8(ascii: "?"), ASCII.space:
            true
        default:
            false
        }
    }
}
