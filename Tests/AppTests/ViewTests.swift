import App
import Foundation
import HTTPServer
import Store
import Templates
import TestSupport
import Testing

/// Views pick the template and status for every state.
@Suite struct ViewTests {
    let quote = Quote(
        id: QuoteID(1), text: "Text", author: "Author", version: 3,
        addedBy: nil, addedAt: Date(timeIntervalSince1970: 0), updatedBy: nil, updatedAt: Date(timeIntervalSince1970: 60)
    )
    var form: QuoteForm { QuoteForm(quote: quote) }

    @Test func editingWithoutProblemsIs200Form() {
        let page = QuoteEditView.page(for: .editing(form, problems: [:]))
        #expect(page.template == .quoteEdit)
        #expect(page.status == .ok)
    }

    @Test func editingWithProblemsIs422Form() {
        let page = QuoteEditView.page(for: .editing(form, problems: [.author: .empty]))
        #expect(page.template == .quoteEdit)
        #expect(page.status == .unprocessableContent)
    }

    @Test func conflictIs409Form() {
        let page = QuoteEditView.page(for: .conflict(current: quote, mine: form))
        #expect(page.template == .quoteEdit)
        #expect(page.status == .conflict)
    }

    @Test func savedShowsTheQuote() {
        let page = QuoteEditView.page(for: .saved(quote))
        #expect(page.template == .quote)
        #expect(page.status == .ok)
    }

    @Test func notFoundStatesAre404ErrorPages() {
        for page in [QuoteEditView.page(for: .notFound), QuoteView.page(for: .notFound)] {
            #expect(page.template == .error)
            #expect(page.status == .notFound)
        }
    }

    @Test func methodNotAllowedCarriesAllow() {
        let page = ErrorView.page(for: .methodNotAllowed([.get, .head]))
        #expect(page.status == .methodNotAllowed)
        #expect(page.headers["Allow"] == "GET, HEAD")
    }

    @Test func serverFaultIs500() {
        #expect(ErrorView.page(for: .serverFault(details: "boom")).status == .internalServerError)
    }

    @Test func tooManyTriesFromAnAddressAre429sThatSayHowLongToWait() {
        let signIn = SignInView.page(for: .limited(username: "ada", returnTo: nil, .allowanceSpent(retryAfter: 540)))
        #expect(signIn.template == .signIn)
        #expect(signIn.status == .tooManyRequests)
        #expect(signIn.headers["Retry-After"] == "540")
        let signUp = SignUpView.page(
            for: .limited(
                SignUpForm(username: "ada", displayName: "Ada", password: "", passwordConfirmation: ""), .allowanceSpent(retryAfter: 30)))
        #expect(signUp.template == .signUp)
        #expect(signUp.status == .tooManyRequests)
        #expect(signUp.headers["Retry-After"] == "30")
        #expect(SignInView.page(for: .throttled(username: "ada", returnTo: nil, retryAfter: 17)).headers["Retry-After"] == "17")
        #expect(SignInView.page(for: .limited(username: "ada", returnTo: nil, .tooManyAtOnce)).headers["Retry-After"] == "1")
        #expect(SignInView.page(for: .limited(username: "ada", returnTo: nil, .tooManyAtOnce)).status == .tooManyRequests)
    }

    @Test(arguments: [
        (0, "a second"), (1, "a second"), (45, "45 seconds"), (60, "a minute"), (61, "2 minutes"), (600, "10 minutes"),
        (3_600, "an hour"), (7_201, "3 hours"),
    ])
    func waitsReadAsPhrasesRoundedUp(seconds: Int, phrase: String) {
        #expect(WaitText.phrase(seconds: seconds) == phrase)
    }

    @Test(arguments: [
        (FieldProblem.empty, "Please enter the text."), (.tooLong(maximum: 5), "Please keep the text to 5 characters or fewer."),
        (.forbiddenCharacter("\u{0}"), "Please remove the invisible control character U+0000 from the text."),
        (.forbiddenCharacter("\u{9B}"), "Please remove the invisible control character U+009B from the text."),
        (
            .forbiddenCharacter("\u{202E}"),
            "Please remove the text-direction control U+202E from the text: it can make the page read in the wrong order."
        ),
        (.forbiddenCharacter("\n"), "Please write the text on one line, without tabs or line breaks."),
    ])
    func fieldProblemsReadAsSentences(problem: FieldProblem, sentence: String) {
        #expect(QuoteEditView.message(for: problem, field: "the text") == sentence)
    }

    @Test func datesAreWrittenInUTC() {
        let date = Date(timeIntervalSince1970: 1_795_330_800)
        #expect(DateText.readable(date) == "22 Nov 2026, 07:00 UTC")
        #expect(DateText.machine(date) == "2026-11-22T07:00:00Z")
        let early = Date(timeIntervalSince1970: -61_851_427_140)  // 0010-01-03 00:01 UTC: fields padded, the year not
        #expect(DateText.readable(early) == "3 Jan 10, 00:01 UTC")
        #expect(DateText.machine(early) == "10-01-03T00:01:00Z")
    }

    @Test func datesAgreeWithFoundationsCalendarAcrossCenturiesAndLeapDays() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        var generator = SystemRandomNumberGenerator()
        // 1600-03-01 .. 2400-12-31, plus the edges that trip date arithmetic.
        var seconds: [Double] = [-1, 0, 951_782_400, 951_868_799, 4_107_542_400, -2_208_988_800, 13_569_465_599]
        for _ in 0..<5_000 { seconds.append(Double(Int64.random(in: -11_670_912_000...13_569_465_599, using: &generator))) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(DateText.machine(date) == formatter.string(from: date), "at \(value)")
        }
    }
}

/// Start-up refuses templates the views cannot render with.
@Suite struct PageTemplateTests {
    @Test func theRepositoryTemplatesServeEveryPage() throws {
        #expect(PageTemplate.problems(in: try TemplateLibrary(directory: RepositoryPaths.templates)).isEmpty)
    }

    @Test func namesAMissingPageTemplateAndAMisspelledParent() throws {
        let library = try TemplateLibrary(sources: [
            "layout": "{{$content}}{{/content}}", "home": "{{<layuot}}{{/layuot}}", "quote": "", "error": "",
        ])
        let problems = PageTemplate.problems(in: library)
        #expect(problems.contains("no template quote_edit.mustache"))
        #expect(problems.contains("home:1:1: no template named 'layuot'"))
        #expect(problems.count == PageTemplate.allCases.count - 4 + 1)
    }
}
