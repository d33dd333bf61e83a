import Images
import Testing

@Suite struct PhotoLimitsTests {
    @Test(arguments: [
        (10_000, 5_000, true), (5_000, 10_000, true), (7_071, 7_071, true),
        (10_001, 10, false), (10, 10_001, false), (7_072, 7_071, false), (60_000, 60_000, false),
        (0, 100, false), (100, 0, false), (1, 1, true),
    ])
    func admitsUpToFiftyMegapixelsAndTenThousandPixelsASide(_ width: Int, _ height: Int, _ admitted: Bool) {
        #expect(PhotoLimits.standard.admits(width: width, height: height) == admitted)
    }
}
