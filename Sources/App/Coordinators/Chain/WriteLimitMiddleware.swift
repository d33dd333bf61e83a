import Basics
import Foundation
import HTTPServer
import Logging
import Store

/// At most ``WriteLimits`` writes (``AppRoute/isMemberWrite``) per account and per
/// client address within a window: past either, the 429 page with `Retry-After`, and nothing
/// changes. After ``CSRFMiddleware`` and ``AccessMiddleware``, so only a signed-in person's
/// form with its right token counts: a page elsewhere cannot spend someone's allowance by
/// sending their browser a form.
///
/// Counted before the write, whatever it then answers (a refused edit too, but not a failure of
/// ours, a 5xx or a throw, which gives the counts back), under any concurrency and across instances:
/// ``AttemptLimit`` in the sign-in throttle's storage, in memory for one process, in the database
/// when instances share one.
///
/// A write counts once for each ``bytesPerWrite`` of text it could keep (``weight(of:form:)``):
/// a quote of 1,000 ordinary characters, even emoji, is one write; one of 1,000 characters each
/// built of many combining marks (up to 40 bytes a character) is up to eleven, and so is a
/// restore. So the limits bound the bytes an account or an address adds to the book, not only
/// its writes. Its counts are taken at once, all or none (``AttemptLimit/reserve(_:weight:now:)``).
final class WriteLimitMiddleware: RequestMiddleware {
    static let accountNamespace = "write-account"
    static let clientNamespace = "write-address"
    /// The typed text one counted write may carry.
    static let bytesPerWrite = 4_096

    let perAccount: AttemptLimit
    let perClient: AttemptLimit
    let renderer: PageRenderer
    let now: @Sendable () -> Date
    /// Where a give-back that failed is reported.
    let logger: Logger

    init(
        limits: WriteLimits, storage: any SignInFailureStorage, renderer: PageRenderer, now: @escaping @Sendable () -> Date,
        logger: Logger = .discarding()
    ) {
        self.logger = logger
        perAccount = AttemptLimit(namespace: Self.accountNamespace, limit: limits.perAccount, window: limits.window, storage: storage)
        perClient = AttemptLimit(namespace: Self.clientNamespace, limit: limits.perClient, window: limits.window, storage: storage)
        self.renderer = renderer
        self.now = now
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let route = context.route, route.isMemberWrite, let user = context.visitor.user else { return next.handle(context) }
        let account = String(user.id.rawValue)
        let client = AccountsCoordinator.client(of: context.request)
        let weight = Self.weight(of: route, form: context.form)
        return .later { [self] in
            let date = now()
            let accountAttempt: AttemptLimit.Attempt
            switch try await perAccount.reserve(account, weight: weight, now: date) {
            case .allowed(let attempt): accountAttempt = attempt
            case .refused(let seconds): return refusal(retryAfter: seconds, context)
            }
            var clientAttempt: AttemptLimit.Attempt?
            do {
                if let client {
                    switch try await perClient.reserve(client, weight: weight, now: date) {
                    case .allowed(let attempt): clientAttempt = attempt
                    case .refused(let seconds):
                        // Nothing is written: the account's counts are given back.
                        await giveBack(accountAttempt, nil)
                        return refusal(retryAfter: seconds, context)
                    }
                }
                let response = try await next.handle(context).value()
                // The flow answers its own failures (the database out of reach: the 503 page,
                // to try again; a fault: the 500 page), which are ours, so they do not count;
                // any other answer does, a 422 or a 409 too.
                if response.status.code >= 500 { await giveBack(accountAttempt, clientAttempt) }
                return response
            } catch {
                await giveBack(accountAttempt, clientAttempt)
                throw error
            }
        }
    }

    /// How many writes one counts as: one for each ``bytesPerWrite`` (begun) of the text it
    /// could keep, at least one. A field longer than its most is refused with a 422 and kept
    /// nowhere, so it weighs only that most. A restore keeps a version's text the form does not
    /// carry, so it weighs what the largest quote does.
    static func weight(of route: AppRoute, form: SubmittedForm) -> Int {
        if case .quotes(.restore) = route { return writes(ofBytes: QuoteDraft.maximumTextBytes + QuoteDraft.maximumAuthorBytes) }
        func bytes(_ text: String?, most: Int) -> Int { min(text?.utf8.count ?? 0, most) }
        return writes(
            ofBytes: bytes(form[QuoteFormField.text], most: QuoteDraft.maximumTextBytes)
                + bytes(form[QuoteFormField.author], most: QuoteDraft.maximumAuthorBytes)
                + bytes(form[ProfileField.displayName], most: User.maximumDisplayNameBytes))
    }

    private static func writes(ofBytes bytes: Int) -> Int {
        max(1, (bytes + bytesPerWrite - 1) / bytesPerWrite)
    }

    /// Takes the attempts back, as far as the storage lets (it may be what failed): one not
    /// given back counts until the window passes it, and is reported.
    private func giveBack(_ account: AttemptLimit.Attempt, _ client: AttemptLimit.Attempt?) async {
        var failure: (any Error)?
        do { try await perAccount.release(account) } catch { failure = error }
        if let client {
            do { try await perClient.release(client) } catch { failure = error }
        }
        if let failure {
            logger.warning("a write that failed still counts against its account or address until the window passes it: \(failure)")
        }
    }

    /// The 429 page, showing back what the refused form carried (a quote's text and author, a
    /// display name), so a person refused because of their network loses nothing they wrote.
    private func refusal(retryAfter seconds: Int, _ context: RequestContext) -> HTTPResponse {
        // A field past its most could not have been kept (a 422 says so), and is not shown: a
        // page of it, escaped, could be six times the request.
        func kept(_ field: some FormField, most: Int) -> String? { context.form[field].flatMap { $0.utf8.count <= most ? $0 : nil } }
        let typed = ErrorView.UnsavedText(
            quoteText: kept(QuoteFormField.text, most: QuoteDraft.maximumTextBytes),
            author: kept(QuoteFormField.author, most: QuoteDraft.maximumAuthorBytes),
            displayName: kept(ProfileField.displayName, most: User.maximumDisplayNameBytes))
        return renderer.response(for: ErrorView.page(for: .tooManyWrites(retryAfter: seconds, typed: typed)), visitor: context.visitor)
    }
}
