#!/usr/bin/env python3
"""Quotebook in a real browser (headless Chromium through Selenium), as a person uses it.

usage: app_flow.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT

Starts the executable on a free port with a fresh data directory and walks through the app in
Chromium the way a new person would:

- signed out, the home page shows Einstein's quote and Sign in / Sign up; *Edit quote* leads to
  the sign-in page with `return_to`; *Create an account* leads to sign-up;
- sign-up with a mismatched confirmation: 422, the message beside the confirmation, username
  and display name kept, passwords empty; then sign-up for real: the header shows the display
  name and a Sign out button;
- add a quote (422 with the input kept, then for real), find it by search (an author word and
  a text word in another order, case and accent; the query kept; markup in a query as text),
  edit it, restore the first version from
  its history (a new version, marked as a restore), and delete it;
- the quote page, *Edit*: the form is filled in and labelled; only spaces: 422 with a message
  beside the field; markup is shown as text; a quote of 600 emoji stays editable;
- two people (two browsers, two accounts) edit at once: the later save gets the 409 page with
  both texts, and the second save only wins when it is deliberate;
- *Make favourite*: marked on the quote page, shown on the home page and the profile;
- the profile: initials placeholder, a phone-sized JPEG (4000 x 3000, the committed large.jpg) uploaded
  and shown as its 96 px square; a quote Ada then adds is listed on the home page with her photo
  beside it (loaded, 48 px square, its srcset naming the 512 px one); a text file named .png
  refused with the 415 message beside the field; a 22 MiB file, over the server's upload limit,
  sent whole by the browser (no `Expect: 100-continue`) and answered with the edit page, 413 and
  the message beside the field; the photo removed and the placeholder back, on the profile and
  beside the quote;
- the server stopped (SIGTERM, exit 0) and started again on the same data: the edit is still
  there and the browser is still signed in;
- Sign out (header button): the header offers Sign in / Sign up again; a wrong password: 401,
  one generic message, the username kept; the right one: back on the page asked for
  (`/profile/edit`, through `return_to`);
- where you are signed in: a second browser signs in, both sessions are listed (this one marked,
  the browser and system named), *Sign out everywhere else* signs the other out at once;
- *Download your data* on the edit page: the export is a JSON attachment of Ada's profile and
  versions, `no-store`;
- change password: a wrong current password is a 422 beside its field with no password kept,
  then the change for real keeps this browser signed in;
- delete the account (last): *Delete your account* on the edit page says quotes stay by "a
  former member"; a wrong password is a 422 beside the field (`aria-invalid`), the right one
  signs this browser and the phone out and lands on `/`; the quote Ada added shows "a former
  member" with no link, `/users/ada` is 404, and her username and password get a 401;
- a lockout no stranger can use against its owner: Grace signs in from a new browser (which gets
  the `HttpOnly` device cookie) and out; a script's five wrong passwords lock her username; a
  browser that never signed in as her gets the 429 page even with the right password, while her
  own browser signs in;
- writes past an account's allowance: a script with Grace's session adds quotes until the server
  refuses one (at most 300, `--writes-per-account`); her browser's form then gets the 429 page
  saying why, and the quote is not added;
- getting back in (a second server, mailing through a real relay with STARTTLS and AUTH,
  Tests/Support/mail_relay.py): sign-up with an address, the link from the mail confirms it (a
  page with one button), sign out, *Forgot your password?*, the reset link from the mail, a new
  password; the old one gets a 401, the new one signs in, a notice arrives, the used link is 410;
- moderation (a third server): the operator makes Moe a moderator (`quotebook user role`), Kim
  adds a quote, Lou reports it (thanked), Moe finds it through *Moderation* and hides it, the log
  says so, the hidden quotes page lists it with its reason and a way to bring it back, and a
  visitor no longer finds it (404 on its page); Lou meets the 403 page;
- on a 375 px wide window no page scrolls sideways;
- axe-core (Tests/Browser/accessibility.py) finds no violation on any page the flow lands on,
  at 375 px and 1280 px: every page `expect_page` sees, signed in and signed out, the forms with
  problems (401, 409, 415, 422) and the error pages (403, 404) included.

Every form is submitted with the submit button of that form (never the first button on the
page: signed in, that is the header's Sign out). When the environment variable
QUOTEBOOK_SCREENSHOTS names a directory, PNG screenshots of the main pages at 375 px and 1280 px
are written there. Every wait is explicit and bounded; exits non-zero with the failed check on
standard error.
"""
import os
import shutil
import sys
import tempfile
from urllib.parse import parse_qs, urlsplit

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from quotebook_server import Server, check  # noqa: E402,F401  (the path above; live_flow imports both from here)
from accessibility import Audit  # noqa: E402  (beside this file)

EINSTEIN = "Two things are infinite: the universe and human stupidity"
ABELSON = "Programs must be written for people to read."
LOVELACE = "The Analytical Engine weaves algebraical patterns just as the Jacquard loom weaves flowers and leaves."
WAIT = 10  # seconds: the longest any single step may take
DESKTOP = (1280, 900)
PHONE_WIDTH = 375

# The axe-core audit of every page `expect_page` sees; None when a flow does not audit (live_flow).
audit = None

ADA = {"username": "ada", "display_name": "Ada Lovelace", "password": "analytical engine 1843"}
WRITES_PER_ACCOUNT = 300  # the server's default --writes-per-account
GRACE = {"username": "grace", "display_name": "Grace Hopper", "password": "nanoseconds of wire"}


# --- pages --------------------------------------------------------------------------------------

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

    WebDriverWait(driver, WAIT).until(old_page_gone, "the next page did not replace this one")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return document.readyState") == "complete", "the next page did not finish loading")


def status(driver):
    """The HTTP status of the document on screen (after redirects: the last response's)."""
    return driver.execute_script("return performance.getEntriesByType('navigation')[0].responseStatus")


def path(driver):
    return urlsplit(driver.current_url).path


def expect_page(driver, expected_path, expected_status=200, what="the page"):
    check(path(driver) == expected_path, f"{what}: expected {expected_path}, on {driver.current_url}")
    got = status(driver)
    check(got == expected_status, f"{what}: expected status {expected_status} at {expected_path}, got {got}")
    check(driver.title, f"{what}: {expected_path} has no title")
    if audit is not None:
        signed_in = "Sign out" in nav_items(driver)
        audit.page(driver, what if "signed" in what else f"{what}, signed {'in' if signed_in else 'out'}")


def visit(driver, url, expected_path=None, expected_status=200):
    driver.get(url)
    expected = expected_path if expected_path is not None else urlsplit(url).path
    expect_page(driver, expected, expected_status, what=f"GET {urlsplit(url).path}")


