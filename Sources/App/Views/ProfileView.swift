package import HTTPServer
package import Store
import Templates

/// Renders ``ProfileState``: a profile page, or the edit forms (200; 422 for a wrong display
/// name or no file; 415 for a file that is not an image we accept; 413 for one too large).
package enum ProfileView {
    static let fieldNames = FormFieldNames.of(ProfileField.self)

    /// A person as pages show them: name, photo or a placeholder with their initials.
    struct PersonContext: Sendable, TemplateValueConvertible {
        let username: String
        let displayName: String
        let url: String
        /// Their photo; nil without one (the page shows the initials instead).
        let photo: PersonPhoto?
        let initials: String
        /// One of a few placeholder colours, chosen from the username so it stays the same.
        let hue: Int

        /// `photoAlt` is what the photo says to who cannot see it; "Photo of" their name unless given.
        init(_ user: User, photoAlt: String? = nil) {
            username = user.username.rawValue
            displayName = user.displayName
            url = ProfilesRoute.show(user.username).path
            photo = PersonPhoto(of: user, alt: photoAlt ?? "Photo of \(user.displayName)")
            initials = Self.initials(of: user.displayName)
            hue = Int(user.username.rawValue.utf8.reduce(0) { ($0 &* 31 &+ UInt32($1)) % 6 })
        }

        /// The first letter of the first two words, upper-cased ("Ada Lovelace" → "AL").
        static func initials(of name: String) -> String {
            let words = name.split(whereSeparator: { $0.isWhitespace }).prefix(2)
            let letters = words.compactMap(\.first).map { String($0).uppercased() }.joined()
            return letters.isEmpty ? "?" : letters
        }

        var templateValue: TemplateValue {
            .object([
                "username": .string(username), "displayName": .string(displayName), "url": .string(url),
                "photo": photo?.templateValue ?? .null, "initials": .string(initials), "hue": .int(hue),
            ])
        }
    }

    struct Context: Sendable, TemplateValueConvertible {
        let person: PersonContext
        let favourite: QuoteCard?
        /// The page's share of the quotes they added.
        let added: [QuoteCard]
        /// The links to their other pages and where this one's numbering starts (``PagerValues``).
        var pager: [String: TemplateValue] = [:]
        let isOwn: Bool
        let editURL: String
        /// Whether the account is suspended, which everyone is told.
        let isSuspended: Bool
        /// The moderators' forms, for a moderator who may act on this person.
        var moderation: ModerationForms? = nil

        var templateValue: TemplateValue {
            let values: [String: TemplateValue] = [
                "person": person.templateValue, "favourite": favourite?.templateValue ?? .null,
                "added": .list(added.map(\.templateValue)), "hasAdded": .bool(!added.isEmpty), "isOwn": .bool(isOwn),
                "editURL": .string(editURL), "isSuspended": .bool(isSuspended),
                "moderation": moderation?.templateValue ?? .null,
            ]
            return .object(values.merging(pager) { $1 })
        }
    }

    /// Suspend (or lift a suspension) and revert, with the suspension's reason and the problem
    /// of a reason that could not be kept.
    struct ModerationForms: Sendable, TemplateValueConvertible {
        let username: Username
        let suspension: ModerationNote?
        let problem: FieldProblem?

        var templateValue: TemplateValue {
            let suspendAction = suspension == nil ? ModerationRoute.suspend(username) : ModerationRoute.unsuspend(username)
            return .object([
                "suspendAction": .string(suspendAction.path), "isSuspended": .bool(suspension != nil),
                "suspendedReason": suspension.map { .string($0.reason) } ?? .null,
                "suspendedAt": suspension.map { .string(DateText.readable($0.at)) } ?? .null,
                "suspendedAtISO": suspension.map { .string(DateText.machine($0.at)) } ?? .null,
                "revertAction": .string(ModerationRoute.revert(username).path),
                "message": problem.map { .string(QuoteEditView.message(for: $0, field: "the reason")) } ?? .null,
                "reasonField": .string(ModerationField.reason.rawValue), "maximumReason": .int(ModerationState.maximumReasonLength),
            ])
        }
    }

    struct EditContext: Sendable, TemplateValueConvertible {
        let person: PersonContext
        let displayName: String
        let nameError: String?
        let photoError: String?
        /// The person's addresses, when the page was asked for (not after a failed change).
        var email: EmailAddresses? = nil

        var templateValue: TemplateValue {
            var values: [String: TemplateValue] = [
                "person": person.templateValue, "displayName": .string(displayName),
                "nameError": nameError.map(TemplateValue.string) ?? .null, "photoError": photoError.map(TemplateValue.string) ?? .null,
                "nameAction": .string(ProfilesRoute.updateName.path), "photoAction": .string(ProfilesRoute.updatePhoto.path),
                "removePhotoAction": .string(ProfilesRoute.removePhoto.path), "profileURL": .string(person.url),
                "passwordURL": .string(ProfilesRoute.passwordForm.path), "sessionsURL": .string(ProfilesRoute.sessions.path),
                "deleteURL": .string(ProfilesRoute.deletionForm.path),
                "exportURL": .string(ProfilesRoute.export.path),
                "maximumPhotoMiB": .int(ProfileController.maximumPhotoBytes / 1_048_576), "fields": ProfileView.fieldNames,
                "emailURL": .string(ProfilesRoute.emailForm.path), "emailAction": .string(ProfilesRoute.changeEmail.path),
                "emailFields": EmailView.fieldNames,
            ]
            values["email"] = email.map { TemplateValue.object(EmailView.addressValues($0)) } ?? .null
            return .object(values)
        }
    }

    /// Everything the profile page shows but the visitor's own values (``Page/sharedKey``).
    static func sharedKey(_ profile: Profile, isOwn: Bool, paging: Paging) -> PageContentKey {
        var key = PageContentKey(capacity: 11 + 4 * paging.items.count, textBytes: 128)
        key.append(isOwn ? 1 : 0)
        key.append(profile.user)
        key.append(profile.favourite)
        key.append(paging.page)
        key.append(paging.pageCount)
        key.append(profile.addedQuotes[paging.items])
        key.append(profile.suspension == nil ? 0 : 1)
        return key
    }

    /// `email`: the person's addresses, shown on the edit page with the form to change them.
    package static func page(for state: ProfileState, email: EmailAddresses? = nil) -> Page {
        switch state {
        case let .presenting(profile, isOwn, moderation, page):
            // The controller presents only a page that exists.
            guard let paging = Paging(page: page, of: profile.addedQuotes.count, size: ProfileController.addedPerPage) else {
                return ErrorView.page(for: .notFound)
            }
            let name = profile.user.username
            // A moderator's forms are rendered whole (no shared key): rare, and never a member's page.
            return Page(
                template: .profile, status: moderation?.problem == nil ? .ok : .unprocessableContent,
                context: Context(
                    person: PersonContext(profile.user), favourite: profile.favourite.map { QuoteCard($0) },
                    added: profile.addedQuotes[paging.items].map { QuoteCard($0) },
                    pager: PagerValues.of(page: paging.page, pageCount: paging.pageCount, firstNumber: paging.firstNumber) {
                        ProfilesRoute.show(name, page: $0).path
                    },
                    isOwn: isOwn, editURL: ProfilesRoute.edit.path, isSuspended: profile.suspension != nil,
                    moderation: moderation.map {
                        ModerationForms(username: profile.user.username, suspension: profile.suspension, problem: $0.problem)
                    }),
                sharedKey: moderation == nil ? sharedKey(profile, isOwn: isOwn, paging: paging) : nil)
        case let .noSuchPage(username, pageCount):
            let pages = "\(pageCount) page\(pageCount == 1 ? "" : "s")"
            return ErrorView.page(
                for: .notFoundMessage(
                    "There is no such page of \(username)’s quotes. There \(pageCount == 1 ? "is" : "are") \(pages); the first is at \(ProfilesRoute.show(username).path)."))
        case let .editing(profile, displayName, problem):
            return Page(
                template: .profileEdit, status: problem == nil ? .ok : .unprocessableContent,
                context: EditContext(
                    person: PersonContext(profile.user, photoAlt: "Your photo"), displayName: displayName,
                    nameError: problem.map { QuoteEditView.message(for: $0, field: "the name others see") }, photoError: nil,
                    email: email))
        case let .failed(profile, failure):
            return Page(
                template: .profileEdit, status: status(for: failure),
                headers: retryAfter(failure).map { ["Retry-After": String($0)] } ?? [:],
                context: EditContext(
                    person: PersonContext(profile.user, photoAlt: "Your photo"), displayName: profile.user.displayName, nameError: nil,
                    photoError: message(for: failure)))
        case .notFound, .updated, .signedOut:
            // `updated` and `signedOut` are reported to the root, never rendered.
            return ErrorView.page(for: .notFound)
        }
    }

    package static func status(for failure: ProfileFailure) -> HTTPStatus {
        switch failure {
        case .unsupportedPhoto: .unsupportedMediaType
        case .photoTooLarge: .contentTooLarge
        case .photoHasTooManyPixels, .photoDamaged, .noPhotoChosen: .unprocessableContent
        case .photoProcessingBusy: .serviceUnavailable
        case .tooManyPhotos: .tooManyRequests
        }
    }

    /// The seconds a refusal asks the browser to wait (`Retry-After`), if it is one.
    static func retryAfter(_ failure: ProfileFailure) -> Int? {
        switch failure {
        case .photoProcessingBusy: 5
        case .tooManyPhotos(let seconds): seconds
        default: nil
        }
    }

    package static func message(for failure: ProfileFailure) -> String {
        switch failure {
        case .unsupportedPhoto: "That file is not a JPEG, PNG, WebP, GIF or HEIC image. Please choose a photo in one of those formats."
        case .photoTooLarge(let maximum): "That photo is larger than \(maximum / 1_048_576) MiB. Please choose a smaller one."
        case let .photoHasTooManyPixels(width, height):
            "That image is too large to process (\(width) × \(height) pixels; at most 50 million pixels and 10,000 on a side). Please choose a smaller one."
        case .photoDamaged: "That image could not be read: it seems damaged or cut short. Please choose another."
        case .photoProcessingBusy: "Quotebook is busy with other photos right now. Please try again in a few seconds."
        case .tooManyPhotos(let seconds):
            "You have sent many photos this hour. Please try again in \(max(1, (seconds + 59) / 60)) minutes."
        case .noPhotoChosen: "Please choose a photo to upload."
        }
    }
}
