package import HTTPServer

/// Renders ``DevelopmentReload`` messages as server-sent events for `Public/dev-reload.js`:
/// the version as the event id (with a short `retry`, so a restarted server is found quickly),
/// `event: reload`, and heartbeat comments.
package enum DevelopmentReloadView {
    /// Milliseconds a browser waits before reconnecting (WHATWG HTML §9.2.5 `retry`).
    static let retry = 500

    package static func response(open: @escaping @Sendable () -> AsyncStream<DevelopmentReload.Message>) -> HTTPResponse {
        EventStream.response(open: open, event: event(for:)) { $0 == .reload }
    }

    /// One message as the bytes of one event. A version has no data, so the browser only
    /// remembers it as its last event id and dispatches nothing.
    package static func event(for message: DevelopmentReload.Message) -> [UInt8] {
        switch message {
        case .version(let version): Array("retry: \(retry)\nid: \(version)\n\n".utf8)
        case .reload: EventStream.event(named: "reload", data: "reload")
        case .heartbeat: EventStream.heartbeat
        }
    }
}
