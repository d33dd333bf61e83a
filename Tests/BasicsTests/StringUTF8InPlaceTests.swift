import Basics
import Foundation
import Testing

@Suite struct StringUTF8InPlaceTests {
    struct Stop: Error {}

    /// Small (inline), large (on the heap), non-ASCII, empty, and a string bridged from
    /// Foundation (which may not be contiguous UTF-8 on every platform): each gives exactly its
    /// UTF-8 bytes.
    @Test func givesEveryStringsUTF8Bytes() {
        let strings = [
            "", "a=b", "quotebook_session=" + String(repeating: "x", count: 43), "Zoë – “quoted” 🦊",
            NSString(string: "bridged text that is long enough for the heap").description,
        ]
        for string in strings {
            #expect(string.withUTF8InPlace { Array($0) } == Array(string.utf8), "\(string)")
        }
    }

    /// The bytes are the string's own storage, not a copy, when it has contiguous UTF-8.
    @Test func readsANativeStringWhereItIs() {
        let string = String(repeating: "long enough to live on the heap ", count: 4)
        let inPlace = string.withUTF8InPlace { $0.baseAddress }
        let stored = string.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(inPlace != nil && inPlace == stored ?? nil)
    }

    @Test func passesTheBodysErrorOn() {
        #expect(throws: Stop.self) { try "text".withUTF8InPlace { _ in throw Stop() } }
    }
}
