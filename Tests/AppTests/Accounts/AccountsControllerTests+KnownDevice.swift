import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// The lockout protects, not punishes (SPEC.md "Rules and answers", issue 29): strangers' wrong
/// passwords lock a username for everyone but a browser known to the account, whose own failures
/// are limited on their own, and never refuse the signed-in owner's own password checks.
extension AccountsControllerTests {
    /// Signs up "ada" and locks her username with five strangers' wrong passwords, each from an
    /// address of its own; returns the account and a device known to it.
    func lockedAda(_ controller: AccountsController) async throws -> (User, SessionRecord) {
        guard case let .signedUp(ada, session, _) = try await controller.signUp(form("ada"), client: nil) else {
            throw AccountsError.unexpected("not signed up")
        }
        for stranger in 1...5 { _ = try await signIn(controller, "ada", "a guess", from: "198.51.100.\(stranger)") }
        #expect(
            try await signIn(controller, "ada", "long enough", from: "203.0.113.9")
                == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)),
            "the username is locked for a browser it does not know")
        return (ada, session.record)
    }

    @Test func aKnownBrowserSignsInWhileStrangersHaveTheUsernameLocked() async throws {
        let (controller, _, _) = try make()
        let (ada, _) = try await lockedAda(controller)
        let known = KnownDevice(user: ada.id, nonce: "n0nce-of-adas-own-phone")
        guard case .signedIn(let user, _, _) = try await controller.signIn(
            username: "ada", password: "long enough", returnTo: nil, client: "203.0.113.9", device: known)
        else {
            Issue.record("the known browser was refused")
            return
        }
        #expect(user.id == ada.id)
        // A device cookie for another account is no help here.
        let bobs = KnownDevice(user: UserID(ada.id.rawValue + 1), nonce: "n0nce-of-bobs-browser")
        #expect(
            try await controller.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil, device: bobs)
                == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)))
    }

    @Test func aKnownBrowsersOwnFailuresAreLimitedOnTheirOwn() async throws {
        let (controller, _, _) = try make()
        guard case let .signedUp(ada, _, _) = try await controller.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        let known = KnownDevice(user: ada.id, nonce: "n0nce-of-adas-own-phone")
        for _ in 1...5 {
            #expect(
                try await controller.signIn(username: "ada", password: "typo", returnTo: nil, client: nil, device: known)
                    == .showing(.rejected(username: "ada", returnTo: nil)))
        }
        #expect(
            try await controller.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil, device: known)
                == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)),
            "five of its own failures lock that browser")
        let other = KnownDevice(user: ada.id, nonce: "n0nce-of-adas-laptop-1")
        guard case .signedIn = try await controller.signIn(
            username: "ada", password: "long enough", returnTo: nil, client: nil, device: other)
        else {
            Issue.record("another known browser of hers was locked by the first one's failures")
            return
        }
        guard case .signedIn = try await signIn(controller, "ada", "long enough", from: nil) else {
            Issue.record("the username was locked by a known browser's own failures")
            return
        }
    }

    @Test func strangersLockNeverRefusesTheOwnersPasswordChangeOrDeletion() async throws {
        let (controller, _, _) = try make()
        let (ada, session) = try await lockedAda(controller)
        let change = PasswordChangeForm(currentPassword: "long enough", password: "another one", passwordConfirmation: "another one")
        guard case .changed = try await controller.changePassword(change, of: ada, current: session, client: "203.0.113.9") else {
            Issue.record("the owner's change was refused because strangers guessed")
            return
        }
        #expect(try await controller.deleteAccount(of: ada, password: "another one", client: "203.0.113.9") == .deleted(photo: nil))
    }

    @Test func theOwnersOwnWrongPasswordsHaveTheirOwnLimitAndCountTowardsTheUsername() async throws {
        let (controller, _, _) = try make()
        guard case let .signedUp(ada, session, _) = try await controller.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        let wrong = PasswordChangeForm(currentPassword: "not it", password: "another one", passwordConfirmation: "another one")
        for _ in 1...5 {
            #expect(
                try await controller.changePassword(wrong, of: ada, current: session.record, client: nil)
                    == .showing(.editing(problems: [.currentPassword: .wrongCurrentPassword])))
        }
        #expect(
            try await controller.changePassword(wrong, of: ada, current: session.record, client: nil)
                == .showing(.refused(.throttled(retryAfter: 60))))
        #expect(
            try await signIn(controller, "ada", "long enough", from: nil) == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)),
            "a stolen session guessing the password locks the username too")
    }

    @Test func theDeviceCookieIsBelievedOnlyAsThisBookSignedIt() throws {
        let names = AppCookies(isSecure: false)
        let book = KnownDeviceCookie(bookSecret: Array(repeating: 7, count: 32), names: names)
        let other = KnownDeviceCookie(bookSecret: Array(repeating: 8, count: 32), names: names)
        let value = book.value(for: UserID(42))
        let device = try #require(book.device(fromValue: value))
        #expect(device.user == UserID(42))
        #expect(device.nonce.utf8.count == 22)
        #expect(book.device(fromValue: book.value(for: UserID(42)))?.nonce != device.nonce, "a fresh nonce each sign-in")
        #expect(other.device(fromValue: value) == nil, "another book's")
        let parts = value.split(separator: ".").map(String.init)
        let otherNonce = parts[1].dropLast() + (parts[1].hasSuffix("A") ? "Q" : "A")
        for forged in [
            "43.\(parts[1]).\(parts[2])", "\(parts[0]).\(otherNonce).\(parts[2])", "\(parts[0]).\(parts[1])",
            "\(parts[0]).\(parts[1]).\(parts[2]).", "", "..", "-1.\(parts[1]).\(parts[2])", String(repeating: "9", count: 40),
            "\(parts[0]).\(parts[1]).\(parts[2].dropLast())",
        ] {
            #expect(book.device(fromValue: forged) == nil, "\(forged)")
        }
        #expect(book.device(in: HTTPCookies(["Cookie": "quotebook_seen=1"])) == nil)
        #expect(book.device(in: HTTPCookies(["Cookie": "a=b; quotebook_device=\(value)"])) == device)
        let secure = KnownDeviceCookie(bookSecret: Array(repeating: 7, count: 32), names: AppCookies(isSecure: true))
        #expect(secure.device(in: HTTPCookies(["Cookie": "quotebook_device=\(value)"])) == nil, "with --secure-cookies, only __Host-")
        #expect(secure.device(in: HTTPCookies(["Cookie": "__Host-quotebook_device=\(value)"])) == device)
    }
}
