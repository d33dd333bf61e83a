/// Which route a request took, without its values: the `route` label of
/// `quotebook_http_requests_total`.
///
/// One case per case of the route enums (`quotes_show` whatever the quote's id), plus three for
/// requests no route claimed, so the label has a fixed set of values and no user input ever
/// reaches it (prometheus.io/docs/practices/naming/#labels, on cardinality). The raw value is the
/// case's position, which indexes ``HTTPRequestCounters``' table; ``value`` is what is printed.
package enum RouteLabel: Int, CaseIterable, Sendable {
    case quotesHome
    case quotesList
    case quotesNew
    case quotesCreate
    case quotesShow
    case quotesEdit
    case quotesUpdate
    case quotesFavourite
    case quotesDelete
    case quotesHistory
    case quotesRestore
    case quotesEvents
    case accountsSignUpForm
    case accountsSignUp
    case accountsSignInForm
    case accountsSignIn
    case accountsSignOut
    case profilesShow
    case profilesPhoto
    case profilesMine
    case profilesEdit
    case profilesUpdateName
    case profilesUpdatePhoto
    case profilesRemovePhoto
    case systemHealth
    case systemMetrics
    case systemDevelopmentEvents
    /// A file of `Public/` (or a 405 for one asked for with another method).
    case staticFile
    /// No route claimed the path (404), a route's path with another method (405), or a fault
    /// stopped the request before a route was chosen (500).
    case unmatched
    /// Never routed: the server refused it as malformed or over a limit (400, 408, 413, 431…), or
    /// its path could not be decoded into segments (404).
    case rejected

    /// The label's value: the route enum's area and case, in snake case.
    package var value: String {
        switch self {
        case .quotesHome: "quotes_home"
        case .quotesList: "quotes_list"
        case .quotesNew: "quotes_new"
        case .quotesCreate: "quotes_create"
        case .quotesShow: "quotes_show"
        case .quotesEdit: "quotes_edit"
        case .quotesUpdate: "quotes_update"
        case .quotesFavourite: "quotes_favourite"
        case .quotesDelete: "quotes_delete"
        case .quotesHistory: "quotes_history"
        case .quotesRestore: "quotes_restore"
        case .quotesEvents: "quotes_events"
        case .accountsSignUpForm: "accounts_sign_up_form"
        case .accountsSignUp: "accounts_sign_up"
        case .accountsSignInForm: "accounts_sign_in_form"
        case .accountsSignIn: "accounts_sign_in"
        case .accountsSignOut: "accounts_sign_out"
        case .profilesShow: "profiles_show"
        case .profilesPhoto: "profiles_photo"
        case .profilesMine: "profiles_mine"
        case .profilesEdit: "profiles_edit"
        case .profilesUpdateName: "profiles_update_name"
        case .profilesUpdatePhoto: "profiles_update_photo"
        case .profilesRemovePhoto: "profiles_remove_photo"
        case .systemHealth: "system_health"
        case .systemMetrics: "system_metrics"
        case .systemDevelopmentEvents: "system_development_events"
        case .staticFile: "static_file"
        case .unmatched: "unmatched"
        case .rejected: "rejected"
        }
    }
}

extension QuotesRoute {
    package var metricsLabel: RouteLabel {
        switch self {
        case .home: .quotesHome
        case .list: .quotesList
        case .new: .quotesNew
        case .create: .quotesCreate
        case .show: .quotesShow
        case .edit: .quotesEdit
        case .update: .quotesUpdate
        case .favourite: .quotesFavourite
        case .delete: .quotesDelete
        case .history: .quotesHistory
        case .restore: .quotesRestore
        case .events: .quotesEvents
        }
    }
}

extension AccountsRoute {
    package var metricsLabel: RouteLabel {
        switch self {
        case .signUpForm: .accountsSignUpForm
        case .signUp: .accountsSignUp
        case .signInForm: .accountsSignInForm
        case .signIn: .accountsSignIn
        case .signOut: .accountsSignOut
        }
    }
}

extension ProfilesRoute {
    package var metricsLabel: RouteLabel {
        switch self {
        case .show: .profilesShow
        case .photo: .profilesPhoto
        case .mine: .profilesMine
        case .edit: .profilesEdit
        case .updateName: .profilesUpdateName
        case .updatePhoto: .profilesUpdatePhoto
        case .removePhoto: .profilesRemovePhoto
        }
    }
}

extension SystemRoute {
    package var metricsLabel: RouteLabel {
        switch self {
        case .health: .systemHealth
        case .metrics: .systemMetrics
        case .developmentEvents: .systemDevelopmentEvents
        }
    }
}
