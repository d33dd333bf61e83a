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
/// A write counts once for each ``bytesPerWrite`` of text it could keep (``weight(of:)``): a
/// quote of 1,000 ordinary characters, even emoji, is one write; one of 1,000 characters each
/// built of many combining marks (up to 40 bytes a character) is up to eleven. So the limits
/// bound the bytes an account or an address adds to the book, not only its writes.
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
        let weight = Self.weight(of: context.form)
        return .later { [self] in
            let date = now()
            let accountAttempts: [AttemptLimit.Attempt]
            switch try await reserve(weight, of: perAccount, for: account, at: date) {
            case .allowed(let attempts): accountAttempts = attempts
            case .refused(let seconds): return refusal(retryAfter: seconds, context)
            }
            var clientAttempts: [AttemptLimit.Attempt] = []
            do {
                if let client {
                    switch try await reserve(weight, of: perClient, for: client, at: date) {
                    case .allowed(let attempts): clientAttempts = attempts
                    case .refused(let seconds):
                        // Nothing is written: the account's counts are given back.
                        await giveBack(accountAttempts, to: perAccount)
                        return refusal(retryAfter: seconds, context)
                    }
                }
            } catch {
                await giveBack(accountAttempts, to: perAccount)
                throw error
            }
            do {
                let response = try await next.handle(context).value()
                // The flow answers its own failures (the database out of reach: the 503 page,
                // to try again; a fault: the 500 page), which are ours, so they do not count;
                // any other answer does, a 422 or a 409 too.
                if response.status.code >= 500 { await giveBack(accountAttempts, clientAttempts) }
                return response
            } catch {
                await giveBack(accountAttempts, clientAttempts)
                throw error
            }
        }
    }

    /// How many writes `form` counts as: one for each ``bytesPerWrite`` (begun) of the text it
    /// could keep, at least one. A field longer than its most is refused with a 422 and kept
    /// nowhere, so it weighs only that most.
    static func weight(of form: SubmittedForm) -> Int {
        func bytes(_ text: String?, most: Int) -> Int { min(text?.utf8.count ?? 0, most) }
        let total =
            bytes(form[QuoteFormField.text], most: QuoteDraft.maximumTextBytes)
            + bytes(form[QuoteFormField.author], most: QuoteDraft.maximumAuthorBytes)
            + bytes(form[ProfileField.displayName], most: FieldProblem.bytesPerCharacter * User.maximumDisplayNameLength)
        return max(1, (total + bytesPerWrite - 1) / bytesPerWrite)
    }

    private enum Reservation {
        case allowed([AttemptLimit.Attempt])
        case refused(retryAfter: Int)
    }

    /// Counts `weight` attempts of `key`, one after another, each as atomic as any; when one is
    /// refused (or the storage fails), those taken are given back. Two heavy writes at once may
    /// then both be refused, never both let past the limit.
    private func reserve(_ weight: Int, of limit: AttemptLimit, for key: String, at date: Date) async throws -> Reservation {
        var taken: [AttemptLimit.Attempt] = []
        taken.reserveCapacity(weight)
        do {
            while taken.count < weight {
                switch try await limit.reserve(key, now: date) {
                case .allowed(let attempt): taken.append(attempt)
                case .refused(let seconds):
                    await giveBack(taken, to: limit)
                    return .refused(retryAfter: seconds)
                }
            }
        } catch {
            await giveBack(taken, to: limit)
            throw error
        }
        return .allowed(taken)
    }

    /// Takes the attempts back, as far as the storage lets (it may be what failed): one not
    /// given back counts until the window passes it, and is reported.
    private func giveBack(_ account: [AttemptLimit.Attempt], _ client: [AttemptLimit.Attempt]) async {
        let accountFailure = await release(account, to: perAccount)
        let clientFailure = await release(client, to: perClient)
        report(accountFailure ?? clientFailure)
    }

    private func giveBack(_ attempts: [AttemptLimit.Attempt], to limit: AttemptLimit) async {
        report(await release(attempts, to: limit))
    }

    /// Releases every one of `attempts` it can; the last failure, if any.
    private func release(_ attempts: [AttemptLimit.Attempt], to limit: AttemptLimit) async -> (any Error)? {
        var failure: (any Error)?
        for attempt in attempts {
            do { try await limit.release(attempt) } catch { failure = error }
        }
        return failure
    }

    private func report(_ failure: (any Error)?) {
        guard let failure else { return }
        logger.warning("a write that failed still counts against its account or address until the window passes it: \(failure)")
    }

    /// The 429 page, showing back what the refused form carried (a quote's text and author, a
    /// display name), so a person refused because of their network loses nothing they wrote.
    private func refusal(retryAfter seconds: Int, _ context: RequestContext) -> HTTPResponse {
        let form = context.form
        let typed = ErrorView.UnsavedText(
            quoteText: form[QuoteFormField.text], author: form[QuoteFormField.author], displayName: form[ProfileField.displayName])
        return renderer.response(for: ErrorView.page(for: .tooManyWrites(retryAfter: seconds, typed: typed)), visitor: context.visitor)
    }
}
