#!/usr/bin/env python3
"""Quotebook in a real browser (headless Chromium through Selenium), as a person uses it.

usage: quote_flow.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT

Starts the executable on a free port with a fresh data directory and checks, in Chromium:
Einstein's quote on the home page; "Edit quote" opens the form; "Save" shows the new text; a
text of only spaces comes back with a message beside the field and what was typed kept; a
quote with markup shows as text; a quote of 600 emoji stays editable; two people saving at once
get the 409 page with both texts and the second save only when it is deliberate; after the server is stopped (SIGTERM, exit 0) and started
again on the same data, the saved text is still there; and on a phone-sized window the page
does not scroll sideways. Exits non-zero with the failed check on standard error.
"""
import os
import signal
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.wait import WebDriverWait

EINSTEIN = "Two things are infinite: the universe and human stupidity"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Server:
    def __init__(self, executable, root, data):
        self.process = subprocess.Popen(
            [executable, "--port", "0", "--data", data, "--root", root, "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        line = self.process.stdout.readline().decode()
        check(line.startswith("Quotebook listening on http://"), f"no listening line, got {line!r}")
        self.url = line.strip().split(" on ")[1]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=15)
        check(status == 0, f"SIGTERM exit status {status}")


def wait_for_next_page(driver, page):
    """Waits until `page` (the old document's html element) is gone and the next one is loaded.

    While Chromium swaps documents, asking about the old element can fail with an inspector
    error ("Node ... does not belong to the document") instead of a stale-element error; both
    mean the old page is gone.
    """
    def old_page_gone(_):
        try:
            page.is_enabled()
            return False
        except WebDriverException:  # StaleElementReferenceException is one of these
            return True

    WebDriverWait(driver, 10).until(old_page_gone)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def submit(driver):
    """Clicks the form's submit button and waits until the next page has replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_next_page(driver, page)


def save_text(driver, text):
    """Replaces the quote text in the form on screen, as a person types it, and submits."""
    field = driver.find_element(By.ID, "text")
    field.clear()
    field.send_keys(text)
    submit(driver)


def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    driver_path = "/usr/bin/chromedriver"
    service = Service(driver_path) if os.path.exists(driver_path) else Service()
    return webdriver.Chrome(options=options, service=service)


def main():
    executable, root = sys.argv[1], sys.argv[2]
    data = tempfile.mkdtemp(prefix="quotebook-browser-")
    server = Server(executable, root, data)
    driver = browser()
    try:
        driver.get(server.url + "/")
        check(driver.title, "home page has no title")
        quote = driver.find_element(By.CSS_SELECTOR, "blockquote").text
        check(EINSTEIN in quote, f"home does not show Einstein's quote: {quote!r}")
        check("Albert Einstein" in driver.find_element(By.CSS_SELECTOR, "cite").text, "no author on home")

        page = driver.find_element(By.TAG_NAME, "html")
        driver.find_element(By.LINK_TEXT, "Edit quote").click()
        wait_for_next_page(driver, page)
        check(driver.current_url.endswith("/quotes/1/edit"), f"Edit quote went to {driver.current_url}")
        text = driver.find_element(By.ID, "text")
        check(EINSTEIN in text.get_attribute("value"), "the form is not filled in")
        check(driver.find_element(By.CSS_SELECTOR, "label[for=text]").text, "the text field has no label")
        check(driver.find_element(By.CSS_SELECTOR, "label[for=author]").text, "the author field has no label")

        # Only spaces: passes the browser's `required`, fails the server's trim rule (422).
        save_text(driver, "   ")
        error = driver.find_element(By.ID, "text-error").text
        check("Please enter" in error, f"no message beside the empty text: {error!r}")
        check(driver.find_element(By.ID, "author").get_attribute("value") == "Albert Einstein",
              "the author typed was not kept")

        save_text(driver, "Imagination is more important than knowledge. <script>alert(1)</script>")
        check(driver.current_url.endswith("/quotes/1"), f"Save went to {driver.current_url}")
        shown = driver.find_element(By.CSS_SELECTOR, "blockquote").text
        check("Imagination is more important than knowledge." in shown, f"saved text not shown: {shown!r}")
        check("<script>alert(1)</script>" in shown, "markup in a quote was not shown as text")

        driver.get(server.url + "/")
        check("Imagination" in driver.find_element(By.CSS_SELECTOR, "blockquote").text, "home shows the old text")

        # 600 emoji: 600 characters (the rule's unit) but 1,200 UTF-16 units (what a browser's
        # maxlength counts). Saved once (set by script: chromedriver types only the BMP), the
        # quote must stay editable by hand: typing one more character and saving works.
        driver.get(server.url + "/quotes/1/edit")
        field = driver.find_element(By.ID, "text")
        driver.execute_script("arguments[0].value = arguments[1]", field, "\U0001F600" * 600)
        submit(driver)
        check(driver.current_url.endswith("/quotes/1"), f"600 emoji were not saved: {driver.current_url}")
        driver.get(server.url + "/quotes/1/edit")
        field = driver.find_element(By.ID, "text")
        field.send_keys("!")
        submit(driver)
        check(driver.current_url.endswith("/quotes/1"), "a 600-emoji quote cannot be edited in the browser")
        check(driver.find_element(By.CSS_SELECTOR, "blockquote").text.endswith("!"), "the edit of the emoji quote was lost")

        driver.get(server.url + "/quotes/1/edit")
        save_text(driver, "Imagination is more important than knowledge.")
        check(driver.current_url.endswith("/quotes/1"), "saving after the emoji quote failed")

        server.stop()
        server = Server(executable, root, data)
        driver.get(server.url + "/")
        check("Imagination" in driver.find_element(By.CSS_SELECTOR, "blockquote").text,
              "the edit did not survive a restart")

        # Two people edit at once: the second save meets the first (409), sees both texts, keeps
        # their own in the form, and a deliberate second save wins.
        driver.get(server.url + "/quotes/1/edit")
        first_tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(server.url + "/quotes/1/edit")
        save_text(driver, "Saved first by someone else.")
        driver.close()
        driver.switch_to.window(first_tab)
        save_text(driver, "My own wording.")
        conflict = driver.find_element(By.CSS_SELECTOR, ".conflict").text
        check("Saved first by someone else." in conflict, f"the conflict page does not show their text: {conflict!r}")
        check(driver.find_element(By.ID, "text").get_attribute("value") == "My own wording.",
              "the conflict form lost what I typed")
        submit(driver)
        check(driver.current_url.endswith("/quotes/1"), f"the deliberate second save went to {driver.current_url}")
        check("My own wording." in driver.find_element(By.CSS_SELECTOR, "blockquote").text, "the second save was lost")

        driver.set_window_size(375, 800)
        for path in ("/", "/quotes/1", "/quotes/1/edit", "/nowhere"):
            driver.get(server.url + path)
            overflow = driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            check(overflow <= 0, f"{path} scrolls sideways by {overflow}px on a 375px-wide window")
        print("browser: home, edit, 422, save, escaping, emoji, restart, 409 and phone layout all as expected")
    finally:
        driver.quit()
        if server.process.poll() is None:
            server.stop()


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"browser test failed: {failure}", file=sys.stderr)
        sys.exit(1)
