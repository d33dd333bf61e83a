import App
import Foundation
import HTTPServer
import Logging
import Store
import Templates
import TestSupport
import Testing

/// Keyed pages are rendered once per key with holes for the visitor's values
/// (``PageSkeletons``): every visitor gets exactly the bytes a whole render gives them, and
/// anything the page shows changing gives a new key.
@Suite struct PageSkeletonTests {
    let at = Date(timeIntervalSince1970: 1_700_000_000)
    let renderer: PageRenderer

    init() throws {
        renderer = PageRenderer(
            source: .compiled(try TemplateLibrary(directory: RepositoryPaths.templates)), showsErrorDetails: false, logger: .discarding())
    }

    func user(_ id: Int, _ name: String, displayName: String, photo: PhotoReference? = nil) -> User {
        User(
            id: UserID(id), username: Username(name)!, displayName: displayName,
            photo: photo, joinedAt: at)
    }

    /// A photo whose two hashes start with `large` and `small`.
    func photo(_ large: String, _ small: String) -> PhotoReference {
        PhotoReference(
            hash: large + String(repeating: "0", count: 64 - large.count), mediaType: "image/webp",
            small: small + String(repeating: "0", count: 64 - small.count))
    }

    /// `quotes`, every other one added by someone with a photo (whose name needs escaping).
    func listed(_ quotes: [Quote]) -> [ListedQuote] {
        let pictured = user(4, "dee", displayName: "Dee <i>", photo: photo("aa11", "bb22"))
        return quotes.enumerated().map { ListedQuote($1, addedBy: $0.isMultiple(of: 2) ? pictured : nil) }
    }

    func quote(_ id: Int, version: Int = 1, text: String? = nil, addedBy: Int? = 1) -> Quote {
        Quote(
            id: QuoteID(id), text: text ?? "Quote <\(id)> & “more”", author: "Author \(id)", version: version,
            addedBy: addedBy.map { UserID($0) }, addedAt: at, updatedBy: nil, updatedAt: at.addingTimeInterval(Double(version)))
    }

    /// Signed out, with a pre-session token, and two signed-in people (one with a name to escape).
    var visitors: [Visitor] {
        [
            Visitor(),
            Visitor(csrfToken: "pre-session-token"),
            Visitor(user: user(1, "ada", displayName: "Ada"), csrfToken: "token-of-ada"),
            Visitor(user: user(2, "bob", displayName: "Bob <b>\"&'"), csrfToken: "token-of-bob_&"),
        ]
    }

    var pages: [Page] {
        let ada = user(1, "ada", displayName: "Ada")
        let quotes = (1...25).map { quote($0) }
        let listed = listed(quotes)
        return [
            HomeView.page(for: .showing(favourite: listed[3], recent: ListedQuotes(listed.prefix(10)))),
            HomeView.page(for: .showing(favourite: listed[4], recent: ListedQuotes(listed.prefix(10)))),
            HomeView.page(for: .showing(favourite: nil, recent: [])),
            QuoteListView.page(for: .showing(ListedQuotes(listed.prefix(20)), page: 1, pageCount: 2, search: nil)),
            QuoteListView.page(
                for: .showing(ListedQuotes(listed.prefix(3)), page: 2, pageCount: 3, search: QuoteSearch(typed: "a <b>", matchCount: 41, isTruncated: true))),
            QuoteView.page(for: .showing(quotes[0], addedBy: ada, isFavourite: false, canDelete: true)),
            QuoteView.page(for: .showing(quotes[0], addedBy: listed[0].adder, isFavourite: false, canDelete: true)),
            QuoteView.page(for: .showing(quotes[0], addedBy: nil, isFavourite: true, canDelete: false)),
            ProfileView.page(for: .presenting(Profile(user: ada, favourite: quotes[2], addedQuotes: quotes), isOwn: true)),
            ProfileView.page(for: .presenting(Profile(user: ada, favourite: nil, addedQuotes: []), isOwn: false)),
            QuoteHistoryView.page(
                for: .showing(
                    quote(1, version: 3), versions: HistoryVersions(
                        oldestFirst: (1...3).map { QuoteVersion(version: $0, text: "v\($0)", author: "A", editedBy: UserID(1), editedAt: at) },
                        users: [ada.id: ada]),
                    page: 1, pageCount: 1, canRestore: true)),
        ]
    }

    @Test func everyVisitorGetsTheBytesOfAWholeRender() throws {
        for page in pages {
            #expect(page.sharedKey != nil, "\(page.template)")
            var whole = page
            whole.sharedKey = nil
            for visitor in visitors {
                // Twice: the first makes the skeleton, the second copies it.
                for _ in 0..<2 {
                    let spliced = renderer.response(for: page, visitor: visitor)
                    let rendered = renderer.response(for: whole, visitor: visitor)
                    #expect(spliced.body == rendered.body, "\(page.template) for \(visitor.user?.displayName ?? "nobody")")
                    #expect(spliced.status == rendered.status)
                    #expect(spliced.headers == rendered.headers)
                }
            }
        }
    }

