/// Why a body is not a valid `multipart/form-data` form (RFC 7578, RFC 2046 §5.1.1).
///
/// Every case is the client's fault: the boundary turns it into a 400 response. Reasons are
/// fixed texts of the parser and never quote the client's bytes.
package enum MultipartError: Error, Equatable, CustomStringConvertible {
    /// The `Content-Type` is not `multipart/form-data`.
    case notMultipart
    /// The `Content-Type` has no `boundary` parameter.
    case missingBoundary
    /// The boundary is not 1–70 `bchars` ending in a non-space, or is given twice.
    case invalidBoundary
    /// The `Content-Type` or the body breaks the grammar; `reason` says where.
    case malformed(reason: String)
    /// The body has more than ``MultipartForm/partLimit`` parts.
    case tooManyParts

    /// A sentence for the log, e.g. `malformed multipart body: no close delimiter`.
    package var description: String {
        switch self {
        case .notMultipart: "the Content-Type is not multipart/form-data"
        case .missingBoundary: "the multipart Content-Type has no boundary parameter"
        case .invalidBoundary: "the multipart boundary is not 1-70 allowed characters (RFC 2046 §5.1.1)"
        case .malformed(let reason): "malformed multipart body: \(reason)"
        case .tooManyParts: "the multipart body has more than \(MultipartForm.partLimit) parts"
        }
    }
}
