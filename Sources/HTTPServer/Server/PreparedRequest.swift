import Basics

/// What the responder made of the head of a request whose body is still to be read: kept on
/// the ``Connection`` until the whole request is dispatched, so the responder prepares each
/// request once (``HTTPResponder/prepare(_:)``), however long its body takes.
///
/// The responder's ``HTTPResponder/Context`` is erased here because the loop holds the
/// responder as `any HTTPResponder`; it comes back only to the responder that made it. A context
/// that is a class (Quotebook's) is held as its reference: erasing it allocates nothing.
enum PreparedRequest {
    /// Read the body, then answer with this context.
    case context(any Sendable)
    /// The head decided the answer, which must wait: await it once the body has been read.
    case reply(Step<HTTPResponse>)
}

/// What the loop does with a request's head.
enum HeadDecision {
    /// Answer now, without reading the body.
    case answer(HTTPResponse)
    /// Read the body, keeping what was prepared.
    case readBody(PreparedRequest)
}

extension HTTPResponder {
    /// Prepares the request whose head is `head`, and asks whether the head alone answers it.
    func decide(head: HTTPRequest) -> HeadDecision {
        let context = prepare(head)
        switch replyBeforeBody(in: context) {
        case .now(let response)?: return .answer(response)
        case let reply?: return .readBody(.reply(reply))
        case nil: return .readBody(.context(context))
        }
    }

    /// The answer to the whole `request`, from what its head prepared (nil: a request without a
    /// body, or one refused before its head was handed on: prepared now).
    func reply(to request: HTTPRequest, prepared: PreparedRequest?) -> Step<HTTPResponse> {
        let context: Context
        switch prepared {
        case .reply(let reply)?: return reply
        case .context(let kept)?: context = kept as? Context ?? prepare(request)
        case nil: context = prepare(request)
        }
        return request.bodyRefusal == nil ? reply(to: request, in: context) : replyToRefusedBody(request, in: context)
    }
}