    @Test func visitorsOfOneShapeShareOneSkeletonAndSeeTheirOwnValues() throws {
        let page = QuoteView.page(for: .showing(quote(7), addedBy: nil, isFavourite: false, canDelete: false))
        let ada = String(decoding: renderer.response(for: page, visitor: visitors[2]).body, as: UTF8.self)
        let bob = String(decoding: renderer.response(for: page, visitor: visitors[3]).body, as: UTF8.self)
        #expect(renderer.skeletonCount == 1)
        #expect(ada.contains("token-of-ada") && ada.contains(">Ada</a>") && !ada.contains("token-of-bob"))
        #expect(bob.contains("token-of-bob_&amp;") && bob.contains("Bob &lt;b&gt;&quot;&amp;&#39;") && !bob.contains("Ada"))
        #expect(!ada.contains("qbhole") && !bob.contains("qbhole"))
        // Signed out is another shape.
        _ = renderer.response(for: page, visitor: Visitor())
        #expect(renderer.skeletonCount == 2)
    }

    /// A skeleton is one run of bytes with the places of its holes: holes at the very start, side
    /// by side, and at the very end splice as a whole render gives them, escaped, every time.
    @Test func holesAtTheEdgesAndSideBySideSpliceLikeAWholeRender() throws {
        var sources = Dictionary(uniqueKeysWithValues: PageTemplate.allCases.map { ($0.rawValue, "") })
        sources[PageTemplate.quote.rawValue] =
            "{{viewer.displayName}}{{csrf.token}}{{viewer.profileURL}}|between|{{csrf.token}}{{csrf.token}}{{viewer.displayName}}"
        let renderer = PageRenderer(source: .compiled(try TemplateLibrary(sources: sources)), showsErrorDetails: false, logger: .discarding())
        let page = QuoteView.page(for: .showing(quote(7), addedBy: nil, isFavourite: false, canDelete: false))
        var whole = page
        whole.sharedKey = nil
        for visitor in visitors {
            for _ in 0..<2 {
                let spliced = String(decoding: renderer.response(for: page, visitor: visitor).body, as: UTF8.self)
                #expect(spliced == String(decoding: renderer.response(for: whole, visitor: visitor).body, as: UTF8.self))
                #expect(!spliced.contains("qbhole"))
            }
        }
        let bob = String(decoding: renderer.response(for: page, visitor: visitors[3]).body, as: UTF8.self)
        #expect(bob.hasPrefix("Bob &lt;b&gt;&quot;&amp;&#39;token-of-bob_&amp;/users/bob|between|"))
        #expect(bob.hasSuffix("|between|token-of-bob_&amp;token-of-bob_&amp;Bob &lt;b&gt;&quot;&amp;&#39;"))
        #expect(renderer.skeletonCount == 3, "signed out, pre-session and signed in are three shapes")
    }

    /// The viewer's profile link is kept per person (by id) with the username it was made
    /// from: every page links the viewer's own profile, and a kept link never answers for
    /// another name, even under the same id.
    @Test func everyPageLinksItsViewersOwnProfile() throws {
        let page = QuoteView.page(for: .showing(quote(7), addedBy: nil, isFavourite: false, canDelete: false))
        func body(_ visitor: Visitor) -> String { String(decoding: renderer.response(for: page, visitor: visitor).body, as: UTF8.self) }
        for _ in 0..<2 {
            #expect(body(visitors[2]).contains("href=\"/users/ada\""))
            #expect(body(visitors[3]).contains("href=\"/users/bob\"") && !body(visitors[3]).contains("/users/ada"))
        }
        let sameID = Visitor(user: user(1, "cyd", displayName: "Ada"), csrfToken: "token-of-ada")
        #expect(body(sameID).contains("href=\"/users/cyd\"") && !body(sameID).contains("/users/ada"))
    }

