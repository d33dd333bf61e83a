package import Store

extension AppState {
    /// The newest quotes themselves, newest first, at most `limit`: what tests compare, where the
    /// app reads only their ids (``AppState/newestQuoteIDs(limit:)``).
    package func newestQuotes(limit: Int = .max) -> [Quote] {
        newestQuoteIDs(limit: limit).compactMap { quotes[$0] }
    }
}
