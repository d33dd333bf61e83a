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
        switch prepared {
        case .reply(let reply)?: return reply
        case .context(let kept)?: return reply(to: request, kept: kept)
        case nil: return answer(request, in: prepare(request))
        }
    }

    private func answer(_ request: HTTPRequest, in context: Context) -> Step<HTTPResponse> {
        request.bodyRefusal == nil ? reply(to: request, in: context) : replyToRefusedBody(request, in: context)
    }

    /// The answer to a request whose head was prepared as `kept` before its body was read.
    ///
    /// Apart, and never inlined: the cast needs the metadata of `Context?`, which this code (run
    /// for the responder as `any HTTPResponder`, unspecialized) asked the runtime for on entry,
    /// so every request paid for it, a GET with no kept context included (a profile of
    /// signed-in search).
    @inline(never)
    private func reply(to request: HTTPRequest, kept: any Sendable) -> Step<HTTPResponse> {
        answer(request, in: kept as? Context ?? prepare(request))
    }
}
