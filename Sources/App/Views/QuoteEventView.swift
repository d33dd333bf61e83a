import Foundation
package import HTTPServer
import Store

/// Renders a quote's ``QuoteFeedMessage``s as server-sent events (WHATWG HTML §9.2), the
/// `text/event-stream` the quote page's script (`Public/live.js`) reads.
///
/// - A change: `event: quote`, `id:` the version (so a reconnecting browser's `Last-Event-ID`
///   says which version it has), and one `data:` line of JSON with what the page shows.
/// - A deletion: `event: deleted` and the quote's id.
/// - A heartbeat: a comment line, which browsers ignore.
///
/// Everything a person typed travels only inside JSON strings, where line breaks are escaped, so
/// no text can end a `data:` line or forge a field; the script puts it on the page with
/// `textContent`.
package enum QuoteEventView {
    /// The streamed response; `open` is called once the body starts (so a HEAD request, whose
    /// body is never produced, opens nothing). The stream ends after a deletion.
    package static func response(open: @escaping @Sendable () -> AsyncStream<QuoteFeedMessage>) -> HTTPResponse {
        EventStream.response(open: open, event: event(for:)) { message in
            if case .deleted = message { return true }
            return false
        }
    }

    /// One message as the bytes of one event.
    package static func event(for message: QuoteFeedMessage) -> [UInt8] {
        switch message {
        case let .changed(quote, changedBy):
            EventStream.event(named: "quote", id: String(quote.version), data: json(Changed(quote, changedBy: changedBy)))
        case .deleted(let id):
            EventStream.event(named: "deleted", data: json(Deleted(id: id.rawValue, url: QuotesRoute.show(id).path)))
        case .heartbeat:
            EventStream.heartbeat
        }
    }

    /// The data of a `quote` event: the quote as its page shows it, dates already written out.
    struct Changed: Encodable {
        let id: Int
        let version: Int
        let text: String
        let author: String
        let url: String
        let editURL: String
        /// Who made the latest change (display name), and their profile; nil for no one.
        let changedBy: String?
        let changedByURL: String?
        let changedAt: String
        let changedAtISO: String

        init(_ quote: Quote, changedBy user: User?) {
            id = quote.id.rawValue
            version = quote.version
            text = quote.text
            author = quote.author
            url = QuotesRoute.show(quote.id).path
            editURL = QuotesRoute.edit(quote.id).path
            changedBy = user?.displayName
            changedByURL = user.map { ProfilesRoute.show($0.username).path }
            changedAt = DateText.readable(quote.updatedAt)
            changedAtISO = DateText.machine(quote.updatedAt)
        }
    }

    /// The data of a `deleted` event.
    struct Deleted: Encodable {
        let id: Int
        let url: String
    }

    /// `value` as one line of JSON: string escapes cover every control character, so the
    /// result has no line break.
    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs of strings and numbers cannot fail.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The framing of `text/event-stream` (WHATWG HTML §9.2.5), shared by the quote feed and the
/// `--dev` reload stream.
enum EventStream {
    /// Headers of every event stream: never cached, never sniffed as something else.
    static let headers: HTTPHeaders = [
        "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
    ]

    /// A `200` whose body writes each message of `open()` as `event(message)`, until the
    /// messages end, the client goes, or a message `isLast`. `open` is called once the body
    /// starts, so a HEAD request (no body) opens nothing.
    static func response<Message: Sendable>(
        open: @escaping @Sendable () -> AsyncStream<Message>, event: @escaping @Sendable (Message) -> [UInt8],
        isLast: @escaping @Sendable (Message) -> Bool
    ) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: headers,
            stream: HTTPBodyStream { writer in
                for await message in open() {
                    guard await writer.write(event(message)), !isLast(message) else { return }
                }
            })
    }

    /// A comment line: keeps the connection busy, ignored by browsers.
    static let heartbeat = Array(": heartbeat\n\n".utf8)

    /// One event. `data` should hold no line break (callers pass JSON or fixed words); one that
    /// slipped in (CR, LF or CRLF: the only breaks the format knows) is split into further
    /// `data:` lines rather than end the event.
    static func event(named name: String, id: String? = nil, data: String) -> [UInt8] {
        var text = "event: \(name)\n"
        if let id { text += "id: \(id)\n" }
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text += "data: \(line)\n"
        }
        return Array((text + "\n").utf8)
    }
}
