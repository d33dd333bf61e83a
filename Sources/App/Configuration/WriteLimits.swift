package import Foundation

/// How many changes to the book one person and one client address may make (SPEC.md "Hostile
/// clients": no client can take the app away from everyone else), as options with defaults a
/// person using the app never meets. A write is a form that adds, edits, restores or deletes a
/// quote, marks a favourite, renames or removes a photo (``Route/isMemberWrite``): each is an
/// action kept in the journal for good, most with up to 40 KB of typed text, and each moves the
/// state on, which every page's tag follows. Without a bound one signed-in client added 4,300 quotes a second
/// from 8 connections, growing the data by 17 MB and the server's memory by 20 MB a second.
///
/// Reports, photos sent and mail (addresses, resets) have limits of their own; a password change
/// is paced by its hashes and never held back by a neighbour's writes; signing out, sessions,
/// deleting an account and what moderators do are never counted here.
///
/// A write counts once for each 4 KiB of text it could keep (``WriteLimitMiddleware/weight(of:form:)``):
/// any quote of ordinary characters is one, one of 1,000 characters built of many combining
/// marks up to eleven, and so is a restore, so the limits bound the bytes added as well as the writes.
///
/// The per-address limit counts writes that went through, as the sign-up limit counts accounts
/// made: it is what bounds one address's accounts together (each new account would bring a new
/// allowance). Everyone behind one address (an office, a carrier's NAT, every visitor when
/// `--trusted-proxies` is missing) shares it; its 429s show in `/metrics` by route.
package struct WriteLimits: Sendable, Equatable {
    /// `--writes-per-account`: writes one account may make per ``window``.
    package var perAccount = 300
    /// `--writes-per-client`: writes one client address may make per ``window``, whatever the
    /// accounts (one address may make 10 accounts in 10 minutes: ``AccountLimits``).
    package var perClient = 600
    /// `--write-limit-window`: the window of both, in seconds.
    package var window: TimeInterval = 600

    package init() {}
}
