import Basics
import Foundation
import HTTPServer
import Store

/// At most ``WriteLimits`` writes to the book (``AppRoute/isBookWrite``) per account and per
/// client address within a window: past either, the 429 page with `Retry-After`, and nothing
/// changes. After ``CSRFMiddleware`` and ``AccessMiddleware``, so only a signed-in person's
/// form with its right token counts: a page elsewhere cannot spend someone's allowance by
/// sending their browser a form.
///
/// Counted before the write, whatever it then becomes (a refused edit too), under any
/// concurrency and across instances: ``AttemptLimit`` in the sign-in throttle's storage, in
/// memory for one process, in the database when instances share one.
final class WriteLimitMiddleware: RequestMiddleware {
    static let accountNamespace = "write-account"
    static let clientNamespace = "write-address"

    let perAccount: AttemptLimit
    let perClient: AttemptLimit
    let renderer: PageRenderer
    let now: @Sendable () -> Date

    init(limits: WriteLimits, storage: any SignInFailureStorage, renderer: PageRenderer, now: @escaping @Sendable () -> Date) {
        perAccount = AttemptLimit(namespace: Self.accountNamespace, limit: limits.perAccount, window: limits.window, storage: storage)
        perClient = AttemptLimit(namespace: Self.clientNamespace, limit: limits.perClient, window: limits.window, storage: storage)
        self.renderer = renderer
        self.now = now
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let route = context.route, route.isBookWrite, let user = context.visitor.user else { return next.handle(context) }
        let account = String(user.id.rawValue)
        let client = AccountsCoordinator.client(of: context.request)
        return .later { [self] in
            let date = now()
            let counted: AttemptLimit.Attempt
            switch try await perAccount.reserve(account, now: date) {
            case .allowed(let attempt): counted = attempt
            case .refused(let seconds): return refusal(retryAfter: seconds, context)
            }
            if let client, case .refused(let seconds) = try await perClient.reserve(client, now: date) {
                // Nothing is written: the account's count is given back.
                try await perAccount.release(counted)
                return refusal(retryAfter: seconds, context)
            }
            return try await next.handle(context).value()
        }
    }

    private func refusal(retryAfter seconds: Int, _ context: RequestContext) -> HTTPResponse {
        renderer.response(for: ErrorView.page(for: .tooManyWrites(retryAfter: seconds)), visitor: context.visitor)
    }
}
