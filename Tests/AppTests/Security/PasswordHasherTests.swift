import App
import Basics
import Testing

@Suite struct PasswordHasherTests {
    private let pool = BlockingThreadPool(name: "hasher", threadCount: 2, queueLimit: 8)

    @Test func verifiesTheRightPasswordOnly() async throws {
        let hasher = PasswordHasher(pool: pool)
        let hash = try await hasher.hash("s3cret")
        #expect(hash.hasPrefix("$y$"))
        #expect(try await hasher.verify("s3cret", against: hash))
        #expect(try await !hasher.verify("s3cre", against: hash))
    }

    @Test func unknownUserNeverVerifies() async throws {
        let hasher = PasswordHasher(pool: pool)
        #expect(try await !hasher.verify("s3cret", against: nil))
        #expect(try await !hasher.verify("", against: nil))
    }

    @Test func hashingRejectsNUL() async {
        let hasher = PasswordHasher(pool: pool)
        await #expect(throws: PasswordCryptError.passwordContainsNUL) {
            try await hasher.hash("a\u{0}b")
        }
    }

    @Test func refusesWorkWhenThePoolIsShutDown() async {
        let closed = BlockingThreadPool(name: "closed", threadCount: 1, queueLimit: 1)
        let hasher = PasswordHasher(pool: closed)
        closed.shutdown()
        await #expect(throws: BlockingThreadPool.Overloaded.shutDown) {
            try await hasher.verify("x", against: nil)
        }
    }
}
