import Foundation
import Store
import Templates

/// Renders ``SessionsState``: where the person is signed in (200), each session with when it
/// began, when it was last used (to the hour: "last used" is written about hourly), and its
/// browser and system in a few words; the one asking marked, the others with a sign-out form.
package enum SessionsView {
    struct Item: Sendable, TemplateValueConvertible {
        let record: SessionRecord
        let isCurrent: Bool

        /// When the session was last used, to the hour, if that says more than when it began: a
        /// session used only within the hour it began shows no "last used", rather than an hour
        /// rounded down to before its sign-in.
        var lastUsed: Date? {
            let hour = Date(timeIntervalSince1970: (record.lastUsedAt.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600)
            return hour > record.createdAt ? hour : nil
        }

        var templateValue: TemplateValue {
            var values: [String: TemplateValue] = [
                "browser": .string(UserAgentText.summary(record.userAgent)), "isCurrent": .bool(isCurrent),
                "began": .string(DateText.readable(record.createdAt)), "beganISO": .string(DateText.machine(record.createdAt)),
                "endAction": .string(ProfilesRoute.endSession(SessionHandle(id: record.id)).path),
            ]
            if let lastUsed {
                values["lastUsed"] = .object(["text": .string(DateText.readable(lastUsed)), "iso": .string(DateText.machine(lastUsed))])
            }
            return .object(values)
        }
    }

    struct Context: Sendable, TemplateValueConvertible {
        let items: [Item]

        var templateValue: TemplateValue {
            .object([
                "sessions": .list(items.map(\.templateValue)), "hasOthers": .bool(items.contains { !$0.isCurrent }),
                "endOthersAction": .string(ProfilesRoute.endOtherSessions.path),
                "passwordURL": .string(ProfilesRoute.passwordForm.path), "editURL": .string(ProfilesRoute.edit.path),
            ])
        }
    }

    package static func page(for state: SessionsState) -> Page {
        switch state {
        case let .listing(records, current):
            // The current session first, then the others oldest first.
            let items = records.map { Item(record: $0, isCurrent: $0.id == current) }
            let ordered = items.filter { $0.isCurrent } + items.filter { !$0.isCurrent }
            return Page(template: .profileSessions, context: Context(items: ordered))
        case .ended, .notFound:
            // `ended` is a redirect the coordinator makes, never rendered.
            return ErrorView.page(for: .notFound)
        }
    }
}
