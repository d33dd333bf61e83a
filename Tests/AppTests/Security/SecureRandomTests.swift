import App
import Testing

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 32, 256, 257, 1000])
    func returnsTheRequestedCount(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func twoCallsDiffer() {
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test func fillsLongRequestsPastTheFirstChunk() {
        // 4 KiB of zeros from a working source has probability 2^-32768; a bug that leaves
        // later chunks unwritten would not pass.
        let bytes = SecureRandom.bytes(4096)
        #expect(bytes[3840...].contains { $0 != 0 })
    }
}
