package import Foundation
package import Store

/// What the first start puts in an empty book (SPEC.md "Pages").
package enum SeedContent {
    package static let einstein = QuoteDraft(
        text: "Two things are infinite: the universe and human stupidity; and I'm not sure about the universe.",
        author: "Albert Einstein"
    )

    /// The actions that seed a new database, stamped with `date`.
    package static func actions(at date: Date) -> [AppAction] {
        [.addQuote(einstein, by: nil, at: date)]
    }
}
