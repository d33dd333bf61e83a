package import Foundation

/// Identifies a quote; assigned by the reducer in the order quotes are added, starting at 1.
package struct QuoteID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package let rawValue: Int

    package init(rawValue: Int) { self.rawValue = rawValue }
    package init(_ rawValue: Int) { self.rawValue = rawValue }

    package var description: String { String(rawValue) }

    package static func < (lhs: QuoteID, rhs: QuoteID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A quote as it is now.
package struct Quote: Codable, Sendable, Equatable, Identifiable {
    package var id: QuoteID
    package var text: String
    package var author: String
    /// Starts at 1 and grows by one with every change; a save names the version it started from.
    package var version: Int
    package var addedBy: UserID?
    package var addedAt: Date
    package var updatedBy: UserID?
    package var updatedAt: Date

    package init(
        id: QuoteID, text: String, author: String, version: Int,
        addedBy: UserID?, addedAt: Date, updatedBy: UserID?, updatedAt: Date
    ) {
        self.id = id
        self.text = text
        self.author = author
        self.version = version
        self.addedBy = addedBy
        self.addedAt = addedAt
        self.updatedBy = updatedBy
        self.updatedAt = updatedAt
    }
}

/// One entry of a quote's history: what it said after a change, who made it and when.
package struct QuoteVersion: Codable, Sendable, Equatable {
    package var version: Int
    package var text: String
    package var author: String
    package var editedBy: UserID?
    package var editedAt: Date
}
