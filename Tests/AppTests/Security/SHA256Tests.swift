import App
import Basics
import HTTPServer
import Testing

@Suite struct SHA256Tests {
    private func digest(_ text: String) -> String {
        Hex.encode(SHA256.hash(Array(text.utf8)))
    }

    @Test func hashesTheEmptyMessage() {
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hashesTheOneBlockVector() {
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hashesThe448BitVector() {
        #expect(
            digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
    }

    @Test func hashesThe896BitVector() {
        let message = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        #expect(digest(message) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func hashesOneMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Digests of the bytes 0, 1, 2, … n-1 from `/usr/bin/sha256sum`, around the lengths where
    /// padding moves into a second block.
    @Test(arguments: [
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
    ])
    func matchesSha256sumAtBlockBoundaries(length: Int, expected: String) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        #expect(Hex.encode(SHA256.hash(message)) == expected)
    }

    @Test func hashesNonContiguousCollectionsLikeArrays() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let lazyMessage = (0..<200).lazy.map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(SHA256.hash(lazyMessage) == SHA256.hash(message))
        #expect(SHA256.hash(message[10..<150]) == SHA256.hash(Array(message[10..<150])))
    }

    @Test func producesThirtyTwoBytes() {
        #expect(SHA256.hash([UInt8]()).count == 32)
        #expect(SHA256.hash([UInt8](repeating: 1, count: 1000)).count == 32)
    }
}
