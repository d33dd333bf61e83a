import App
import Foundation
import Store
import TestSupport
import Testing

/// The keeper remembers which id a live session's token hashes to, and nothing else.
@Suite struct SessionTokenIDTests {
    let clock = TestClock()

    @Test func onlyTokensOfLiveSessionsAreRemembered() async throws {
        let storage = CountingSessionStorage()
        let keeper = SessionKeeper(storage: storage)
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        #expect(keeper.rememberedTokenCount == 1)
        // Well-formed tokens nobody was given: looked up, never remembered.
        for byte in UInt8(1)...5 {
            let stranger = Base64URL.encode([UInt8](repeating: byte, count: 32))
            #expect(try await keeper.session(forToken: stranger, now: clock.now) == nil)
        }
        #expect(keeper.rememberedTokenCount == 1)
        // A keeper that did not start it remembers it once storage has found it.
        let restarted = SessionKeeper(storage: storage)
        #expect(restarted.rememberedTokenCount == 0)
        #expect(try await restarted.session(forToken: issued.token, now: clock.now) == issued.record)
        #expect(restarted.rememberedTokenCount == 1)
    }

    @Test func aRememberedTokenOfAnEndedSessionFindsNothing() async throws {
        let storage = CountingSessionStorage()
        let keeper = SessionKeeper(storage: storage)
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .live(issued.record))
        try await keeper.end(issued.record)
        #expect(keeper.rememberedTokenCount == 1, "the id is still the token's hash")
        #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
        #expect(try await keeper.session(forToken: issued.token, now: clock.now) == nil)
    }

    @Test func aTokenDifferingInOneCharacterIsAnotherToken() async throws {
        let keeper = SessionKeeper(storage: CountingSessionStorage())
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        var characters = Array(issued.token)
        characters[42] = characters[42] == "A" ? "Q" : "A"  // keeps the unused bits zero
        let other = String(characters)
        #expect(Base64URL.decode(other)?.count == 32)
        #expect(keeper.cachedSession(forToken: other, now: clock.now) == .needsStorage)
        #expect(try await keeper.session(forToken: other, now: clock.now) == nil)
        #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .live(issued.record))
    }

    @Test func theRememberedTokensAreBoundedAndStartOverWhenFull() async throws {
        let keeper = SessionKeeper(storage: CountingSessionStorage(), cacheLimit: 3)
        var issued: [IssuedSession] = []
        for user in 1...4 { issued.append(try await keeper.startWithoutPassword(for: UserID(user), now: clock.now)) }
        #expect(keeper.rememberedTokenCount == 1, "the fourth started it over")
        for session in issued {
            #expect(try await keeper.session(forToken: session.token, now: clock.now)?.id == session.record.id)
        }
    }
}