def click(driver, element):
    """Clicks a link or button that loads another page and waits for that page."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait_for_next_page(driver, page)


def click_link(driver, text, within="body"):
    try:
        link = driver.find_element(By.CSS_SELECTOR, within).find_element(By.LINK_TEXT, text)
    except NoSuchElementException:
        raise AssertionError(f"no link {text!r} in {within} on {driver.current_url}")
    click(driver, link)


def form_with(driver, selector):
    """The form in `main` holding the element at `selector` (a field or a button)."""
    try:
        element = driver.find_element(By.CSS_SELECTOR, "main " + selector)
    except NoSuchElementException:
        raise AssertionError(f"no {selector} in main on {driver.current_url}")
    return element.find_element(By.XPATH, "ancestor::form[1]")


def submit(driver, form):
    """Clicks the submit button of `form` (not just any on the page) and waits for the next page."""
    buttons = form.find_elements(By.CSS_SELECTOR, "button[type=submit]")
    check(len(buttons) == 1, f"expected one submit button in the form, found {len(buttons)} on {driver.current_url}")
    click(driver, buttons[0])


def submit_button(driver, label):
    """Clicks the submit button labelled `label` in `main` (its own form) and waits."""
    for button in driver.find_elements(By.CSS_SELECTOR, "main form button[type=submit]"):
        if button.text.strip() == label:
            click(driver, button)
            return
    raise AssertionError(f"no {label!r} button in a form in main on {driver.current_url}")


def fill(driver, field_id, value):
    field = driver.find_element(By.ID, field_id)
    field.clear()
    if value:
        field.send_keys(value)
    return field


def value(driver, field_id):
    return driver.find_element(By.ID, field_id).get_attribute("value")


def text_of(driver, selector):
    try:
        return driver.find_element(By.CSS_SELECTOR, selector).text
    except NoSuchElementException:
        raise AssertionError(f"no {selector} on {driver.current_url}")


def save_text(driver, text):
    """Replaces the quote text in the edit form, as a person types it, and saves that form."""
    fill(driver, "text", text)
    submit(driver, form_with(driver, "#text"))


# --- header -------------------------------------------------------------------------------------

def nav_items(driver):
    return [item.text.strip() for item in driver.find_elements(By.CSS_SELECTOR, "header nav li")]


def expect_signed_in(driver, display_name):
    items = nav_items(driver)
    check(display_name in items and "Sign out" in items,
          f"the header does not show {display_name!r} and Sign out on {driver.current_url}: {items}")
    check("Sign in" not in items and "Sign up" not in items, f"signed in, the header still offers {items}")


def expect_signed_out(driver):
    items = nav_items(driver)
    check("Sign in" in items and "Sign up" in items, f"signed out, the header shows {items} on {driver.current_url}")
    check("Sign out" not in items, f"signed out, the header still offers Sign out: {items}")


def sign_out(driver):
    buttons = driver.find_elements(By.CSS_SELECTOR, "header nav form button[type=submit]")
    check(len(buttons) == 1 and buttons[0].text.strip() == "Sign out", "no Sign out button in the header")
    click(driver, buttons[0])


def sign_up(driver, person, confirmation=None):
    fill(driver, "username", person["username"])
    fill(driver, "display_name", person["display_name"])
    fill(driver, "password", person["password"])
    fill(driver, "password_confirmation", confirmation if confirmation is not None else person["password"])
    submit(driver, form_with(driver, "#password_confirmation"))


def sign_in(driver, username, password):
    fill(driver, "username", username)
    fill(driver, "password", password)
    submit(driver, form_with(driver, "#password"))


# --- layout -------------------------------------------------------------------------------------

def at_width(driver, width, action):
    """Runs `action` with the window `width` px wide (viewport), then goes back to the desktop size."""
    driver.set_window_size(width, DESKTOP[1])
    try:
        inner = driver.execute_script("return window.innerWidth")
        check(inner == width, f"could not make the window {width}px wide (it is {inner}px)")
        return action()
    finally:
        driver.set_window_size(*DESKTOP)


def expect_no_sideways_scroll(driver):
    def overflow():
        return driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")

    got = at_width(driver, PHONE_WIDTH, overflow)
    check(got <= 0, f"{path(driver)} scrolls sideways by {got}px on a {PHONE_WIDTH}px-wide window")


def screenshot(driver, name):
    """Full-page PNGs at 375 px and 1280 px into $QUOTEBOOK_SCREENSHOTS, when it is set."""
    directory = os.environ.get("QUOTEBOOK_SCREENSHOTS")
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    for width in (PHONE_WIDTH, DESKTOP[0]):
        driver.set_window_size(width, DESKTOP[1])
        chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, min(max(height + chrome, 400), 6000))
        check(driver.save_screenshot(os.path.join(directory, f"{name}-{width}.png")), f"screenshot {name} failed")
    driver.set_window_size(*DESKTOP)


# --- files --------------------------------------------------------------------------------------

def phone_jpeg(root, path):
    """A phone-sized JPEG (4000 x 3000, gradients and noise, with EXIF and a GPS position): the
    committed fixture Tests/Support/Photos/large.jpg, made by Pillow (photo_fixtures.py)."""
    shutil.copyfile(os.path.join(root, "Tests", "Support", "Photos", "large.jpg"), path)


def browser(javascript=True, console_log=False):
    """Headless Chromium at desktop size; optionally keeping the console log, or without JavaScript."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     f"--window-size={DESKTOP[0]},{DESKTOP[1]}", "--hide-scrollbars", "--force-color-profile=srgb"):
        options.add_argument(argument)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver_path = "/usr/bin/chromedriver"
    service = Service(driver_path) if os.path.exists(driver_path) else Service()
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT * 2)
    return driver


# --- the flow -----------------------------------------------------------------------------------

