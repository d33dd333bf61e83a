import Foundation
import Images
import TestSupport
import Testing

/// A HEIF is processed only when its primary image is HEVC (issue 29): its `meta` box is read
/// before libheif sees the file, so an AV1 image labelled `heic` never reaches an AV1 decoder.
@Suite struct HEIFPrimaryImageTests {
    /// A box: 32-bit size, type, body.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// `ftyp heic` and a `meta` whose primary item 1 is of `primary`'s type, derived (`dimg`)
    /// from the items of `tiles`' types when given (ids 2 onwards), with the items of `auxiliary`'s
    /// types after them as its auxiliary images (`auxl`), and `extra` bytes at the meta box's end.
    static func heif(primary: String, tiles: [String] = [], auxiliary: [String] = [], extra: [UInt8] = []) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let types = [primary] + tiles + auxiliary
        let entries = types.enumerated().flatMap { index, type in
            box("infe", [2, 0, 0, 0] + u16(index + 1) + u16(0) + Array(type.utf8) + [0])
        }
        var children = box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        children += box("pitm", [0, 0, 0, 0] + u16(1))
        children += box("iinf", [0, 0, 0, 0] + u16(types.count) + entries)
        var references: [UInt8] = []
        if !tiles.isEmpty {
            let to = (2...(tiles.count + 1)).flatMap { u16($0) }
            references += box("dimg", u16(1) + u16(tiles.count) + to)
        }
        for index in auxiliary.indices {
            references += box("auxl", u16(2 + tiles.count + index) + u16(1) + u16(1))
        }
        if !references.isEmpty { children += box("iref", [0, 0, 0, 0] + references) }
        return ftyp + box("meta", [0, 0, 0, 0] + children + extra) + box("mdat", [1, 2, 3])
    }

    @Test func theCommittedHEICsPrimaryImageIsHEVC() throws {
        let bytes = try PhotoFixtures.shared().bytes("photo.heic")
        #expect(PhotoFormat.detect(bytes) == .heif)
        #expect(HEIFPrimaryImage.isHEVC(bytes))
    }

    @Test func anAV1PrimaryImageLabelledHEICIsNotHEVC() throws {
        var bytes = try PhotoFixtures.shared().bytes("photo.heic")
        let at = try #require(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("hvc1".utf8) })
        bytes.replaceSubrange(at..<(at + 4), with: Array("av01".utf8))
        #expect(PhotoFormat.detect(bytes) == .heif, "its brand still says heic")
        #expect(!HEIFPrimaryImage.isHEVC(bytes))
    }

    @Test func gridsAreHEVCOnlyWhenEveryTileIs() {
        #expect(HEIFPrimaryImage.isHEVC(Self.heif(primary: "hvc1")))
        #expect(HEIFPrimaryImage.isHEVC(Self.heif(primary: "grid", tiles: ["hvc1", "hvc1"])))
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "grid", tiles: ["hvc1", "av01"])))
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "grid")), "a grid of nothing")
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "av01")))
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "jpeg")))
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "iden", tiles: ["hvc1"])), "another derivation")
    }

    @Test func itsAuxiliaryImagesMustBeHEVCToo() {
        #expect(HEIFPrimaryImage.isHEVC(Self.heif(primary: "hvc1", auxiliary: ["hvc1"])), "an HEVC alpha or depth map")
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "hvc1", auxiliary: ["av01"])), "an AV1 alpha decoded with it")
        #expect(HEIFPrimaryImage.isHEVC(Self.heif(primary: "grid", tiles: ["hvc1"], auxiliary: ["hvc1"])))
    }

    /// Said twice, libheif and this check could read different ones: refused.
    @Test func anythingSaidTwiceIsNotHEVC() {
        let secondPrimary = Self.box("pitm", [0, 0, 0, 0] + Self.u16(2))
        #expect(!HEIFPrimaryImage.isHEVC(Self.heif(primary: "hvc1", tiles: ["av01"], extra: secondPrimary)))
        let av1First = Self.box("infe", [2, 0, 0, 0] + Self.u16(1) + Self.u16(0) + Array("av01".utf8) + [0])
        let twice = Self.box("iinf", [0, 0, 0, 0] + Self.u16(2) + av1First
            + Self.box("infe", [2, 0, 0, 0] + Self.u16(1) + Self.u16(0) + Array("hvc1".utf8) + [0]))
        var bytes = Self.heif(primary: "hvc1")
        #expect(HEIFPrimaryImage.isHEVC(bytes))
        bytes = Self.heif(primary: "hvc1", extra: twice)
        #expect(!HEIFPrimaryImage.isHEVC(bytes), "a second iinf")
        // One iinf with two entries for item 1, the AV1 one first (libheif keeps the first).
        let ftyp = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let meta = Self.box("meta", [0, 0, 0, 0] + Self.box("pitm", [0, 0, 0, 0] + Self.u16(1)) + twice)
        #expect(!HEIFPrimaryImage.isHEVC(ftyp + meta), "two entries for the primary item")
        let tiles = Self.box("dimg", Self.u16(1) + Self.u16(1) + Self.u16(2))
        let twoDerivations = Self.box("iref", [0, 0, 0, 0] + tiles + tiles)
        let grid = Self.box("iinf", [0, 0, 0, 0] + Self.u16(2)
            + Self.box("infe", [2, 0, 0, 0] + Self.u16(1) + Self.u16(0) + Array("grid".utf8) + [0])
            + Self.box("infe", [2, 0, 0, 0] + Self.u16(2) + Self.u16(0) + Array("hvc1".utf8) + [0]))
        let pitm = Self.box("pitm", [0, 0, 0, 0] + Self.u16(1))
        #expect(HEIFPrimaryImage.isHEVC(ftyp + Self.box("meta", [0, 0, 0, 0] + pitm + grid + Self.box("iref", [0, 0, 0, 0] + tiles))))
        #expect(!HEIFPrimaryImage.isHEVC(ftyp + Self.box("meta", [0, 0, 0, 0] + pitm + grid + twoDerivations)), "two dimg of one item")
    }

    @Test func aDamagedOrMissingMetaBoxIsNotHEVC() {
        let whole = Self.heif(primary: "hvc1")
        #expect(!HEIFPrimaryImage.isHEVC([]))
        #expect(!HEIFPrimaryImage.isHEVC(Array(whole.prefix(40))), "meta cut short")
        var oversized = whole
        oversized[24] = 0x7F  // the meta box's size (bytes 24-27, after the 24-byte ftyp) runs past the bytes
        #expect(!HEIFPrimaryImage.isHEVC(oversized))
        for cut in stride(from: 0, to: whole.count, by: 3) {
            _ = HEIFPrimaryImage.isHEVC(Array(whole.prefix(cut)))  // never traps, at any length
        }
    }

    @Test func theProcessorRefusesAnAV1ImageAsUnsupportedBeforeDecoding() throws {
        var bytes = try PhotoFixtures.shared().bytes("photo.heic")
        let at = try #require(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("hvc1".utf8) })
        bytes.replaceSubrange(at..<(at + 4), with: Array("av01".utf8))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("av1-\(UUID().uuidString).heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: PhotoProcessingError.unsupportedFormat) { try PhotoProcessor().process(fileAt: path) }
    }
}