    @Test func anEditARenameAFavouriteOrADeleteRightGivesANewPage() throws {
        let viewer = visitors[2]
        func body(_ page: Page) -> String { String(decoding: renderer.response(for: page, visitor: viewer).body, as: UTF8.self) }
        let adder = user(3, "cyd", displayName: "Cyd")
        let before = body(QuoteView.page(for: .showing(quote(5, text: "Before"), addedBy: adder, isFavourite: false, canDelete: false)))
        #expect(before.contains("Before") && before.contains("Cyd") && before.contains("Make favourite"))
        let edited = body(QuoteView.page(for: .showing(quote(5, version: 2, text: "After"), addedBy: adder, isFavourite: false, canDelete: false)))
        #expect(edited.contains("After") && !edited.contains("Before"))
        let renamed = body(
            QuoteView.page(
                for: .showing(quote(5, version: 2, text: "After"), addedBy: user(3, "cyd", displayName: "Cydney"), isFavourite: false, canDelete: false)))
        #expect(renamed.contains("Cydney"))
        let favourite = body(
            QuoteView.page(for: .showing(quote(5, version: 2, text: "After"), addedBy: adder, isFavourite: true, canDelete: true)))
        #expect(favourite.contains("Your favourite") && favourite.contains("Delete") && !favourite.contains("Make favourite"))
        // The list and home pages follow the quote's version.
        let list = body(QuoteListView.page(for: .showing([ListedQuote(quote(5, text: "Before"))], page: 1, pageCount: 1, search: nil)))
        let newList = body(QuoteListView.page(for: .showing([ListedQuote(quote(5, version: 2, text: "After"))], page: 1, pageCount: 1, search: nil)))
        #expect(list.contains("Before") && newList.contains("After") && !newList.contains("Before"))
        // A profile follows its person's name.
        let profile = body(ProfileView.page(for: .presenting(Profile(user: adder, favourite: nil, addedQuotes: []), isOwn: false)))
        let renamedProfile = body(
            ProfileView.page(for: .presenting(Profile(user: user(3, "cyd", displayName: "Cydney"), favourite: nil, addedQuotes: []), isOwn: false)))
        #expect(profile.contains("Cyd") && renamedProfile.contains("Cydney"))
    }

    @Test func aSignedOutVisitorAfterASignedInOneSeesNoTraceOfThem() throws {
        let page = HomeView.page(for: .showing(favourite: ListedQuote(quote(1)), recent: [ListedQuote(quote(1))]))
        _ = renderer.response(for: page, visitor: visitors[2])
        let after = String(decoding: renderer.response(for: page, visitor: Visitor()).body, as: UTF8.self)
        #expect(!after.contains("Ada") && !after.contains("token-of-ada") && !after.contains("Sign out") && after.contains("Sign in"))
    }

    /// The photo beside a quote is part of what a page shows: a new photo, a rename (its text)
    /// or its removal gives a new page, at once, on every page that lists the quote.
    @Test func aNewPhotoOrNameOfWhoAddedAQuoteGivesANewPage() throws {
        let viewer = visitors[2]
        func body(_ page: Page) -> String { String(decoding: renderer.response(for: page, visitor: viewer).body, as: UTF8.self) }
        func pages(_ adder: User) -> [Page] {
            let listed = ListedQuote(quote(5), addedBy: adder)
            return [
                HomeView.page(for: .showing(favourite: listed, recent: [listed])),
                QuoteListView.page(for: .showing([listed], page: 1, pageCount: 1, search: nil)),
                QuoteView.page(for: .showing(quote(5), addedBy: adder, isFavourite: false, canDelete: false)),
            ]
        }
        let first = pages(user(3, "cyd", displayName: "Cyd", photo: photo("1111", "2222"))).map(body)
        let second = pages(user(3, "cyd", displayName: "Cyd", photo: photo("3333", "4444"))).map(body)
        let renamed = pages(user(3, "cyd", displayName: "Cydney", photo: photo("3333", "4444"))).map(body)
        let removed = pages(user(3, "cyd", displayName: "Cydney")).map(body)
        for (index, page) in first.enumerated() {
            #expect(page.contains("/users/cyd/photo/small?v=2222000000000000 96w, /users/cyd/photo?v=1111000000000000 512w"), "page \(index)")
            #expect(second[index].contains("src=\"/users/cyd/photo/small?v=4444000000000000\"") && !second[index].contains("v=2222"), "page \(index)")
            #expect(!removed[index].contains("<img"), "page \(index)")
        }
        #expect(renamed[0].contains("alt=\"Added by Cydney\"") && renamed[1].contains("alt=\"Added by Cydney\""))
    }
}

/// A key's bytes name its parts unambiguously: texts carry their length, numbers their 8 bytes.
struct PageContentKeyTests {
    static func key(_ build: (inout PageContentKey) -> Void) -> PageContentKey {
        var key = PageContentKey()
        build(&key)
        return key
    }

    @Test func partsThatRunTogetherDifferently() {
        #expect(Self.key { $0.append("ab"); $0.append("c") } != Self.key { $0.append("a"); $0.append("bc") })
        #expect(Self.key { $0.append("") } != Self.key { _ in })
        #expect(Self.key { $0.append(1); $0.append(2) } != Self.key { $0.append(2); $0.append(1) })
        #expect(Self.key { $0.append(-1) } != Self.key { $0.append(Int.max) })
        #expect(Self.key { $0.append("é") } != Self.key { $0.append("e\u{301}") }, "canonically equal texts are different bytes")
        let equal = (Self.key { $0.append(7); $0.append("same") }, Self.key { $0.append(7); $0.append("same") })
        #expect(equal.0 == equal.1 && equal.0.hashValue == equal.1.hashValue)
    }
}
