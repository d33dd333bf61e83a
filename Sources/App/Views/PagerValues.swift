import Templates

/// What the `pager` partial reads, and a numbered list's `start`, for one page of a list: the
/// names every paged page but the book's list uses.
enum PagerValues {
    /// `isPaged`, `pageNumber`, `pageCount`, `previousURL` and `nextURL` (each page's address
    /// from `address`), and `start` past the first page, so the list goes on counting.
    static func of(page: Int, pageCount: Int, firstNumber: Int, address: (Int) -> String) -> [String: TemplateValue] {
        [
            "isPaged": .bool(pageCount > 1), "pageNumber": .int(page), "pageCount": .int(pageCount),
            "previousURL": page > 1 ? .string(address(page - 1)) : .null,
            "nextURL": page < pageCount ? .string(address(page + 1)) : .null,
            "start": page > 1 ? .string(String(firstNumber)) : .null,
        ]
    }
}
