import Basics
import Foundation
import HTTPServer
import Logging
import Store

/// On a journal shared with other instances, a visitor's own saves are visible to them: a
/// request whose signed `quotebook_seen` cookie names a journal entry this instance has not
/// applied yet waits (a moment, at most ``SeenWriteCookie/catchUpTimeout``) until it has.
/// Only a position this book signed is waited for: a forged one is ignored at once.
///
/// Before the rest of the chain it reads the store's revision for the page, after the wait and
/// before any state; after it, a state-changing POST that ended in a redirect gets the cookie
/// naming the journal position just reached (the save included): the next page may come from
/// another instance.
final class ReadYourWritesMiddleware: RequestMiddleware, AnswerAmending {
    let store: Store
    let seen: SeenWriteCookie
    let logger: Logger

    init(store: Store, seen: SeenWriteCookie, logger: Logger) {
        self.store = store
        self.seen = seen
        self.logger = logger
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard store.sharesJournal else {
            context.revision = store.revision
            return next.handle(context)
        }
        guard let sequence = seen.sequence(in: context.cookies), sequence > store.appliedJournalSequence else {
            context.revision = store.revision
            return next.handle(context).amended(by: self, for: context)
        }
        return .later { [self, context] in
            if !(await store.waitForJournal(through: sequence, timeout: SeenWriteCookie.catchUpTimeout)) {
                logger.warning(
                    "\(context.request.method) \(context.request.path): served before this instance caught up with the visitor's last save")
            }
            context.revision = store.revision
            return amend(try await next.handle(context).value(), for: context)
        }
    }

    func amend(_ response: consuming HTTPResponse, for context: RequestContext) -> HTTPResponse {
        if context.request.method == .post, response.status == .seeOther {
            context.setCookies.append(seen.setting(store.appliedJournalSequence))
        }
        return response
    }
}
