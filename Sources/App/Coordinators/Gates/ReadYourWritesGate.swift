import Basics
import HTTPServer
import Foundation
import Logging
import Store

/// On a journal shared with other instances, a visitor's own saves are visible to them: a
/// request whose signed `quotebook_seen` cookie names a journal entry this instance has not
/// applied yet waits (a moment, at most ``SeenWriteCookie/catchUpTimeout``) until it has.
/// Only a position this book signed is waited for: a forged one is ignored at once.
///
/// Its pass reads the store's revision for the page, after the wait and before any state.
struct ReadYourWritesGate: Sendable {
    let store: Store
    let seen: SeenWriteCookie
    let logger: Logger

    func pass(_ context: RequestContext) -> Step<RequestContext> {
        guard store.sharesJournal, let sequence = seen.sequence(in: context.cookies), sequence > store.appliedJournalSequence else {
            context.revision = store.revision
            return .now(context)
        }
        return .later { [store, logger, context] in
            if !(await store.waitForJournal(through: sequence, timeout: SeenWriteCookie.catchUpTimeout)) {
                logger.warning(
                    "\(context.request.method) \(context.request.path): served before this instance caught up with the visitor's last save")
            }
            context.revision = store.revision
            return context
        }
    }

    /// After a state-changing POST that ended in a redirect, the cookie naming the journal
    /// position just reached (the save included): the next page may come from another instance.
    func cookie(after response: HTTPResponse, to context: RequestContext) -> SetCookie? {
        guard store.sharesJournal, context.request.method == .post, response.status == .seeOther else { return nil }
        return seen.setting(store.appliedJournalSequence)
    }
}
