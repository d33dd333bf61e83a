import App
import Foundation
import Store
import Testing

/// A visitor keeps what it was made with, in one box: a copy changed does not change the
/// original, and a visitor made with nothing is signed out with no token.
@Suite struct VisitorTests {
    let at = Date(timeIntervalSince1970: 1_000)

    var ada: User { User(id: UserID(1), username: Username("ada")!, displayName: "Ada", joinedAt: at) }
    var session: SessionRecord {
        SessionRecord(id: Array(repeating: 7, count: 32), userID: UserID(1), createdAt: at, lastUsedAt: at, userAgent: "Firefox")
    }

    @Test func aVisitorMadeWithNothingIsSignedOutWithoutAToken() {
        let visitor = Visitor()
        #expect(visitor.user == nil && visitor.session == nil && visitor.csrfToken == nil)
        #expect(!visitor.isSignedIn && !visitor.isModerator)
    }

    @Test func keepsEveryFieldItWasMadeWith() {
        let visitor = Visitor(user: ada, session: session, csrfToken: "token", isModerator: true)
        #expect(visitor.user == ada)
        #expect(visitor.session == session)
        #expect(visitor.csrfToken == "token")
        #expect(visitor.isSignedIn && visitor.isModerator)
    }

    @Test func settingTheTokenKeepsTheRestAndLeavesCopiesAsTheyWere() {
        let original = Visitor(user: ada, session: session, csrfToken: "old", isModerator: true)
        var changed = original
        changed.csrfToken = "new"
        #expect(changed.csrfToken == "new" && changed.user == ada && changed.session == session && changed.isModerator)
        #expect(original.csrfToken == "old", "the copy it came from keeps its token")
        var anonymous = Visitor()
        anonymous.csrfToken = "pre-session"
        #expect(anonymous.csrfToken == "pre-session" && !anonymous.isSignedIn && !anonymous.isModerator)
        anonymous.csrfToken = nil
        #expect(anonymous.csrfToken == nil)
    }
}
