import HTTPServer

/// How the change-password and delete-account forms say an ``OwnPasswordRefusal``: the status,
/// the `Retry-After`, and the sentence above the form.
enum OwnPasswordRefusalText {
    static func status(for refusal: OwnPasswordRefusal) -> (HTTPStatus, HTTPHeaders, String) {
        switch refusal {
        case .throttled(let seconds):
            (.tooManyRequests, ["Retry-After": String(seconds)],
             "Too many wrong passwords for your account. Please try again in \(WaitText.phrase(seconds: seconds)).")
        case .busy:
            (.serviceUnavailable, ["Retry-After": "5"], "Quotebook is busy right now. Please try again in a few seconds.")
        case .limited(let refusal):
            (.tooManyRequests, ["Retry-After": String(refusal.retryAfter)],
             AddressRefusalText.sentence(for: refusal, spent: "Too many password checks have come from your network."))
        }
    }
}
