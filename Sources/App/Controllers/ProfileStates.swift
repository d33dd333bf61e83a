package import Store

/// A person's profile as pages show it.
package struct Profile: Sendable, Equatable {
    package var user: User
    package var favourite: Quote?
    /// The quotes they added, newest first.
    package var addedQuotes: [Quote]
    /// Why and since when the account is suspended; nil when it is not.
    package var suspension: ModerationNote?

    package init(user: User, favourite: Quote?, addedQuotes: [Quote], suspension: ModerationNote? = nil) {
        self.user = user
        self.favourite = favourite
        self.addedQuotes = addedQuotes
        self.suspension = suspension
    }
}

/// What a moderator looking at someone's profile may do there: suspend or lift a suspension,
/// and revert their edits (never to a moderator, nor to themselves); `problem` when the reason
/// they typed could not be kept.
package struct ProfileModeration: Sendable, Equatable {
    package var problem: FieldProblem?

    package init(problem: FieldProblem? = nil) {
        self.problem = problem
    }
}

/// Why a profile change could not be made, as the person should hear it.
package enum ProfileFailure: Sendable, Equatable {
    /// The upload is not a JPEG, PNG, WebP, GIF or HEIC image (judged by its bytes).
    case unsupportedPhoto
    /// The file is larger than ``ProfileController/maximumPhotoBytes``.
    case photoTooLarge(maximumBytes: Int)
    /// The image has more pixels, or a longer side, than the processor decodes (a decompression
    /// bomb among them); refused from its header alone.
    case photoHasTooManyPixels(width: Int, height: Int)
    /// The image could not be decoded: truncated or damaged.
    case photoDamaged
    /// Too many photos are being processed right now, or this person's or address's share of
    /// the processing is in use; try again shortly.
    case photoProcessingBusy
    /// This account has sent ``PhotoUploadLimits/uploadsPerAccount`` photos within the window;
    /// the next may be sent in `retryAfter` seconds.
    case tooManyPhotos(retryAfter: Int)
    /// The form had no file in its `photo` field.
    case noPhotoChosen
}

/// What the profile pages show (seed 003's `ProfileState`).
package enum ProfileState: Sendable, Equatable {
    /// A profile; `isOwn` when the signed-in person is looking at their own; `moderation` when a
    /// moderator looks at someone they may moderate.
    ///
    /// `page` (from 1) of the quotes they added is shown, ``ProfileController/addedPerPage`` a page.
    case presenting(Profile, isOwn: Bool, moderation: ProfileModeration? = nil, page: Int = 1)
    case notFound
    /// A page of their quotes past the last (or below the first): how many pages there are.
    case noSuchPage(Username, pageCount: Int)
    /// The edit forms: the display name as typed and its problem, if any.
    case editing(Profile, displayName: String, problem: FieldProblem?)
    /// A change could not be made; the edit forms again with the reason.
    case failed(Profile, ProfileFailure)
    /// The change is stored; the flow is over.
    case updated(Username)
    case signedOut
}

/// A profile photo's bytes (its 512 px or 96 px version), or none.
package enum ProfilePhotoState: Sendable, Equatable {
    case photo(StoredPhoto)
    case notFound
}

/// What the sessions page shows, or how ending sessions went.
package enum SessionsState: Sendable, Equatable {
    /// Every live session of the person, oldest first; `current` is the id of the one asking.
    case listing([SessionRecord], current: [UInt8])
    /// The sessions asked for ended; the flow is over.
    case ended
    /// No such session of the person's (someone else's, or already ended): nothing ended.
    case notFound
}
