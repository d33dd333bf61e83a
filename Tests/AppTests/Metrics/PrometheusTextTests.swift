import App
import Testing

/// The text exposition format 0.0.4: help and type lines before a family's samples, samples in
/// the order given, label values and help text escaped as the format says.
@Suite struct PrometheusTextTests {
    @Test(arguments: [
        ("plain_value", "plain_value"),
        (#"back\slash"#, #"back\\slash"#),
        (#"say "hi""#, #"say \"hi\""#),
        ("two\nlines", #"two\nlines"#),
        ("crlf\r\nend", "crlf\r\\nend"),
        (#"all \ " and"# + "\n", #"all \\ \" and\n"#),
        ("élan ✓", "élan ✓"),
        ("", ""),
    ])
    func escapesLabelValues(raw: String, escaped: String) {
        #expect(PrometheusText.escapedLabelValue(raw) == escaped)
    }

    @Test func helpEscapesBackslashAndLineFeedButNotQuotes() {
        #expect(PrometheusText.escapedHelp("a \"b\" \\ c\nd") == #"a "b" \\ c\nd"#)
    }

    @Test func writesHelpAndTypeThenTheSamplesInTheOrderGiven() {
        var text = PrometheusText()
        text.appendCounter(
            "demo_total", help: "Demo things.",
            samples: [
                ([("route", "b"), ("status", "200")], 7),
                ([("route", "a\"x"), ("status", "404")], 1),
            ])
        text.appendCounter("plain_total", help: "Without labels.", samples: [([], 3)])
        #expect(
            text.text == """
                # HELP demo_total Demo things.
                # TYPE demo_total counter
                demo_total{route="b",status="200"} 7
                demo_total{route="a\\"x",status="404"} 1
                # HELP plain_total Without labels.
                # TYPE plain_total counter
                plain_total 3

                """)
    }

    @Test func aFamilyWithoutSamplesStillDeclaresItself() {
        var text = PrometheusText()
        text.appendCounter("empty_total", help: "Nothing yet.\nReally.", samples: [])
        #expect(text.text == "# HELP empty_total Nothing yet.\\nReally.\n# TYPE empty_total counter\n")
    }

    @Test func contentTypeNamesTheFormatVersion() {
        #expect(PrometheusText.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }
}
