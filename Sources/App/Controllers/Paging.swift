/// One page of a list cut into pages of a fixed size: which page (from 1), of how many, and the
/// positions of the items it holds. The one place a list's pages are counted and cut (the book,
/// a search, a history, a profile's quotes, the moderators' lists).
package struct Paging: Sendable, Equatable {
    package let page: Int
    package let pageCount: Int
    /// The positions in the whole list of the items on this page.
    package let items: Range<Int>

    /// Page `page` of `count` items, `size` a page; nil below the first page or past the last
    /// (page 1 of an empty list exists).
    package init?(page: Int, of count: Int, size: Int) {
        let pageCount = Self.pageCount(of: count, size: size)
        guard page >= 1, page <= pageCount else { return nil }
        self.page = page
        self.pageCount = pageCount
        let start = (page - 1) * size
        items = start..<min(count, start + size)
    }

    /// Pages of `size` needed for `count` items; an empty list is still one page.
    package static func pageCount(of count: Int, size: Int) -> Int {
        max(1, (count + size - 1) / size)
    }

    /// Where the page's first item stands in the whole list, from 1.
    package var firstNumber: Int { items.lowerBound + 1 }
}
