import App
import Store

// The cases of each route enum without their values, each with an example value: `RouteTests`
// checks every one round-trips, and a case added to a route enum without one here fails to build.

/// The cases of ``QuotesRoute`` without their values, each with an example value.
enum QuotesRouteKind: CaseIterable {
    case home, list, new, create, show, edit, update, favourite, delete, history, restore, events, report

    var example: QuotesRoute {
        switch self {
        case .home: .home
        case .list: .list(page: 2, search: "élan vital & <b>")
        case .new: .new
        case .create: .create
        case .delete: .delete(QuoteID(5))
        case .history: .history(QuoteID(6))
        case .restore: .restore(QuoteID(9))
        case .events: .events(QuoteID(10))
        case .show: .show(QuoteID(1))
        case .edit: .edit(QuoteID(42))
        case .update: .update(QuoteID(7))
        case .favourite: .favourite(QuoteID(8))
        case .report: .report(QuoteID(11))
        }
    }
}

extension QuotesRoute {
    var kind: QuotesRouteKind {
        switch self {
        case .home: .home
        case .list: .list
        case .new: .new
        case .create: .create
        case .delete: .delete
        case .history: .history
        case .restore: .restore
        case .events: .events
        case .show: .show
        case .edit: .edit
        case .update: .update
        case .favourite: .favourite
        case .report: .report
        }
    }
}

/// The cases of ``AccountsRoute`` without their values, each with an example value.
enum AccountsRouteKind: CaseIterable {
    case signUpForm, signUp, signInForm, signIn, signOut, forgotForm, forgot, resetForm, reset, verifyForm, verify

    var example: AccountsRoute {
        switch self {
        case .signUpForm: .signUpForm
        case .signUp: .signUp
        case .signInForm: .signInForm(returnTo: ReturnPath("/quotes/3/edit?x=1&y=a%20b"))
        case .signIn: .signIn
        case .signOut: .signOut
        case .forgotForm: .forgotForm
        case .forgot: .forgot
        case .resetForm: .resetForm(token: "abc-_DEF0123456789abcdefghijklmnopqrstuvwxyzA")
        case .reset: .reset
        case .verifyForm: .verifyForm(token: "a token & <b>")
        case .verify: .verify
        }
    }
}

extension AccountsRoute {
    var kind: AccountsRouteKind {
        switch self {
        case .signUpForm: .signUpForm
        case .signUp: .signUp
        case .signInForm: .signInForm
        case .signIn: .signIn
        case .signOut: .signOut
        case .forgotForm: .forgotForm
        case .forgot: .forgot
        case .resetForm: .resetForm
        case .reset: .reset
        case .verifyForm: .verifyForm
        case .verify: .verify
        }
    }
}

/// The cases of ``ProfilesRoute`` without their values, each with an example value.
enum ProfilesRouteKind: CaseIterable {
    case show, photo, smallPhoto, mine, edit, updateName, updatePhoto, removePhoto, passwordForm, changePassword, sessions, endSession
    case endOtherSessions, deletionForm, deleteAccount, export, emailForm, changeEmail

    var example: ProfilesRoute {
        switch self {
        case .show: .show(Username("ada_l-1")!, page: 3)
        case .photo: .photo(Username("bob")!, version: "0123456789abcdef")
        case .smallPhoto: .smallPhoto(Username("bob")!, version: "fedcba9876543210")
        case .mine: .mine
        case .edit: .edit
        case .updateName: .updateName
        case .updatePhoto: .updatePhoto
        case .removePhoto: .removePhoto
        case .passwordForm: .passwordForm
        case .changePassword: .changePassword
        case .sessions: .sessions
        case .endSession: .endSession(SessionHandle(id: Array(0..<32)))
        case .endOtherSessions: .endOtherSessions
        case .deletionForm: .deletionForm
        case .deleteAccount: .deleteAccount
        case .export: .export
        case .emailForm: .emailForm
        case .changeEmail: .changeEmail
        }
    }
}

extension ProfilesRoute {
    var kind: ProfilesRouteKind {
        switch self {
        case .show: .show
        case .photo: .photo
        case .smallPhoto: .smallPhoto
        case .mine: .mine
        case .edit: .edit
        case .updateName: .updateName
        case .updatePhoto: .updatePhoto
        case .removePhoto: .removePhoto
        case .passwordForm: .passwordForm
        case .changePassword: .changePassword
        case .sessions: .sessions
        case .endSession: .endSession
        case .endOtherSessions: .endOtherSessions
        case .deletionForm: .deletionForm
        case .deleteAccount: .deleteAccount
        case .export: .export
        case .emailForm: .emailForm
        case .changeEmail: .changeEmail
        }
    }
}

/// The cases of ``SystemRoute`` without their values, each with an example value.
enum SystemRouteKind: CaseIterable {
    case health, metrics, developmentEvents

    var example: SystemRoute {
        switch self {
        case .health: .health
        case .metrics: .metrics
        case .developmentEvents: .developmentEvents
        }
    }
}

extension SystemRoute {
    var kind: SystemRouteKind {
        switch self {
        case .health: .health
        case .metrics: .metrics
        case .developmentEvents: .developmentEvents
        }
    }
}

/// The cases of ``ModerationRoute`` without their values, each with an example value.
enum ModerationRouteKind: CaseIterable {
    case queue, hidden, log, dismiss, hide, unhide, suspend, unsuspend, revert

    var example: ModerationRoute {
        switch self {
        case .queue: .queue(page: 2)
        case .hidden: .hidden()
        case .log: .log()
        case .dismiss: .dismiss(ReportID(3))
        case .hide: .hide(QuoteID(4))
        case .unhide: .unhide(QuoteID(5))
        case .suspend: .suspend(Username("ada")!)
        case .unsuspend: .unsuspend(Username("bob")!)
        case .revert: .revert(Username("cyd")!)
        }
    }
}

extension ModerationRoute {
    var kind: ModerationRouteKind {
        switch self {
        case .queue: .queue
        case .hidden: .hidden
        case .log: .log
        case .dismiss: .dismiss
        case .hide: .hide
        case .unhide: .unhide
        case .suspend: .suspend
        case .unsuspend: .unsuspend
        case .revert: .revert
        }
    }
}
