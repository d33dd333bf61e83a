package import Foundation
package import Store

/// `quotebook user role NAME moderator|member`: gives or takes the moderator role (SPEC.md
/// "Running"), as a journal action like every other change, so it reaches a running server as
/// any change does: at once on PostgreSQL, where instances follow the journal. A SQLite book is
/// locked by the server using it: the change then waits in ``PendingRoles`` and the server
/// makes it when it next starts (the command says so).
///
/// Exit statuses: 0 done (or waiting for the next start); 65 no such account; 1 the data cannot
/// be opened or written.
package enum RoleCommand {
    package struct Outcome: Sendable, Equatable {
        package var exitCode: Int32
        package var message: String
    }

    /// Makes `typed`'s role `role` in `store`.
    package static func run(username typed: String, role: Role, store: some StateStore, now: Date) async -> Outcome {
        guard let username = Username(typed), let user = store.state.user(named: username) else {
            return Outcome(exitCode: 65, message: "no account is called \(typed)")
        }
        if store.state.moderation.isModerator(user.id) == (role == .moderator) {
            return Outcome(exitCode: 0, message: "\(username) already is a \(role.rawValue)")
        }
        do {
            switch try await store.dispatch(.setRole(user.id, role, at: now)) {
            case .success: return Outcome(exitCode: 0, message: "\(username) is now a \(role.rawValue)")
            case .failure(let rejection): return Outcome(exitCode: 65, message: "refused: \(rejection.kind)")
            }
        } catch {
            return Outcome(exitCode: 1, message: "could not store the change: \(error)")
        }
    }
}

/// Role changes asked for while a server held the SQLite book (`DIR/pending-roles`, one
/// `NAME ROLE` a line, its owner's alone), made by that server when it next starts.
package struct PendingRoles: Sendable {
    package let path: String

    package init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent("pending-roles").path
    }

    /// Keeps `role` for `username` (already checked to be a username's spelling).
    package func add(_ username: Username, _ role: Role) throws {
        let line = Data("\(username.rawValue) \(role.rawValue)\n".utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
        } else {
            guard FileManager.default.createFile(atPath: path, contents: line, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
        }
    }

    /// The changes waiting, oldest first (lines that do not parse are skipped).
    package func load() -> [(Username, Role)] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 2, let name = Username(String(words[0])), let role = Role(rawValue: String(words[1])) else { return nil }
            return (name, role)
        }
    }

    /// Makes every waiting change in `store` and forgets them; returns what each did.
    package func apply(to store: some StateStore, now: Date) async -> [String] {
        var messages: [String] = []
        for (name, role) in load() {
            messages.append(await RoleCommand.run(username: name.rawValue, role: role, store: store, now: now).message)
        }
        try? FileManager.default.removeItem(atPath: path)
        return messages
    }
}
