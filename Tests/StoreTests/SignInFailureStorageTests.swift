import Foundation
import Store
import StoreBackend
import TestSupport
import Testing

/// Attempts counted several at once (a heavy write), alike in memory and in PostgreSQL: all or
/// none, refused with the attempt whose leaving makes room for all of them, given back by count.
@Suite struct SignInFailureStorageTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test(arguments: AccountBackend.configured)
    func severalAttemptsCountAllOrNoneAndComeBackByCount(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().signInFailures
            func reserve(_ count: Int, at seconds: TimeInterval, limit: Int = 5) async throws -> AttemptReservation {
                let date = start.addingTimeInterval(seconds)
                return try await storage.reserveAttempts(
                    count, in: "writes", for: "k", at: date, forgettingBefore: date.addingTimeInterval(-600), limit: limit)
            }
            #expect(try await reserve(1, at: 0) == .counted(1))
            #expect(try await reserve(1, at: 100) == .counted(2))
            #expect(try await reserve(2, at: 200) == .counted(4))
            // 4 held, 3 wanted, 5 allowed: two must leave, the second oldest last (made at 100).
            #expect(try await reserve(3, at: 300) == .full(oldest: start.addingTimeInterval(100)))
            #expect(try await reserve(1, at: 300) == .counted(5), "the refused three took nothing")
            #expect(try await reserve(1, at: 300) == .full(oldest: start))
            // Back by count: two of the three made at 200 and 300 alike.
            try await storage.releaseAttempts(2, in: "writes", for: "k", at: start.addingTimeInterval(200))
            #expect(try await reserve(2, at: 400) == .counted(5))
            try await storage.releaseAttempts(9, in: "writes", for: "k", at: start.addingTimeInterval(400))
            // Three held (0, 100, 300): only the two made at 400 came back, so three more need one to leave.
            #expect(try await reserve(3, at: 400) == .full(oldest: start))
            #expect(try await reserve(2, at: 400) == .counted(5))
            // More than the limit at once counts as the limit, once the window has room for it.
            #expect(try await reserve(9, at: 1_100, limit: 5) == .counted(5))
            #expect(try await reserve(1, at: 1_100) == .full(oldest: start.addingTimeInterval(1_100)))
        }
    }
}
