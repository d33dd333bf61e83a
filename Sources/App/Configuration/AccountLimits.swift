package import Foundation

/// How much of sign-in and sign-up one client address may have (SPEC.md "Hostile clients"), and
/// how many sessions one account may hold at once, as
/// options with defaults a person using the app never meets. On top of the 5-a-minute limit per
/// username, which is SPEC.md's own and not an option.
///
/// An address is the one the server reports (the peer, or whom a `--trusted-proxies` proxy
/// forwarded for), an IPv6 address counted by its /64. Behind a proxy that is not in
/// `--trusted-proxies`, every visitor is the proxy's address and shares one allowance.
package struct AccountLimits: Sendable, Equatable {
    /// `--sign-ins-per-client`: sign-in tries from one address that did not sign in (wrong
    /// passwords, unknown usernames, those under way, and those refused past the address's
    /// share of the hashing pool) per ``window``.
    package var signInsPerClient = 20
    /// `--sign-ups-per-client`: accounts made from one address per ``window``.
    package var signUpsPerClient = 10
    /// `--account-limit-window`: the window of both per-address limits, in seconds.
    package var window: TimeInterval = 600
    /// `--max-hashes-per-client`: password hashes and checks one address may have queued or
    /// running on the hashing pool at once; one more is refused at once (429, `Retry-After: 1`)
    /// instead of queueing, so a flood from one address leaves the queue open to everyone else.
    package var maxHashesPerClient = 2
    /// `--sessions-per-account`: sessions one account may have at once; a sign-in past it ends
    /// the least recently used (the sessions page lists them all). Mastodon keeps 10.
    package var sessionsPerAccount = 100

    package init() {}
}
