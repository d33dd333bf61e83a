package import Foundation
package import Store

/// `quotebook user add NAME [--display-name NAME]`: creates an account from the command line,
/// the password read from standard input, by the same rules and the same journal action as
/// sign-up.
///
/// Exit statuses: 0 created; 64 the command line is wrong; 65 the name, display name or
/// password breaks a rule, or the username is taken; 1 the data cannot be opened or written.
package enum AddUserCommand {
    package struct Outcome: Sendable, Equatable {
        package var exitCode: Int32
        package var message: String
    }

    /// The password as read from standard input: up to the first line break, which is dropped.
    package static func password(fromStandardInput data: [UInt8]) -> String {
        let line = data.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
        return String(decoding: trimmed, as: UTF8.self)
    }

    /// Creates the account in `store`, hashing with `hash` (yescrypt in the executable) and
    /// keeping the hash with `keepHash` (account storage: never the journal).
    package static func run(
        username typed: String, displayName: String?, password: String, store: some StateStore,
        now: Date, hash: (String) throws -> String, keepHash: (PasswordHash, UserID) async throws -> Void
    ) async -> Outcome {
        guard let username = Username(typed) else {
            return Outcome(
                exitCode: 65,
                message: "invalid username \(typed): use \(Username.lengths.lowerBound) to \(Username.lengths.upperBound) of a-z 0-9 _ -")
        }
        let name = displayName ?? username.rawValue
        if let problem = User.problem(withDisplayName: name) {
            return Outcome(exitCode: 65, message: "invalid display name: \(describe(problem))")
        }
        switch AccountsController.problem(withPassword: password) {
        case .forbiddenCharacter(let scalar):
            return Outcome(exitCode: 65, message: "the password holds \(describe(scalar)), which no password may")
        case .some:
            return Outcome(exitCode: 65, message: "the password must have at least \(AccountsController.minimumPasswordLength) characters")
        case nil:
            break
        }
        guard store.state.user(named: username) == nil else {
            return Outcome(exitCode: 65, message: "the username \(username) is taken")
        }
        do {
            let hashed = PasswordHash(encoded: try hash(password))
            switch try await store.dispatch(.signUp(username, displayName: name, at: now)) {
            case .success(.userSignedUp(let id)):
                try await UnfinishedSignUps.finish(id, in: store, at: now) { try await keepHash(hashed, id) }
                return Outcome(exitCode: 0, message: "created user \(username)")
            case .success(let event): return Outcome(exitCode: 1, message: "unexpected: \(event)")
            case .failure(.usernameTaken): return Outcome(exitCode: 65, message: "the username \(username) is taken")
            case .failure(let rejection): return Outcome(exitCode: 65, message: "refused: \(rejection)")
            }
        } catch {
            return Outcome(exitCode: 1, message: "could not create the account: \(error)")
        }
    }

    private static func describe(_ problem: FieldProblem) -> String {
        switch problem {
        case .empty: "empty"
        case .tooLong, .tooLarge: "longer than \(User.maximumDisplayNameLength) characters"
        case .forbiddenCharacter(let scalar): "it holds \(describe(scalar)), which no name may"
        }
    }

    /// The code point of a refused character (most are invisible on a terminal).
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        "the control character " + TypedTextMessage.codePoint(scalar)
    }
}
