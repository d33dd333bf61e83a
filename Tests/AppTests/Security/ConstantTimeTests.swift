import App
import Testing

@Suite struct ConstantTimeTests {
    @Test func equalBytesAreEqual() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test(arguments: [0, 15, 31])
    func aDifferenceAnywhereIsUnequal(position: Int) {
        let a = [UInt8](repeating: 0x5a, count: 32)
        var b = a
        b[position] ^= 0x01
        #expect(!ConstantTime.equals(a, b))
    }

    @Test func differentLengthsAreUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!ConstantTime.equals([UInt8](), [0] as [UInt8]))
    }

    @Test func comparesAcrossCollectionTypes() {
        let text = "$y$j9T$salt$hash"
        #expect(ConstantTime.equals(text.utf8, Array(text.utf8)))
        #expect(ConstantTime.equals(Array(text.utf8)[0...2], "$y$".utf8))
    }
}