def flow(executable, root, data, files, drivers, servers):
    global audit
    audit = Audit(widths=(PHONE_WIDTH, DESKTOP[0]), height=DESKTOP[1])
    server = Server(executable, root, data)
    servers.append(server)
    url = server.url
    driver = browser()
    drivers.append(driver)

    # Signed out on the home page.
    visit(driver, url + "/")
    check(EINSTEIN in text_of(driver, "main blockquote"), "home does not show Einstein's quote")
    check("Albert Einstein" in text_of(driver, "main cite"), "no author on home")
    expect_signed_out(driver)
    expect_no_sideways_scroll(driver)

    # Edit quote, signed out: to the sign-in page, which remembers where we were going.
    click_link(driver, "Edit quote", within="main")
    expect_page(driver, "/login", what="Edit quote, signed out")
    return_to = parse_qs(urlsplit(driver.current_url).query).get("return_to")
    check(return_to == ["/quotes/1/edit"], f"sign-in does not return to the edit form: {driver.current_url}")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=username]").text, "the username field has no label")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=password]").text, "the password field has no label")
    screenshot(driver, "sign-in")
    expect_no_sideways_scroll(driver)

    # Create an account: first with a confirmation that differs.
    click_link(driver, "Create an account", within="main")
    expect_page(driver, "/signup", what="Create an account")
    for field in ("username", "display_name", "password", "password_confirmation"):
        check(driver.find_element(By.CSS_SELECTOR, f"label[for={field}]").text, f"the {field} field has no label")
    sign_up(driver, ADA, confirmation=ADA["password"] + "!")
    expect_page(driver, "/signup", 422, what="sign-up with a mismatched confirmation")
    message = text_of(driver, "#password_confirmation ~ .field-error")
    check("differ" in message, f"no message beside the confirmation: {message!r}")
    check(value(driver, "username") == ADA["username"], "sign-up lost the username typed")
    check(value(driver, "display_name") == ADA["display_name"], "sign-up lost the display name typed")
    check(value(driver, "password") == "" and value(driver, "password_confirmation") == "",
          "sign-up wrote a password back into the page")
    screenshot(driver, "sign-up-errors")
    expect_no_sideways_scroll(driver)

    sign_up(driver, ADA)
    expect_page(driver, "/", what="sign-up")
    expect_signed_in(driver, ADA["display_name"])

    # The quote page, then Edit.
    click_link(driver, "Details", within="main")
    expect_page(driver, "/quotes/1", what="Details")
    check(EINSTEIN in text_of(driver, "main blockquote"), "the quote page does not show the quote")
    screenshot(driver, "quote")
    expect_no_sideways_scroll(driver)
    click_link(driver, "Edit", within="main")
    expect_page(driver, "/quotes/1/edit", what="Edit")
    check(EINSTEIN in value(driver, "text"), "the form is not filled in")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=text]").text, "the text field has no label")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=author]").text, "the author field has no label")

    # Only spaces: passes the browser's `required`, fails the server's trim rule (422).
    save_text(driver, "   ")
    expect_page(driver, "/quotes/1", 422, what="saving only spaces")
    error = text_of(driver, "#text-error")
    check("Please enter" in error, f"no message beside the empty text: {error!r}")
    check(value(driver, "author") == "Albert Einstein", "the author typed was not kept")
    screenshot(driver, "quote-edit-errors")
    expect_no_sideways_scroll(driver)

    save_text(driver, "Imagination is more important than knowledge. <script>alert(1)</script>")
    expect_page(driver, "/quotes/1", what="Save")
    shown = text_of(driver, "main blockquote")
    check("Imagination is more important than knowledge." in shown, f"saved text not shown: {shown!r}")
    check("<script>alert(1)</script>" in shown, "markup in a quote was not shown as text")
    expect_signed_in(driver, ADA["display_name"])

    visit(driver, url + "/")
    check("Imagination" in text_of(driver, "main blockquote"), "home shows the old text")

    # 600 emoji: 600 characters (the rule's unit) but 1,200 UTF-16 units (what a browser's
    # maxlength counts). Saved once (set by script: chromedriver types only the BMP), the quote
    # must stay editable by hand: typing one more character and saving works.
    visit(driver, url + "/quotes/1/edit")
    field = driver.find_element(By.ID, "text")
    driver.execute_script("arguments[0].value = arguments[1]", field, "\U0001F600" * 600)
    submit(driver, form_with(driver, "#text"))
    expect_page(driver, "/quotes/1", what="saving 600 emoji")
    visit(driver, url + "/quotes/1/edit")
    driver.find_element(By.ID, "text").send_keys("!")
    submit(driver, form_with(driver, "#text"))
    expect_page(driver, "/quotes/1", what="editing a 600-emoji quote by hand")
    check(text_of(driver, "main blockquote").endswith("!"), "the edit of the emoji quote was lost")

    visit(driver, url + "/quotes/1/edit")
    save_text(driver, "Imagination is more important than knowledge.")
    expect_page(driver, "/quotes/1", what="saving after the emoji quote")

    # Two people edit at once (a second browser, a second account): the later save meets the
    # first (409), sees both texts, keeps their own in the form, and a deliberate second save wins.
    visit(driver, url + "/quotes/1/edit")
    other = browser()
    drivers.append(other)
    visit(other, url + "/signup")
    sign_up(other, GRACE)
    expect_page(other, "/", what="the second person's sign-up")
    expect_signed_in(other, GRACE["display_name"])
    visit(other, url + "/quotes/1/edit")
    save_text(other, "Saved first by someone else.")
    expect_page(other, "/quotes/1", what="the other person's save")
    other.quit()
    drivers.remove(other)

    save_text(driver, "My own wording.")
    expect_page(driver, "/quotes/1", 409, what="saving over someone else's save")
    conflict = text_of(driver, "main .conflict")
    check("Saved first by someone else." in conflict, f"the conflict page does not show their text: {conflict!r}")
    check(value(driver, "text") == "My own wording.", "the conflict form lost what I typed")
    screenshot(driver, "quote-conflict")
    expect_no_sideways_scroll(driver)
    submit(driver, form_with(driver, "#text"))
    expect_page(driver, "/quotes/1", what="the deliberate second save")
    check("My own wording." in text_of(driver, "main blockquote"), "the second save was lost")

    # Make favourite: marked on the quote page, on the home page and on the profile.
    submit_button(driver, "Make favourite")
    expect_page(driver, "/quotes/1", what="Make favourite")
    check("Your favourite" in text_of(driver, "main .actions"), "the quote page does not mark the favourite")
    check(not [b for b in driver.find_elements(By.CSS_SELECTOR, "main button") if b.text == "Make favourite"],
          "Make favourite is still offered on the favourite")
    screenshot(driver, "quote-favourite")
    expect_no_sideways_scroll(driver)
    click_link(driver, "Home", within="header nav")
    expect_page(driver, "/", what="Home")
    check("My own wording." in text_of(driver, "main .favourite blockquote"), "home does not show my favourite")
    expect_signed_in(driver, ADA["display_name"])
    screenshot(driver, "home-signed-in")
    expect_no_sideways_scroll(driver)

    click_link(driver, "Quotes", within="header nav")
    expect_page(driver, "/quotes", what="Quotes")
    check("My own wording." in text_of(driver, "main .quote-list"), "the quote list does not show the quote")
    screenshot(driver, "quotes-list")
    expect_no_sideways_scroll(driver)

    # The quote book: add a quote (first with only spaces as author: 422, input kept), edit it,
    # restore the first version from its history (a new version), then delete it.
    click_link(driver, "Add a quote", within="main")
    expect_page(driver, "/quotes/new", what="Add a quote")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=text]").text, "the new quote's text field has no label")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=author]").text, "the new quote's author field has no label")
    fill(driver, "text", ABELSON)
    fill(driver, "author", "   ")
    submit(driver, form_with(driver, "#text"))
    expect_page(driver, "/quotes", 422, what="adding a quote with only spaces as author")
    check("Please enter" in text_of(driver, "#author-error"), "no message beside the empty author")
    check(value(driver, "text") == ABELSON, "the text typed was not kept")
    screenshot(driver, "quote-new-errors")
    expect_no_sideways_scroll(driver)
    fill(driver, "author", "Harold Abelson")
    submit(driver, form_with(driver, "#text"))
    added = path(driver)
    check(added.startswith("/quotes/") and added != "/quotes/1", f"adding went to {added}")
    expect_page(driver, added, what="adding a quote")
    check(ABELSON in text_of(driver, "main blockquote"), "the added quote is not shown")
    check(ADA["display_name"] in text_of(driver, "main .meta"), "the quote page does not say who added it")
    check([b for b in driver.find_elements(By.CSS_SELECTOR, "main button") if b.text == "Delete"],
          "whoever added the quote is not offered Delete")
    screenshot(driver, "quote-own")
    expect_no_sideways_scroll(driver)

    # Find it by search: an author word and a text word, in another order and case, and an
    # accent the quote does not have; the query stays in the box; markup in a query is text.
    click_link(driver, "Quotes", within="header nav")
    fill(driver, "search-query", "ABELSON réad")
    submit(driver, form_with(driver, "#search-query"))
    expect_page(driver, "/quotes", what="searching")
    check(ABELSON.strip(".") in text_of(driver, "main .quote-list"), "the search did not find the added quote")
    check(EINSTEIN not in text_of(driver, "main .quote-list"), "the search listed a quote without the words")
    check(value(driver, "search-query") == "ABELSON réad", "the search box lost the query")
    screenshot(driver, "quotes-search")
    expect_no_sideways_scroll(driver)
    fill(driver, "search-query", "<b>nothing</b>")
    submit(driver, form_with(driver, "#search-query"))
    expect_page(driver, "/quotes", what="a search that finds nothing")
    check(not driver.find_elements(By.CSS_SELECTOR, "main b"), "markup in a query became an element")
    check("<b>nothing</b>" in text_of(driver, "main"), "the query with markup is not shown as text")

    visit(driver, url + added)

    click_link(driver, "Edit", within="main")
    save_text(driver, ABELSON + " And only incidentally for machines to execute.")
    expect_page(driver, added, what="editing the added quote")
    click_link(driver, "History", within="main")
    expect_page(driver, added + "/history", what="History")
    versions = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "main .history > li")]
    check(len(versions) == 2 and "incidentally" in versions[0] and "incidentally" not in versions[1],
          f"the history is not both versions, newest first: {versions!r}")
    check(not [b for b in driver.find_elements(By.CSS_SELECTOR, "main button") if b.text == "Restore version 2"],
          "Restore is offered on the current version")
    screenshot(driver, "quote-history")
    expect_no_sideways_scroll(driver)
    submit_button(driver, "Restore version 1")
    expect_page(driver, added, what="Restore version 1")
    check(text_of(driver, "main blockquote").strip("“”") == ABELSON, "restoring did not bring the first text back")
    click_link(driver, "History", within="main")
    check(len(driver.find_elements(By.CSS_SELECTOR, "main .history > li")) == 3, "the restore is not a new version")
    check("Version 1 restored" in text_of(driver, "main .history > li"), "the newest version does not say it is a restore")

    visit(driver, url + added)
    submit_button(driver, "Delete")
    expect_page(driver, "/quotes", what="Delete")
    check(ABELSON not in text_of(driver, "main"), "the deleted quote is still listed")
    visit(driver, url + added, expected_status=404)

    # The profile: initials until there is a photo.
    click_link(driver, ADA["display_name"], within="header nav")
    expect_page(driver, "/users/ada", what="my profile")
    check(text_of(driver, "main h1") == ADA["display_name"], "the profile does not show the display name")
    check(text_of(driver, "main .avatar.placeholder") == "AL", "no initials placeholder on the profile")
    check("My own wording." in text_of(driver, "main .favourite-small"), "the profile does not show the favourite")
    screenshot(driver, "profile-placeholder")
    expect_no_sideways_scroll(driver)

    click_link(driver, "Edit profile", within="main")
    expect_page(driver, "/profile/edit", what="Edit profile")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=photo]").text, "the photo field has no label")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=display_name]").text, "the display name field has no label")
    screenshot(driver, "profile-edit")
    expect_no_sideways_scroll(driver)
    driver.find_element(By.ID, "photo").send_keys(files["photo"])
    submit(driver, form_with(driver, "#photo"))
    expect_page(driver, "/users/ada", what="uploading a phone-sized JPEG")
    photo = driver.find_element(By.CSS_SELECTOR, "main img.avatar")
    check(urlsplit(photo.get_attribute("src")).path == "/users/ada/photo/small", f"the photo's src is {photo.get_attribute('src')}")
    check("/users/ada/photo?v=" in (photo.get_attribute("srcset") or ""), f"the photo's srcset is {photo.get_attribute('srcset')}")
    # 96 px wide as laid out, whichever of the two the browser picked (naturalWidth is density-corrected).
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", photo) == 96,
        "the uploaded photo does not load as a 96 px image")
    check(not driver.find_elements(By.CSS_SELECTOR, "main .avatar.placeholder"), "the placeholder is shown beside the photo")
    screenshot(driver, "profile-photo")
    expect_no_sideways_scroll(driver)

    # Beside the quotes she adds: the home page lists hers with her photo, loaded, round, 48 px.
    visit(driver, url + "/quotes/new")
    fill(driver, "text", LOVELACE)
    fill(driver, "author", ADA["display_name"])
    submit(driver, form_with(driver, "#text"))
    check(path(driver).startswith("/quotes/"), f"adding a quote went to {path(driver)}")
    check(driver.find_elements(By.CSS_SELECTOR, "main .meta a[href='/users/ada'] img.avatar"),
          "the quote's page shows no photo beside the name of who added it")
    screenshot(driver, "quote-photo-beside")
    click_link(driver, "Home", within="header nav")
    expect_page(driver, "/", what="Home, with a quote by someone with a photo")
    rows = [li for li in driver.find_elements(By.CSS_SELECTOR, "main .quote-list li") if LOVELACE in li.text]
    check(len(rows) == 1, f"the home page lists the quote Ada added {len(rows)} times")
    beside = rows[0].find_elements(By.CSS_SELECTOR, "img.avatar")
    check(len(beside) == 1, "no photo beside the quote Ada added")
    beside = beside[0]
    check(urlsplit(beside.get_attribute("src")).path == "/users/ada/photo/small", f"the photo beside the quote is {beside.get_attribute('src')}")
    check("/users/ada/photo?v=" in (beside.get_attribute("srcset") or ""), f"its srcset is {beside.get_attribute('srcset')}")
    check(beside.get_attribute("alt") == "Added by " + ADA["display_name"], f"its alt text is {beside.get_attribute('alt')!r}")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", beside) > 0,
        "the photo beside the quote does not load")
    size = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", beside)
    check(size == [48, 48], f"the photo beside the quote is laid out {size[0]} x {size[1]} px, not a 48 px square")
    check(not [row for row in driver.find_elements(By.CSS_SELECTOR, "main .quote-list li")
               if LOVELACE not in row.text and row.find_elements(By.TAG_NAME, "img")], "a photo beside the quote added by no one")
    screenshot(driver, "home-photo-beside")
    expect_no_sideways_scroll(driver)
    # Pages: past 20 quotes (the rest added by a script with this browser's session, as another
    # tab would) the list is paged. Older goes to page 2, which holds what page 1 does not, and
    # Newer comes back.
    add_quotes_by_script(driver, url, 20)
    click_link(driver, "Quotes", within="header nav")
    check("Page 1 of 2" in text_of(driver, "main nav.pager"), "no pager on a list longer than a page")
    check(not driver.find_elements(By.CSS_SELECTOR, "main nav.pager a[rel=prev]"), "page 1 offers a newer page")
    first_page = text_of(driver, "main .quote-list")
    check(not driver.find_elements(By.CSS_SELECTOR, 'main .quote-list a[href="/quotes/1"]'), "the oldest quote is on page 1")
    click_link(driver, "Older", within="main nav.pager")
    expect_page(driver, "/quotes", what="the quotes' second page")
    check(parse_qs(urlsplit(driver.current_url).query).get("page") == ["2"], f"Older went to {driver.current_url}")
    check("Page 2 of 2" in text_of(driver, "main nav.pager"), "page 2 does not say where it is")
    numbering = driver.find_element(By.CSS_SELECTOR, "main .quote-list").get_attribute("start")
    check(numbering == "21", f"page 2 counts from {numbering}, not on from page 1's 20")
    check(not driver.find_elements(By.CSS_SELECTOR, "main nav.pager a[rel=next]"), "the last page offers an older one")
    check(driver.find_elements(By.CSS_SELECTOR, 'main .quote-list a[href="/quotes/1"]'), "the oldest quote is not on the last page")
    check(text_of(driver, "main .quote-list") not in first_page, "page 2 repeats page 1")
    screenshot(driver, "quotes-page-2")
    expect_no_sideways_scroll(driver)
    click_link(driver, "Newer", within="main nav.pager")
    expect_page(driver, "/quotes", what="back to the quotes' first page")
    check(text_of(driver, "main .quote-list") == first_page, "Newer did not come back to the first page")
    # Her profile pages the quotes she added the same way.
    visit(driver, url + "/users/ada")
    check("Page 1 of 2" in text_of(driver, "main nav.pager"), "no pager on a profile of more than 20 quotes")
    click_link(driver, "Older", within="main nav.pager")
    expect_page(driver, "/users/ada", what="the profile's second page")
    numbering = driver.find_element(By.CSS_SELECTOR, "main .quote-list").get_attribute("start")
    check(numbering == "21", f"the profile's page 2 counts from {numbering}")
    screenshot(driver, "profile-page-2")
    expect_no_sideways_scroll(driver)
    visit(driver, url + "/users/ada")

    # A text file with a .png name: refused from its bytes (415), with the message beside the field.
    click_link(driver, "Edit profile", within="main")
    driver.find_element(By.ID, "photo").send_keys(files["fake"])
    submit(driver, form_with(driver, "#photo"))
    expect_page(driver, "/profile/photo", 415, what="uploading a text file named .png")
    message = text_of(driver, "#photo-error")
    check("not a JPEG, PNG, WebP, GIF or HEIC" in message, f"no 415 message beside the photo field: {message!r}")
    screenshot(driver, "profile-edit-415")
    expect_no_sideways_scroll(driver)

    # Over the server's upload limit (21 MiB): the body is never read, yet the browser, which sends
    # it whole before reading, gets the edit page with the message beside the field.
    driver.find_element(By.ID, "photo").send_keys(files["huge"])
    submit(driver, form_with(driver, "#photo"))
    expect_page(driver, "/profile/photo", 413, what="uploading a 22 MiB file")
    message = text_of(driver, "#photo-error")
    check("larger than 20 MiB" in message, f"no 413 message beside the photo field: {message!r}")
    check(driver.find_elements(By.CSS_SELECTOR, "header nav"), "the 413 page is not in the layout")
    screenshot(driver, "profile-edit-413")

    submit_button(driver, "Remove photo")
    expect_page(driver, "/users/ada", what="Remove photo")
    check(not driver.find_elements(By.CSS_SELECTOR, "main img.avatar"), "the photo is still shown after removing it")
    check(text_of(driver, "main .avatar.placeholder") == "AL", "the initials placeholder did not come back")
    visit(driver, url + "/")
    check(not driver.find_elements(By.CSS_SELECTOR, "main img"), "a photo is still beside a quote after removing it")

    # Restart on the same data: the edit is still there and the session survives.
    server.stop()
    server = Server(executable, root, data)
    servers.append(server)
    url = server.url  # another port, the same host: the browser still sends its cookie
    visit(driver, url + "/")
    check("My own wording." in text_of(driver, "main blockquote"), "the edit did not survive a restart")
    expect_signed_in(driver, ADA["display_name"])

    # Sign out with the header's button.
    sign_out(driver)
    expect_page(driver, "/", what="Sign out")
    expect_signed_out(driver)

    # Signed out, the pages anyone can read (each audited by expect_page): the list, a search with
    # results and one without, a quote, its history, a profile, sign-up, and a page not found.
    for page, expected_status in (("/quotes/1", 200), ("/quotes/1/history", 200), ("/users/ada", 200),
                                  ("/signup", 200), ("/nowhere", 404)):
        visit(driver, url + page, expected_status=expected_status)
    visit(driver, url + "/quotes")
    for query in ("einstein", "no such words"):
        fill(driver, "search-query", query)
        submit(driver, form_with(driver, "#search-query"))
        expect_page(driver, "/quotes", what=f"searching for {query!r}")

    # Signed out, /profile/edit leads to sign-in; a wrong password first, then the right one.
    visit(driver, url + "/profile/edit", expected_path="/login")
    check(parse_qs(urlsplit(driver.current_url).query).get("return_to") == ["/profile/edit"],
          f"/profile/edit signed out went to {driver.current_url}")
    sign_in(driver, ADA["username"], ADA["password"] + "x")
    expect_page(driver, "/login", 401, what="a wrong password")
    message = text_of(driver, "main [role=alert]")
    check("username and password do not match" in message, f"the wrong-password message is not the generic one: {message!r}")
    check(not driver.find_elements(By.CSS_SELECTOR, "main .field-error"),
          "a wrong password is pinned on one field (it must not say which of the two was wrong)")
    check(value(driver, "username") == ADA["username"], "sign-in lost the username typed")
    check(value(driver, "password") == "", "sign-in wrote the password back into the page")
    screenshot(driver, "sign-in-401")
    sign_in(driver, ADA["username"], ADA["password"])
    expect_page(driver, "/profile/edit", what="signing in with return_to")
    expect_signed_in(driver, ADA["display_name"])

    # The rest of the pages at phone width.
    for page in ("/quotes/1/edit", "/nowhere"):
        visit(driver, url + page, expected_status=404 if page == "/nowhere" else 200)
        expect_no_sideways_scroll(driver)

    # A form whose CSRF token is wrong (a form left open across a restart, or forged): the 403 page.
    visit(driver, url + "/profile/edit")
    form = form_with(driver, "#display_name")
    tokens = form.find_elements(By.CSS_SELECTOR, "input[type=hidden][name=csrf_token]")
    check(len(tokens) == 1, f"the display name form has {len(tokens)} csrf_token fields")
    driver.execute_script("arguments[0].value = 'forged'", tokens[0])
    submit(driver, form)
    check(status(driver) == 403, f"a forged CSRF token got {status(driver)}, not 403")
    expect_page(driver, path(driver), 403, what="a form with a forged CSRF token")
    expect_no_sideways_scroll(driver)

    # Where you are signed in: a second browser (a phone) signs in as Ada; the sessions page lists
    # both, this one marked; Sign out everywhere else signs the phone out at once.
    phone = browser()
    drivers.append(phone)
    visit(phone, url + "/login")
    sign_in(phone, ADA["username"], ADA["password"])
    expect_page(phone, "/", what="signing in on a second browser")
    visit(driver, url + "/profile/edit")
    click_link(driver, "Where you are signed in", within="main")
    expect_page(driver, "/profile/sessions", what="Where you are signed in")
    check("This browser" in text_of(driver, "main .session.current"), "the current session is not marked")
    check(len(driver.find_elements(By.CSS_SELECTOR, "main .session")) == 2, "the sessions page does not list both sessions")
    check("Chrome on Linux" in text_of(driver, "main .session-list"), "no browser and system named on the sessions page")
    screenshot(driver, "profile-sessions")
    expect_no_sideways_scroll(driver)
    submit_button(driver, "Sign out everywhere else")
    expect_page(driver, "/profile/sessions", what="Sign out everywhere else")
    check(len(driver.find_elements(By.CSS_SELECTOR, "main .session")) == 1, "another session is still listed")
    visit(phone, url + "/profile/edit", expected_path="/login")

    # Download your data: the edit page links to the export, which this browser fetches (with its
    # cookies) as a JSON attachment of Ada's profile, never kept by a cache.
    visit(driver, url + "/profile/edit")
    link = driver.find_element(By.LINK_TEXT, "Download your data")
    check(link.get_attribute("href") == url + "/profile/export", "the Download your data link goes elsewhere")
    download = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then(async (r) => done({
            status: r.status, disposition: r.headers.get("Content-Disposition"),
            cache: r.headers.get("Cache-Control"), body: await r.json(),
        })).catch((e) => done({error: String(e)}));
    """, url + "/profile/export")
    check(download.get("status") == 200, f"the export answered {download}")
    check(download.get("disposition") == 'attachment; filename="quotebook-ada.json"' and download.get("cache") == "no-store",
          f"the export is not a private download: {download}")
    body = download.get("body") or {}
    check(body.get("format") == "quotebook-export-1" and body.get("profile", {}).get("username") == "ada",
          f"the export is not Ada's: {body.get('format')}, {body.get('profile')}")
    check(any(v.get("kind") == "restored" for v in body.get("versions", [])), "the export lists no restore of Ada's")

    # Change password: a wrong current password is a 422 beside its field, no password kept; then
    # for real, back on the profile, still signed in.
    click_link(driver, "Change password", within="main")
    expect_page(driver, "/profile/password", what="Change password")
    for field in ("current_password", "password", "password_confirmation"):
        check(driver.find_element(By.CSS_SELECTOR, f"label[for={field}]").text, f"the {field} field has no label")
    new_password = "difference engine 1822"
    fill(driver, "current_password", ADA["password"] + "x")
    fill(driver, "password", new_password)
    fill(driver, "password_confirmation", new_password)
    submit(driver, form_with(driver, "#current_password"))
    expect_page(driver, "/profile/password", 422, what="a wrong current password")
    check("not your current password" in text_of(driver, "#current-password-error"), "no message beside the current password")
    check(all(value(driver, field) == "" for field in ("current_password", "password", "password_confirmation")),
          "the change-password page wrote a password back")
    screenshot(driver, "profile-password-422")
    expect_no_sideways_scroll(driver)
    fill(driver, "current_password", ADA["password"])
    fill(driver, "password", new_password)
    fill(driver, "password_confirmation", new_password)
    submit(driver, form_with(driver, "#current_password"))
    expect_page(driver, "/users/ada", what="changing the password")
    expect_signed_in(driver, ADA["display_name"])
    ADA["password"] = new_password

    # Delete your account, last (nothing after it needs Ada): she adds a quote and signs in on the
    # phone again, then deletes her account from the edit page (a wrong password first: 422 beside
    # the field). Both browsers are signed out, her quote stays, by "a former member" with no
    # link, her profile is gone and her username and password sign no one in.
    visit(driver, url + "/quotes/new")
    fill(driver, "text", "The Analytical Engine weaves algebraic patterns.")
    fill(driver, "author", "Countess of Lovelace")  # not her display name, which must be gone
    submit(driver, form_with(driver, "#text"))
    mine = path(driver)
    check(mine.startswith("/quotes/") and mine != "/quotes/new", f"adding the last quote went to {mine}")
    expect_page(driver, mine, what="adding a quote before deleting the account")
    visit(phone, url + "/login")
    sign_in(phone, ADA["username"], ADA["password"])
    expect_page(phone, "/", what="signing in on the phone again")
    expect_signed_in(phone, ADA["display_name"])

    visit(driver, url + "/profile/edit")
    click_link(driver, "Delete your account", within="main")
    expect_page(driver, "/profile/delete", what="Delete your account")
    check(text_of(driver, "main h1") == "Delete account", f"the delete page's heading is {text_of(driver, 'main h1')!r}")
    check("a former member" in text_of(driver, "main"), "the delete page does not say quotes stay by a former member")
    check(driver.find_element(By.CSS_SELECTOR, "label[for=password]").text, "the delete page's password field has no label")
    check(len(form_with(driver, "#password").find_elements(By.CSS_SELECTOR, "input[type=hidden][name=csrf_token]")) == 1,
          "the delete form has no CSRF token")
    screenshot(driver, "profile-delete")
    expect_no_sideways_scroll(driver)
    fill(driver, "password", ADA["password"] + "x")
    submit(driver, form_with(driver, "#password"))
    expect_page(driver, "/profile/delete", 422, what="deleting the account with a wrong password")
    field = driver.find_element(By.ID, "password")
    check(field.get_attribute("aria-invalid") == "true", "the wrong password field is not aria-invalid")
    check(field.get_attribute("aria-describedby") == "password-error", "the wrong password field is not described by its message")
    check("not your current password" in text_of(driver, "#password-error"), "no message beside the wrong password")
    check(value(driver, "password") == "", "the delete page wrote the password back")
    expect_signed_in(driver, ADA["display_name"])
    screenshot(driver, "profile-delete-422")
    expect_no_sideways_scroll(driver)
    fill(driver, "password", ADA["password"])
    submit(driver, form_with(driver, "#password"))
    expect_page(driver, "/", what="deleting the account, signed out after")
    expect_signed_out(driver)
    visit(phone, url + "/profile/edit", expected_path="/login")
    expect_signed_out(phone)

    visit(driver, url + mine)
    meta = driver.find_element(By.CSS_SELECTOR, "main .meta")
    check("by a former member" in meta.text, f"the quote of a deleted account does not say a former member: {meta.text!r}")
    check(ADA["display_name"] not in text_of(driver, "main"), "the quote page still names the deleted account")
    links = [a.get_attribute("href") for a in meta.find_elements(By.TAG_NAME, "a")]
    check(not links, f"the quote of a deleted account links to {links}")
    visit(driver, url + mine + "/history")
    check("a former member" in text_of(driver, "main .history"), "the history does not show a former member")
    check(ADA["display_name"] not in text_of(driver, "main"), "the history still names the deleted account")
    visit(driver, url + "/users/ada", expected_status=404)
    visit(driver, url + "/login")
    sign_in(driver, ADA["username"], ADA["password"])
    expect_page(driver, "/login", 401, what="signing in to a deleted account, signed out")
    check("username and password do not match" in text_of(driver, "main [role=alert]"),
          "signing in to a deleted account is not the generic refusal")

    # A lockout no stranger can use against its owner (issue 29). Grace signs in from a browser
    # of her own, which gets the signed device cookie, and signs out; a script's five wrong
    # passwords lock her username; Ada's old browser, which never signed in as Grace, meets the
    # lock with the right password; Grace's own browser signs in.
    known = browser()
    drivers.append(known)
    visit(known, url + "/login")
    sign_in(known, GRACE["username"], GRACE["password"])
    expect_page(known, "/", what="Grace signing in from a browser of her own")
    device = [c for c in known.get_cookies() if c["name"] == "quotebook_device"]
    check(len(device) == 1 and device[0].get("httpOnly"), f"no HttpOnly device cookie after signing in: {device}")
    sign_out(known)
    expect_page(known, "/", what="Grace signing out")
    statuses = [script_sign_in(url, GRACE["username"], "a stranger's guess") for _ in range(5)]
    check(statuses == [401] * 5, f"a script's five wrong passwords for grace answered {statuses}")
    visit(driver, url + "/login")
    sign_in(driver, GRACE["username"], GRACE["password"])
    expect_page(driver, "/login", 429, what="the right password from a browser Grace never used, her username locked")
    check("Too many failed tries for this username" in text_of(driver, "main [role=alert]"),
          "the locked sign-in does not say why")
    screenshot(driver, "sign-in-429")
    visit(known, url + "/login")
    sign_in(known, GRACE["username"], GRACE["password"])
    expect_page(known, "/", what="Grace signing in from her own browser while strangers have her username locked")
    expect_signed_in(known, GRACE["display_name"])

    # Writes past an account's allowance (--writes-per-account, 300 in 10 minutes): a script with
    # Grace's session adds quotes until the server refuses one; then her own browser's form is
    # refused too, with the 429 page saying why, and nothing is added.
    added = add_quotes_by_script(known, url, WRITES_PER_ACCOUNT + 1, until_refused=True)
    check(0 < added <= WRITES_PER_ACCOUNT, f"a script added {added} quotes as Grace before a refusal")
    visit(known, url + "/quotes/new")
    fill(known, "text", "One quote too many.")
    fill(known, "author", "Grace Hopper")
    submit(known, form_with(known, "#text"))
    expect_page(known, "/quotes", 429, what="a quote past the account's writes")
    check("Too many changes" in text_of(known, "main h1"), "the refused write's page does not say why")
    check(value(known, "typed-text") == "One quote too many." and value(known, "typed-author") == "Grace Hopper",
          "the refused write's page does not show back what Grace wrote")
    screenshot(known, "write-429")
    visit(known, url + "/quotes?q=too+many")
    check("One quote too many" not in text_of(known, "main"), "the refused quote was added")

    audit.check()

    server.stop()


def add_quotes_by_script(driver, url, count, until_refused=False):
    """Adds `count` quotes through the form's POST with the browser's own cookies, as another
    tab of the same person would: the quickest way to a book longer than a page. With
    `until_refused`, stops at the first 429 (the write limit) instead of failing on it. How many
    were added."""
    import http.client
    import re
    from urllib.parse import urlencode
    address = urlsplit(url)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=WAIT)
    try:
        for number in range(count):
            connection.request("GET", "/quotes/new", headers={"Cookie": cookie})
            form = connection.getresponse()
            page = form.read().decode()
            check(form.status == 200, f"GET /quotes/new by script: {form.status}")
            token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
            body = urlencode({"text": f"Scripted quote number {number + 1}.", "author": "A. Script", "csrf_token": token})
            connection.request("POST", "/quotes", body=body,
                               headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
            answer = connection.getresponse()
            answer.read()
            if until_refused and answer.status == 429:
                return number
            check(answer.status == 303, f"adding quote {number + 1} by script: {answer.status}")
        return count
    finally:
        connection.close()


def script_sign_in(url, username, password):
    """A sign-in sent by a script (no browser, no cookies but the form's): its status."""
    import http.client
    import re
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=WAIT)
    try:
        connection.request("GET", "/login")
        form = connection.getresponse()
        page = form.read().decode()
        cookie = "; ".join(value.split(";", 1)[0] for name, value in form.getheaders() if name.lower() == "set-cookie")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        from urllib.parse import urlencode
        connection.request("POST", "/login", body=urlencode({"username": username, "password": password, "csrf_token": token}),
                           headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def run(doc, prefix, flow, summary):
    """Runs `flow(executable, root, work, drivers, servers)` from the command line (`doc`'s usage
    line names the two arguments) in a fresh temporary directory, printing `summary` when it
    passes. Every browser and server the flow records in `drivers` and `servers` is ended and the
    directory removed whatever happens; a failed check exits 1 with it on standard error."""
    if len(sys.argv) != 3:
        print(doc.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    executable, root = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix=prefix)
    drivers, servers = [], []
    try:
        try:
            flow(executable, root, work, drivers, servers)
            print(summary)
        except TimeoutException as failure:
            raise AssertionError(f"timed out: {failure.msg}")
        finally:
            for driver in drivers:
                try:
                    driver.quit()
                except WebDriverException:
                    pass
            for server in servers:
                server.kill_if_running()
            shutil.rmtree(work, ignore_errors=True)
    except AssertionError as failure:
        print(f"browser test failed: {failure}", file=sys.stderr)
        sys.exit(1)
    except WebDriverException as failure:
        print(f"browser test failed: the browser reported {failure.msg}", file=sys.stderr)
        sys.exit(1)


# --- getting back into an account (issue 30) -------------------------------------------------

ELLA = {"username": "ella", "display_name": "Ella Fitzgerald", "password": "a-tisket a-tasket", "email": "ella@example.org"}


def recovery_flow(executable, root, work, drivers, servers):
    """Sign-up with an address, its link from the mail a real relay received, signing out,
    *Forgot your password?*, the reset link from the mail, a new password, and signing in with it;
    the used link is 410 after."""
    from mail_relay import MailRelay
    relay = MailRelay(os.path.join(work, "relay"))
    try:
        server = Server(executable, root, os.path.join(work, "recovery-data"), arguments=relay.arguments)
        servers.append(server)
        url = server.url
        driver = browser()
        drivers.append(driver)
        visit(driver, url + "/signup")
        check(driver.find_element(By.CSS_SELECTOR, "label[for=email]").text, "the email field has no label")
        fill(driver, "email", ELLA["email"])
        sign_up(driver, ELLA)
        expect_page(driver, "/", what="sign-up with an address")

        confirm = relay.wait_for(ELLA["email"], "Confirm your email address")
        visit(driver, MailRelay.link(confirm, "/email/verify"), expected_path="/email/verify")
        screenshot(driver, "email-verify")
        expect_no_sideways_scroll(driver)
        submit_button(driver, "Confirm my address")
        expect_page(driver, "/profile/edit", what="the address confirmed")
        check(ELLA["email"] in text_of(driver, "main .email-status") and "verified" in text_of(driver, "main .email-status"),
              "the edit page does not show the verified address")
        screenshot(driver, "profile-edit-email")
        expect_no_sideways_scroll(driver)
        visit(driver, url + "/profile/email")
        screenshot(driver, "profile-email")
        expect_no_sideways_scroll(driver)

        sign_out(driver)
        expect_page(driver, "/", what="signing out")
        visit(driver, url + "/login")
        click_link(driver, "Forgot your password?", within="main")
        expect_page(driver, "/password/forgot", what="Forgot your password?")
        screenshot(driver, "password-forgot")
        expect_no_sideways_scroll(driver)
        fill(driver, "email", ELLA["email"])
        submit_button(driver, "Send me a link")
        expect_page(driver, "/password/forgot", what="asking for a reset link")
        check("on its way" in text_of(driver, "main [role=status]"), "the forgot page does not say a link is on its way")

        reset_mail = relay.wait_for(ELLA["email"], "Reset your Quotebook password")
        reset_link = MailRelay.link(reset_mail, "/password/reset")
        visit(driver, reset_link, expected_path="/password/reset")
        screenshot(driver, "password-reset")
        expect_no_sideways_scroll(driver)
        new_password = "a new tisket for ella"
        fill(driver, "password", new_password)
        fill(driver, "password_confirmation", new_password)
        submit_button(driver, "Set new password")
        expect_page(driver, "/login", what="setting the new password")
        expect_signed_out(driver)
        sign_in(driver, ELLA["username"], ELLA["password"])
        expect_page(driver, "/login", 401, what="the old password after the reset")
        sign_in(driver, ELLA["username"], new_password)
        expect_page(driver, "/", what="signing in with the new password")
        expect_signed_in(driver, ELLA["display_name"])
        relay.wait_for(ELLA["email"], "password was changed")

        visit(driver, reset_link, expected_path="/password/reset", expected_status=410)
        check("no longer valid" in text_of(driver, "main h1"), "a used link does not say it is no longer valid")
        screenshot(driver, "link-dead")
        expect_no_sideways_scroll(driver)
        audit.check()
        server.stop()
    finally:
        relay.stop()


# --- moderation (issue 31) -----------------------------------------------------------------------

MOE = {"username": "moe", "password": "moderating since 1999"}


def moderation_flow(executable, root, work, drivers, servers):
    """The operator makes Moe a moderator (`quotebook user role`, before the server starts); Kim
    adds a quote, Lou reports it, Moe finds it on the moderation page and hides it, and it is
    gone for a visitor: home, the list, search and its own page (404). Moe still sees it marked
    hidden, and suspends Kim: her session ends, her sign-in answers 403 saying so, and her
    profile tells everyone."""
    import subprocess
    data = os.path.join(work, "moderation-data")
    for arguments, stdin in ((["user", "add", MOE["username"]], MOE["password"] + "\n"), (["user", "role", MOE["username"], "moderator"], "")):
        result = subprocess.run([executable, *arguments, "--data", data], input=stdin.encode(), capture_output=True, timeout=60)
        check(result.returncode == 0, f"quotebook {' '.join(arguments)} failed: {result.stderr.decode()}")
    server = Server(executable, root, data)
    servers.append(server)
    url = server.url
    kim, lou, moe, visitor = browser(), browser(), browser(), browser()
    drivers.extend([kim, lou, moe, visitor])
    for driver, person in ((kim, {"username": "kim", "display_name": "Kim", "password": "kim's password 1"}),
                           (lou, {"username": "lou", "display_name": "Lou", "password": "lou's password 1"})):
        visit(driver, url + "/signup")
        sign_up(driver, person)
        expect_page(driver, "/", what=f"{person['username']} signing up")
        check("Moderation" not in nav_items(driver), "a member's navigation offers Moderation")
    visit(kim, url + "/quotes/new")
    fill(kim, "text", "Buy cheap watches at example.com")
    fill(kim, "author", "A spammer")
    submit(kim, form_with(kim, "#text"))
    quote = path(kim)
    check(quote.startswith("/quotes/"), f"adding a quote landed on {kim.current_url}")

    visit(lou, url + quote)
    lou.find_element(By.CSS_SELECTOR, "main details.report summary").click()
    fill(lou, "report-reason", "Spam: an advert, not a quote")
    submit_button(lou, "Send report")
    expect_page(lou, quote, what="sending a report")
    check("Thank you" in text_of(lou, "main [role=status]:not([hidden])"), "no thanks after reporting")
    screenshot(lou, "quote-reported")
    # The 303 named the quote's own address; the thanks came once, in a cookie the page deleted.
    lou.refresh()
    expect_page(lou, quote, what="the reported quote, reloaded")
    check("Thank you" not in text_of(lou, "main"), "the thanks are shown again on a reload")

    visit(moe, url + "/login")
    sign_in(moe, MOE["username"], MOE["password"])
    expect_page(moe, "/", what="the moderator signing in")
    click_link(moe, "Moderation", within="header nav")
    expect_page(moe, "/moderation", what="the moderation page")
    check("Spam: an advert, not a quote" in text_of(moe, "main"), "the report is not on the moderation page")
    screenshot(moe, "moderation")
    expect_no_sideways_scroll(moe)
    fill(moe, moe.find_element(By.CSS_SELECTOR, "main textarea[id^=hide-reason]").get_attribute("id"), "An advert")
    submit_button(moe, "Hide quote")
    expect_page(moe, "/moderation", what="hiding the quote")
    visit(moe, url + "/moderation/log")
    check("hid quote" in text_of(moe, "main"), "the log does not show the hiding")
    screenshot(moe, "moderation-log")
    expect_no_sideways_scroll(moe)
    visit(moe, url + "/moderation/hidden")
    check("Buy cheap watches" in text_of(moe, "main") and "An advert" in text_of(moe, "main"),
          "the hidden quotes page does not list the hidden quote with its reason")
    check(moe.find_elements(By.XPATH, "//main//button[normalize-space()='Bring back']"), "no way to bring the quote back")
    screenshot(moe, "moderation-hidden")
    expect_no_sideways_scroll(moe)

    visit(visitor, url + "/")
    check("Buy cheap watches" not in text_of(visitor, "main"), "the hidden quote is still on the home page")
    visit(visitor, url + "/quotes?q=watches")
    check("Buy cheap watches" not in text_of(visitor, "main"), "the hidden quote is still found")
    visit(visitor, url + quote, expected_status=404)
    visit(lou, url + "/moderation", expected_status=403)

    # The moderator still sees it, marked hidden with the reason, then suspends its author from
    # their profile: Kim's session ends, her sign-in is refused (403) saying why, and everyone
    # sees on her profile that the account is suspended.
    visit(moe, url + quote)
    check("Hidden from everyone but moderators" in text_of(moe, "main") and "An advert" in text_of(moe, "main"),
          "the moderator's page of the hidden quote does not say it is hidden and why")
    screenshot(moe, "quote-hidden")
    expect_no_sideways_scroll(moe)
    visit(moe, url + "/users/kim")
    fill(moe, "suspend-reason", "Posting adverts")
    submit_button(moe, "Suspend account")
    expect_page(moe, "/users/kim", what="suspending Kim")
    check("This account is suspended" in text_of(moe, "main"), "Kim's profile does not say she is suspended")
    check(moe.find_elements(By.XPATH, "//main//button[normalize-space()='Lift suspension']"), "no way to lift the suspension")
    screenshot(moe, "profile-moderation")
    expect_no_sideways_scroll(moe)
    visit(kim, url + "/quotes/new", expected_path="/login")
    expect_signed_out(kim)
    sign_in(kim, "kim", "kim's password 1")
    expect_page(kim, "/login", expected_status=403, what="a suspended person signing in")
    check("suspended" in text_of(kim, "main [role=alert]") and "Posting adverts" in text_of(kim, "main"),
          "the sign-in page does not say the account is suspended, and why")
    screenshot(kim, "signin-suspended")
    expect_no_sideways_scroll(kim)
    visit(visitor, url + "/users/kim")
    check("This account is suspended" in text_of(visitor, "main"), "a visitor is not told Kim is suspended")
    check("Buy cheap watches" not in text_of(visitor, "main"), "the hidden quote is on its author's profile")
    visit(moe, url + "/moderation/log")
    check("suspended Kim (kim)" in text_of(moe, "main"), "the log does not show the suspension")
    audit.check()
    server.stop()


def flow_with_files(executable, root, work, drivers, servers):
    """``flow`` with its data directory and the three upload files made in `work`."""
    files = {"photo": os.path.join(work, "photo.jpg"), "fake": os.path.join(work, "notes.png"),
             "huge": os.path.join(work, "huge.jpg")}
    phone_jpeg(root, files["photo"])
    with open(files["huge"], "wb") as out:
        out.write(b"\xff\xd8\xff\xe0" + bytes(22 * 1024 * 1024))
    with open(files["fake"], "w") as out:
        out.write("This is a text file, not a picture.\n")
    flow(executable, root, os.path.join(work, "data"), files, drivers, servers)
    recovery_flow(executable, root, work, drivers, servers)
    moderation_flow(executable, root, work, drivers, servers)


if __name__ == "__main__":
    run(__doc__, "quotebook-browser-", flow_with_files,
        "browser: sign-up (422, then for real), edit (422, escaping, emoji, 409 between two people), "
        "favourite, add (422, then for real), search, history and restore, delete, photo (upload, 415, "
        "remove), the list and a profile past a page (Older, Newer), restart keeping the session, sign out, sign in (401, then return_to), sessions (sign out "
        "everywhere else), export download, change password (422, then for real), delete account (422, then for real: both "
        "browsers signed out, a former member, 404, 401), a lockout (429 in a browser the account "
        "does not know, its own signs in), a write past the account's allowance (429, nothing added), an address verified and a password reset by mailed links, a report "
        "and a hidden quote, its author suspended (403 at sign-in), phone layout "
        "and axe-core on every page (signed in and out, 375 and 1280 px) all as expected")
