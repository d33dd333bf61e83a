import Basics
import HTTPServer
import Logging

extension AppCoordinator {
    /// The request chain: the one list of its links, outermost first, in SPEC.md's order of
    /// checks, then the child's flow. Each link is a ``RequestMiddleware`` in a file of its own
    /// (`Coordinators/Chain/`); adding one is that file and one line in this list.
    ///
    static func makeChain(
        dependencies: Dependencies, sessions: SessionKeeper, cookies: AppCookies, pageCache: PageCache?, renderer: PageRenderer,
        logger: Logger, then flows: FlowHandler
    ) -> RequestChain {
        let store = dependencies.store
        let csrf = CSRFProtection(key: dependencies.csrfKey)
        let seen = SeenWriteCookie(bookSecret: dependencies.csrfKey, names: cookies)
        return RequestChain(
            [
                ReadYourWritesMiddleware(store: store, seen: seen, logger: logger),
                PageCacheMiddleware(pageCache: pageCache, cookies: cookies),
                VisitorMiddleware(sessions: sessions, store: store, csrf: csrf, cookies: cookies, now: dependencies.now),
                CSRFMiddleware(csrf: csrf, cookies: cookies, renderer: renderer),
                AccessMiddleware(renderer: renderer),
                WriteLimitMiddleware(
                    limits: dependencies.writeLimits, storage: dependencies.signInFailures, renderer: renderer, now: dependencies.now,
                    logger: logger),
                NoticeMiddleware(cookies: cookies),
                PageTagMiddleware(bootID: SecureRandom.bytes(16), tagsPages: !dependencies.isDevelopment),
            ], then: flows)
    }
}
