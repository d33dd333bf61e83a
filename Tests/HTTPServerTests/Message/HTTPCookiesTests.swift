import HTTPServer
import Testing

/// `Cookie` fields (RFC 6265 §5.4) read into name–value pairs.
@Suite struct HTTPCookiesTests {
    private func cookies(_ fields: String...) -> HTTPCookies {
        var headers: HTTPHeaders = [:]
        for field in fields { headers.add(name: "Cookie", value: field) }
        return HTTPCookies(headers)
    }

    @Test func readsEveryPairOfEveryField() {
        let parsed = cookies("a=1; b=two", "c=3")
        #expect(parsed["a"] == "1")
        #expect(parsed["b"] == "two")
        #expect(parsed["c"] == "3")
        #expect(parsed["d"] == nil)
    }

    @Test func trimsSpacesAndTabsAroundPairsButNotAroundTheEqualsSign() {
        let parsed = cookies(" \ta=1 ;\tb =2;c= 3 \t")
        #expect(parsed["a"] == "1")
        #expect(parsed["b "] == "2")
        #expect(parsed["b"] == nil)
        #expect(parsed["c"] == " 3")
    }

    @Test func removesTheQuotesAroundAValueOnly() {
        let parsed = cookies(#"a="x y"; b=""; c="; d="e"f"#)
        #expect(parsed["a"] == "x y")
        #expect(parsed["b"] == "")
        #expect(parsed["c"] == "\"")
        #expect(parsed["d"] == "\"e\"f")
    }

    @Test func ignoresPiecesWithoutANameOrAnEqualsSign() {
        let parsed = cookies(";; =x; flag; a=; b==c;")
        #expect(parsed["a"] == "")
        #expect(parsed["b"] == "=c")
        #expect(parsed["flag"] == nil)
        #expect(parsed[""] == nil)
        #expect(cookies("")["a"] == nil)
    }

    @Test func theFirstOfARepeatedNameWins() {
        #expect(cookies("a=first; a=second")["a"] == "first")
        #expect(cookies("a=first", "a=second")["a"] == "first")
        #expect(cookies("a=1; b=2") == cookies("a=1", "b=2"))
    }

    /// RFC 6265 compares names as octets: a decomposed accent is another name, and a name is
    /// never matched by its prefix or by a longer one.
    @Test func namesAreComparedByteForByte() {
        let parsed = cookies("cafe\u{301}=decomposed; quotebook_session=s", "quotebook=short")
        #expect(parsed["cafe\u{301}"] == "decomposed")
        #expect(parsed["caf\u{E9}"] == nil)
        #expect(parsed["quotebook"] == "short")
        #expect(parsed["quotebook_session"] == "s")
        #expect(parsed["quotebook_sessions"] == nil)
        #expect(cookies()["a"] == nil)
        #expect(parsed.contains("quotebook") && !parsed.contains("quotebook_sessions") && !parsed.contains("caf\u{E9}"))
        // Equality compares the same way.
        #expect(cookies("caf\u{E9}=x") != cookies("cafe\u{301}=x"))
        #expect(cookies("a=caf\u{E9}") != cookies("a=cafe\u{301}"))
    }

    @Test func keepsNonASCIIBytesAsTheyCame() {
        let parsed = cookies("caf\u{E9}=\u{1F600}; n=\u{65}\u{301}")
        #expect(parsed["caf\u{E9}"] == "\u{1F600}")
        #expect(parsed["n"] == "\u{65}\u{301}")
    }
    /// A field of up to four pairs, each starting in its first 16 KiB, is indexed once; more
    /// pairs, a longer field or a second field are walked on each look-up. Every way finds the
    /// same values, the first of a repeated name winning, and names a pair's name only begins
    /// with, or that no pair could have, find nothing.
    @Test func findsTheSameValuesIndexedOrWalked() {
        let names = (1...9).map { "c\($0)" }
        for count in [1, 3, 4, 5, 7, 9] {
            let field = names.prefix(count).map { "\($0)=v\($0)" }.joined(separator: "; ")
            let alone = cookies(field)
            let repeated = cookies(field + "; c1=later")
            let twoFields = cookies(field, "c1=later")
            for name in names {
                let expected = names.prefix(count).contains(name) ? "v\(name)" : nil
                for parsed in [alone, repeated, twoFields] {
                    #expect(parsed[name] == expected, "\(count) pairs, \(name)")
                    #expect(parsed.contains(name) == (expected != nil))
                }
            }
            #expect(repeated == twoFields)
            #expect(alone != repeated)
        }
        let spaced = cookies(" ; a=\"q\" ; ;b= \t;c=\"")
        #expect(spaced["a"] == "q" && spaced["b"] == "" && spaced["c"] == "\"" && spaced["d"] == nil)
        let tricky = cookies("ab=1; a b=2; a=b=3")
        #expect(tricky["a"] == "b=3" && tricky["ab"] == "1" && tricky["a b"] == "2")
        #expect(tricky["a=b"] == nil && tricky["ab=1; a"] == nil && tricky[""] == nil && tricky["b"] == nil)
        let padding = String(repeating: "x", count: 16_400)
        let long = cookies("pad=\(padding); far=away")
        #expect(long["far"] == "away" && long["pad"]?.count == 16_400)
    }
}
