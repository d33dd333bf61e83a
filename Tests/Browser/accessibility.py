"""An axe-core accessibility audit for the Selenium browser flows.

axe-core's script comes from PyPI's `axe-selenium-python` (its bundled
`node_modules/axe-core/axe.min.js`; `python3 -m pip install axe-selenium-python`). A flow makes
one `Audit`, calls `audit.page(driver, what)` on every page it lands on, and `audit.check()` at
the end:

    audit = Audit()
    driver.get(url + "/quotes")
    audit.page(driver, "the quote list, signed out")
    ...
    audit.check()   # AssertionError naming every page, rule and offending node, if any

`page` injects axe-core into the document on screen (once per document), runs `axe.run()` with
its default rules (WCAG 2 A and AA, and best practices) at each of the audit's widths (375 px and
1280 px unless told otherwise), and records the violations; the window goes back to the size it
had. `check` fails when any page had a violation: one line per page, rule and node, so a single
run shows everything there is to fix. Needs nothing but Selenium and the package above.
"""
import importlib.util
import os
from urllib.parse import urlsplit

# Lists only what a report needs: the rule, its impact and help, and each node's CSS selector and
# failure summary (the whole results object is megabytes on a long page).
_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
    results => done({violations: results.violations.map(rule => ({
        id: rule.id, impact: rule.impact, help: rule.help, helpUrl: rule.helpUrl,
        nodes: rule.nodes.map(node => ({target: node.target, summary: node.failureSummary || ''}))
    }))}),
    error => done({error: String(error)}));
"""


def axe_script_path():
    """The axe.min.js that `axe-selenium-python` bundles (found without importing the package)."""
    spec = importlib.util.find_spec("axe_selenium_python")
    if spec is None or not spec.origin:
        raise AssertionError("axe-selenium-python is not installed: python3 -m pip install axe-selenium-python")
    path = os.path.join(os.path.dirname(spec.origin), "node_modules", "axe-core", "axe.min.js")
    if not os.path.isfile(path):
        raise AssertionError(f"axe-selenium-python has no axe-core script at {path}")
    return path


class Audit:
    def __init__(self, widths=(375, 1280), height=900, script_path=None):
        self.widths = widths
        self.height = height
        with open(script_path or axe_script_path(), encoding="utf-8") as file:
            self.script = file.read()
        self.pages = []       # one label per page and width audited
        self.violations = []  # (label, rule id, impact, help, help URL, [(selector, summary)])

    def page(self, driver, what):
        """Audits the page on screen at every width; `what` names it in the report."""
        address = urlsplit(driver.current_url)
        where = address.path + (f"?{address.query}" if address.query else "")
        size = driver.get_window_size()
        try:
            for width in self.widths:
                driver.set_window_size(width, self.height)
                label = f"{what} ({where}, {width} px)"
                self.pages.append(label)
                for rule in self._run(driver, label):
                    nodes = [(" ".join(str(part) for part in node["target"]), node["summary"]) for node in rule["nodes"]]
                    self.violations.append((label, rule["id"], rule["impact"], rule["help"], rule["helpUrl"], nodes))
        finally:
            driver.set_window_size(size["width"], size["height"])

    def _run(self, driver, label):
        if not driver.execute_script("return typeof window.axe === 'object' && typeof axe.run === 'function'"):
            driver.execute_script(self.script)
        result = driver.execute_async_script(_RUN)
        if not isinstance(result, dict) or "error" in result:
            raise AssertionError(f"axe-core could not audit {label}: {result.get('error') if isinstance(result, dict) else result!r}")
        return result["violations"]

    def report(self):
        lines = []
        for label, rule, impact, help, help_url, nodes in self.violations:
            lines.append(f"{label}: {rule} ({impact}): {help} <{help_url}>")
            for selector, summary in nodes:
                lines.append(f"    {selector}" + (f" — {' '.join(summary.split())}" if summary else ""))
        return "\n".join(lines)

    def check(self):
        """Fails with every violation recorded, page by page; passes when there were none."""
        if self.violations:
            pages = len({label for label, *_ in self.violations})
            raise AssertionError(
                f"axe-core found {len(self.violations)} accessibility violation(s) on {pages} of the "
                f"{len(self.pages)} pages and widths audited:\n{self.report()}")
