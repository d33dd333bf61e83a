package import Store

/// The per-client-address limits on sign-ins and sign-ups (SPEC.md "Hostile clients"), counted
/// in the sign-in throttle's storage under namespaces of their own: in memory for one process,
/// in the database when instances share one, so an address's tries spread over instances add up.
///
/// Keys are client addresses as text (``AccountLimits`` says which); nil means the server could
/// not say who asked, and such a request is not limited by address.
package struct AddressLimits: Sendable {
    package static let signInNamespace = "sign-in-address"
    package static let signUpNamespace = "sign-up-address"

    /// Password checks from one address that did not sign in: each is counted before its check
    /// starts and given back when it signs someone in.
    package let signIns: AttemptLimit
    /// Accounts made from one address: each sign-up is counted before its hash starts and given
    /// back when no account came of it.
    package let signUps: AttemptLimit

    package init(storage: any SignInFailureStorage, limits: AccountLimits = AccountLimits()) {
        signIns = AttemptLimit(
            namespace: Self.signInNamespace, limit: limits.signInsPerClient, window: limits.window, storage: storage)
        signUps = AttemptLimit(
            namespace: Self.signUpNamespace, limit: limits.signUpsPerClient, window: limits.window, storage: storage)
    }
}
