#!/usr/bin/env python3
"""Live quote pages in a real browser (headless Chromium through Selenium): two windows on one quote.

usage: live_flow.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT

Starts the executable on a free port with a fresh data directory (the server, the browser set-up
and the page helpers are app_flow.py's), then:

- window A signs up and opens /quotes/1; window B, signed out, opens the same quote, and so does
  window C with JavaScript switched off;
- A edits the quote (text with markup in it, and the author) and saves;
- B shows the new text, author, version and who changed it within a few seconds, without
  reloading (a value set on B's window before the save is still there), the markup as text;
- C still shows the old text until it is reloaded (without JavaScript, a reload shows changes);
- no page logged a Content-Security-Policy violation or a script error;
- on a 375 px wide window B does not scroll sideways.

When QUOTEBOOK_SCREENSHOTS names a directory, PNGs of B's quote page before and after the live
update, at 375 px and 1280 px, are written there. Exits non-zero with the failed check on standard error.
"""
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app_flow import (  # noqa: E402  (the path above makes app_flow importable)
    ADA, EINSTEIN, WAIT, Server, browser, check, expect_no_sideways_scroll, expect_page, fill, form_with, run,
    screenshot, sign_up, submit, text_of, visit)

NEW_TEXT = "Live <b>in another window</b> & \"quoted\""
NEW_AUTHOR = "Ada <i>Lovelace</i>"


def console_problems(driver):
    """Console messages about the security policy or script errors (the app has no favicon)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if ("Content Security Policy" in entry["message"] or entry["level"] == "SEVERE")
            and "/favicon.ico" not in entry["message"]]


def flow(executable, root, work, drivers, servers):
    server = Server(executable, root, os.path.join(work, "data"))
    servers.append(server)
    url = server.url

    a, b, c = browser(console_log=True), browser(console_log=True), browser(javascript=False, console_log=True)
    drivers.extend([a, b, c])

    visit(a, url + "/signup")
    sign_up(a, ADA)
    expect_page(a, "/", what="sign-up")
    for driver in (a, b, c):
        visit(driver, url + "/quotes/1")
        check(EINSTEIN in text_of(driver, "main blockquote"), "the quote page does not show the quote")
    check(b.execute_script("return document.querySelector('article').dataset.eventsUrl") == "/quotes/1/events",
          "the quote page does not name its event stream")
    screenshot(b, "quote-live-before")
    # Set on B's window: a reload would lose it.
    b.execute_script("window.quotebookMarker = 'not reloaded'")

    visit(a, url + "/quotes/1/edit")
    fill(a, "text", NEW_TEXT)
    fill(a, "author", NEW_AUTHOR)
    submit(a, form_with(a, "#text"))
    expect_page(a, "/quotes/1", what="saving the edit")
    check(NEW_TEXT in text_of(a, "main blockquote"), "the saved text is not on the editor's page")

    # B follows without reloading.
    WebDriverWait(b, WAIT).until(
        lambda d: NEW_TEXT in d.find_element(By.CSS_SELECTOR, "main blockquote").text,
        "the other window did not show the edit")
    check(b.execute_script("return window.quotebookMarker") == "not reloaded", "the other window reloaded")
    check(not b.find_elements(By.CSS_SELECTOR, "main blockquote b"), "markup in the quote became an element")
    check(text_of(b, "main cite") == NEW_AUTHOR, f"the author was not updated: {text_of(b, 'main cite')!r}")
    check(not b.find_elements(By.CSS_SELECTOR, "main cite i"), "markup in the author became an element")
    last_change = text_of(b, "main [data-live=last-change]")
    check("(version 2)" in last_change, f"the last change does not say version 2: {last_change!r}")
    notice = text_of(b, "main [data-live=notice]")
    check("Changed just now by " + ADA["display_name"] in notice, f"the notice does not say who: {notice!r}")
    check(b.title.startswith("Quote by " + NEW_AUTHOR), f"the title was not updated: {b.title!r}")
    edit = b.find_element(By.CSS_SELECTOR, "main [data-live=edit]")
    check(edit.get_attribute("href").endswith("/quotes/1/edit"), "the Edit link changed")
    check(b.execute_script("return document.querySelector('article').dataset.version") == "2",
          "the page does not record the version it shows")
    expect_no_sideways_scroll(b)
    screenshot(b, "quote-live-update")

    # Without JavaScript nothing moves until a reload, which shows the edit.
    check(EINSTEIN in text_of(c, "main blockquote"), "the page without JavaScript changed by itself")
    visit(c, url + "/quotes/1")
    check(NEW_TEXT in text_of(c, "main blockquote"), "a reload without JavaScript does not show the edit")

    for name, driver in (("A", a), ("B", b)):
        problems = console_problems(driver)
        check(not problems, f"window {name} logged: {problems}")

    server.stop()


if __name__ == "__main__":
    run(__doc__, "quotebook-live-", flow,
        "browser: an edit saved in one window showed up in another without a reload (text, author, "
        "version, who), markup as text, no policy violation; without JavaScript a reload shows it")
