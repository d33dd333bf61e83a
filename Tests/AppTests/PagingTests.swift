import App
import Testing

/// Every paged list is cut the same way: pages of `size` from 1, the last one short, an empty list
/// one empty page, and no page below 1 or past the last.
@Suite struct PagingTests {
    @Test func pagesCoverTheListInOrder() throws {
        let first = try #require(Paging(page: 1, of: 45, size: 20))
        let last = try #require(Paging(page: 3, of: 45, size: 20))
        #expect(first.items == 0..<20 && first.pageCount == 3 && first.firstNumber == 1)
        #expect(Paging(page: 2, of: 45, size: 20)?.items == 20..<40)
        #expect(last.items == 40..<45 && last.firstNumber == 41)
        #expect(Paging(page: 1, of: 0, size: 20)?.items == 0..<0 && Paging.pageCount(of: 0, size: 20) == 1)
        #expect(Paging.pageCount(of: 40, size: 20) == 2 && Paging.pageCount(of: 41, size: 20) == 3)
    }

    @Test(arguments: [0, -1, 4, Int.max, Int.min]) func noPageOutsideTheList(page: Int) {
        #expect(Paging(page: page, of: 45, size: 20) == nil)
    }
}
