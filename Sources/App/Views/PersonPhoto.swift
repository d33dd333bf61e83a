import Store
import Templates

/// A person's photo as every page shows it (`Templates/photo.mustache`): the 96 px WebP, with a
/// `srcset` naming the 512 px one, both at their versioned addresses (``PhotoVersion``), drawn
/// `size` CSS pixels square (SPEC.md "Photo": pages show the 96 px one with `width`, `height`
/// and a `srcset`). Nil for a person without a photo: each page shows its own stand-in, or nothing.
struct PersonPhoto: Sendable, TemplateValueConvertible {
    let small: String
    let large: String
    /// What the photo says to someone who cannot see it: whose it is, and why it is there.
    let alt: String
    /// Its width and height on the page, in CSS pixels; `sizes` says the same, so the browser
    /// picks the 96 px file unless the screen is dense enough to want the 512 px one.
    let size: Int

    /// The photo on a profile: 96 px.
    static let profileSize = 96
    /// The photo beside a quote its person added: 48 px, the 96 px file on a 2× screen.
    static let besideQuoteSize = 48
    /// The photo before its person's name in a line of text (who added a quote): a line high.
    static let besideNameSize = 28

    init?(of user: User, alt: String, size: Int = profileSize) {
        guard let urls = PhotoVersion.urls(of: user) else { return nil }
        small = urls.small
        large = urls.large
        self.alt = alt
        self.size = size
    }

    /// The photo of who added a quote, beside the quote; nil when they have none. Before their
    /// name (`isNamed`), a line high, its text is empty, as a picture the text next to it already
    /// says (WCAG technique H2); in a list it says who added the quote.
    static func beside(quoteAddedBy adder: User, isNamed: Bool) -> PersonPhoto? {
        isNamed
            ? PersonPhoto(of: adder, alt: "", size: besideNameSize)
            : PersonPhoto(of: adder, alt: "Added by \(adder.displayName)", size: besideQuoteSize)
    }

    var templateValue: TemplateValue {
        .object(["small": .string(small), "large": .string(large), "alt": .string(alt), "size": .int(size)])
    }
}
