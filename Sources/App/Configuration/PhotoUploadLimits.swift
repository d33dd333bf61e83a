package import Foundation

/// How much of photo processing one person and one client address may have (SPEC.md "Hostile
/// clients": one person or address uploading many large photos at once leaves others' uploads
/// working), as options with defaults a person using the app never meets.
package struct PhotoUploadLimits: Sendable, Equatable {
    /// `--photo-jobs-per-person`: photos one account may have queued or being processed at once;
    /// one more is refused at once (the edit page, 503 with `Retry-After`).
    package var jobsPerPerson = 1
    /// `--photo-jobs-per-client`: the same for one client address (IPv6 by its /64), so that many
    /// accounts behind one address still leave the pool to others.
    package var jobsPerClient = 2
    /// `--photo-uploads-per-account`: photos one account may send for processing per ``window``;
    /// past it, the edit page with 429 and `Retry-After`.
    package var uploadsPerAccount = 20
    /// The window of ``uploadsPerAccount``: an hour.
    package var window: TimeInterval = 3_600

    package init() {}
}
