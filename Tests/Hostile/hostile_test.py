#!/usr/bin/env python3
"""Hostile clients against a live Quotebook (SPEC.md "Hostile clients", issue 16).

usage: hostile_test.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT [--only NAME,...]

NAME: slow-bodies, connection-flood, stream-flood, signin-flood, lockout, photo-flood,
forgot-flood, write-flood, session-flood, inputs, signin-race, forgot-race, photo-churn, report-flood, moderation-forbidden.

Starts the (release) executable on a free loopback port with a fresh data directory. Each attack
below runs from loopback addresses of its own (in 127/8 but not 127.0.0.1; Linux routes all of
127/8 to lo) while a legitimate visitor on 127.0.0.1 signs up, signs in, saves a quote, uploads a photo
and reads pages. Every step of the visitor must succeed: its sign-in within 2 s, its page reads
within PAGE_LIMIT. After all attacks the server's RSS and open descriptors must be back near
where they started. The server runs with --photo-uploads-per-account 1000000: the visitor uploads a
photo every round, more than a person does in an hour (the limit itself has Swift tests).
write-flood: three accounts from one address add quotes of 1,000 four-byte characters from four
connections at once: only 303 and 429, at most 600 taken from the address and 300 an account.
session-flood: one account signs in with its right password again and again from two connections,
never signing out; the server runs with --sessions-per-account 20, and its sessions page then lists
at most 20.
Two moderators are made (`quotebook user add` and `user role`) in the data directory before the
server starts. report-flood: 40 accounts, each from its own 127.0.2.x, report 100 quotes each, 3 at
once per account, all together: only 303 and 429, at most 10 reports taken per account (exactly
those in the queue), while a moderator's GET /moderation and a visitor's GET / answer with p99
under 1 s. moderation-forbidden: a member is refused (403) on every moderation route, a moderator
cannot suspend or revert a moderator, a report without csrf_token is a 403 and not kept, a
10,000-character reason a 422, and markup in reasons is shown escaped.

Every loop is bounded in count and in time; everything targets 127.0.0.0/8 only. Nothing but the
standard library is needed. Exit status 0 when every check passed.
"""
import http.client
import math
import os
import random
import re
import select
import socket
import struct
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from quotebook_server import Server, check  # noqa: E402

LEGIT = "127.0.0.1"
PASSWORD = "correct horse battery"
PAGE_LIMIT = 1.0  # seconds: a page read during an attack (a quiet read takes ~1 ms)
SIGN_IN_LIMIT = 2.0
ATTACK_SECONDS = 12
TOKEN = re.compile(rb'name="csrf_token" value="([^"]+)"')


def tiny_png(colour=b"\xff\x00\x00"):
    """A valid 2x2 PNG of one colour, made here."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + colour * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class Visitor:
    """A browser-like client: keep-alive connection from `source`, cookie jar, CSRF token."""

    def __init__(self, server, source=LEGIT, timeout=10):
        self.server, self.source, self.timeout = server, source, timeout
        self.cookies = {}
        self.token = None
        self.connection = None

    def _connect(self):
        self.connection = http.client.HTTPConnection(
            self.server.host, self.server.port, timeout=self.timeout, source_address=(self.source, 0))

    def request(self, method, path, body=None, headers=None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in range(2):
            if self.connection is None:
                self._connect()
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.connection.close()
                self.connection = None
                if attempt == 1:
                    raise
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                cookie_name, _, rest = value.partition("=")
                cookie_value = rest.split(";", 1)[0]
                if "Max-Age=0" in value:
                    self.cookies.pop(cookie_name, None)
                else:
                    self.cookies[cookie_name] = cookie_value
        found = TOKEN.search(data)
        if found:
            self.token = found.group(1).decode()
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), data

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, fields):
        from urllib.parse import urlencode
        body = urlencode({"csrf_token": self.token or "", **fields})
        return self.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def upload(self, path, field, filename, content, content_type):
        boundary = "----hostile%08x" % random.getrandbits(32)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{self.token}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
                f"Content-Type: {content_type}\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        return self.request("POST", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Legit:
    """The visitor whose every step must succeed while an attack runs."""

    def __init__(self, server, username):
        self.server, self.username = server, username
        self.visitor = Visitor(server)
        self.timings = {}
        self.quiet_page_median = 0.001

    def timed(self, name, call):
        start = time.monotonic()
        result = call()
        self.timings.setdefault(name, []).append(time.monotonic() - start)
        return result

    def sign_up(self):
        self.visitor.get("/signup")
        status, headers, _ = self.visitor.post("/signup", {
            "username": self.username, "display_name": self.username.title(),
            "password": PASSWORD, "password_confirmation": PASSWORD})
        check(status == 303, f"legit sign-up of {self.username}: {status}")

    def round(self, label):
        """Sign out, sign in, save a quote, upload a photo, read pages; every step checked."""
        v = self.visitor
        v.get("/")
        check(v.post("/logout", {})[0] == 303, f"{label}: sign-out")
        v.get("/login")
        status, _, _ = self.timed("sign-in", lambda: v.post("/login", {"username": self.username, "password": PASSWORD}))
        check(status == 303, f"{label}: sign-in answered {status}")
        check(self.timings["sign-in"][-1] < SIGN_IN_LIMIT,
              f"{label}: sign-in took {self.timings['sign-in'][-1]:.2f} s (limit {SIGN_IN_LIMIT} s)")
        v.get("/quotes/new")
        status, headers, _ = self.timed("save", lambda: v.post("/quotes", {
            "text": f"Said during {label} at {time.time():.3f}", "author": "Legit"}))
        check(status == 303, f"{label}: saving a quote answered {status}")
        v.get("/profile/edit")
        status, _, _ = self.timed("photo", lambda: v.upload("/profile/photo", "photo", "me.png", tiny_png(), "image/png"))
        check(status == 303, f"{label}: uploading a photo answered {status}")
        for path in ("/", "/quotes", "/quotes/1", f"/users/{self.username}"):
            status, _, _ = self.timed("page", lambda: v.get(path))
            check(status == 200, f"{label}: GET {path} answered {status}")
            check(self.timings["page"][-1] < PAGE_LIMIT,
                  f"{label}: GET {path} took {self.timings['page'][-1]:.3f} s (limit {PAGE_LIMIT} s)")


class Attack:
    """Threads that attack until `stop` is set or their own deadline passes."""

    def __init__(self, name, threads):
        self.name, self.threads = name, threads
        self.stop = threading.Event()
        self.counts = {}
        self.lock = threading.Lock()

    def count(self, key, by=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + by

    def run(self, target, deadline):
        def loop(index):
            try:
                target(self, index, deadline)
            except Exception as error:  # an attacker's failure is counted, not fatal
                self.count(f"attacker error {type(error).__name__}")
        workers = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(self.threads)]
        for worker in workers:
            worker.start()
        return workers


def raw_connect(server, source, timeout=5):
    sock = socket.create_connection((server.host, server.port), timeout=timeout, source_address=(source, 0))
    return sock


def read_status(sock):
    """The status of the next response on `sock`, or None when it closed without one."""
    data = b""
    while b"\r\n" not in data:
        try:
            piece = sock.recv(4096)
        except (socket.timeout, ConnectionResetError):
            return None
        if not piece:
            return None
        data += piece
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def presession(server, source):
    """A pre-session cookie and its token, as anyone gets from GET /login."""
    visitor = Visitor(server, source)
    visitor.get("/login")
    visitor.close()
    return visitor.cookies, visitor.token


# --- the attacks ---------------------------------------------------------------------------


def slow_bodies(attack, index, deadline):
    """Declares a 3 MiB multipart body to POST /login (with a pre-session cookie, so the body is
    wanted) and trickles a byte a second; when cut off, starts again."""
    source = "127.0.0.2"
    cookies, _ = presession(attack.server, source)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    while time.monotonic() < deadline and not attack.stop.is_set():
        sock = raw_connect(attack.server, source)
        sock.sendall((f"POST /login HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\n"
                      "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 3145728\r\n\r\n").encode())
        attack.count("bodies started")
        sock.settimeout(1.0)
        while time.monotonic() < deadline and not attack.stop.is_set():
            try:
                sock.send(b"x")
                data = sock.recv(4096)
            except socket.timeout:
                continue
            except (BrokenPipeError, ConnectionResetError):
                attack.count("cut off (reset)")
                break
            if data:
                status = data.split(b" ", 2)[1].decode(errors="replace") if data.startswith(b"HTTP/") else "?"
                attack.count(f"answered {status}")
            else:
                attack.count("cut off (closed)")
            break
        sock.close()


def connection_flood(attack, index, deadline):
    """Opens as many connections as it can from one address (bounded at 400) and holds those the
    server keeps: a refused one is answered 503 and closed, or reset."""
    source = "127.0.0.3"
    opened = []
    for _ in range(400):
        if time.monotonic() >= deadline or attack.stop.is_set():
            break
        try:
            opened.append(raw_connect(attack.server, source, timeout=2))
        except OSError:
            attack.count("connect failed")
    time.sleep(1)  # the server has accepted (and refused) what it will by now
    held = []
    for sock in opened:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            held.append(sock)  # accepted and idle
            continue
        try:
            data = sock.recv(4096)
            attack.count("refused 503" if data.startswith(b"HTTP/1.1 503") else "refused closed")
        except ConnectionResetError:
            attack.count("refused reset")
        sock.close()
    attack.count("held", len(held))
    while time.monotonic() < deadline and not attack.stop.is_set():
        time.sleep(0.2)
    for sock in held:
        sock.close()


def stream_flood(attack, index, deadline):
    """Opens up to 60 live-page event streams from one address and holds them."""
    source = "127.0.0.4"
    held = []
    for _ in range(60):
        if time.monotonic() >= deadline or attack.stop.is_set():
            break
        sock = raw_connect(attack.server, source)
        sock.sendall(b"GET /quotes/1/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        status = read_status(sock)
        attack.count(f"stream {status}")
        if status == 200:
            held.append(sock)
        else:
            sock.close()
    while time.monotonic() < deadline and not attack.stop.is_set():
        time.sleep(0.2)
    for sock in held:
        sock.close()


def lockout(attack, index, deadline):
    """Wrong passwords for the legitimate visitor's username from three addresses of their own,
    as fast as each address's allowance lets: the username stays locked for every browser but the
    visitor's own, which carries the signed device cookie of its account (issue 29). The first
    thread, once the lock holds, tries the right password from a fourth address: it must be 429."""
    source = f"127.0.0.{10 + index}"
    visitor = Visitor(attack.server, source)
    visitor.get("/login")
    probed = index != 0
    while time.monotonic() < deadline and not attack.stop.is_set():
        status, _, _ = visitor.post("/login", {"username": attack.target, "password": "a guess"})
        attack.count(f"guess {status}")
        if status == 429 and not probed:
            stranger = Visitor(attack.server, "127.0.0.13")
            stranger.get("/login")
            right, _, _ = stranger.post("/login", {"username": attack.target, "password": PASSWORD})
            stranger.close()
            attack.count(f"a stranger's right password {right}")
            probed = True
        if status in (429, 503):
            time.sleep(0.05)  # an attacker may well not wait; the bound on this loop's rate is ours
    visitor.close()


_FLOOD_PNG = []


def flood_png():
    """A 7000 x 7000 PNG of one colour: 49 megapixels, just under the limit, which deflate packs
    into about 150 KB, so each upload costs its sender nothing and the server seconds of decoding."""
    if not _FLOOD_PNG:
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
        side = 7000
        compressor = zlib.compressobj(6)
        row = b"\x00" + b"\x20\x60\xa0" * side
        data = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
        _FLOOD_PNG.append(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                          + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return _FLOOD_PNG[0]


_FLOODERS = []


def prepare_photo_flood(server):
    """A new flooding account (one per run of the attack), signed up from its own address; its
    cookies and token."""
    _FLOODERS.append(f"flooder{len(_FLOODERS) + 1}")
    flooder = Visitor(server, "127.0.0.14")
    flooder.get("/signup")
    status, _, _ = flooder.post("/signup", {"username": _FLOODERS[-1], "display_name": "Flooder",
                                            "password": PASSWORD, "password_confirmation": PASSWORD})
    check(status == 303, f"photo-flood: the flooder's sign-up answered {status}")
    flooder.get("/profile/edit")
    flooder.close()
    flood_png()
    return flooder.cookies, flooder.token


def photo_flood(attack, index, deadline):
    """One account, from its own address, uploading 49-megapixel PNGs from four threads at once:
    each takes the photo pool seconds. Past its share (one job a person) it is refused at once."""
    visitor = Visitor(attack.server, "127.0.0.14", timeout=60)
    visitor.cookies, visitor.token = dict(attack.prepared[0]), attack.prepared[1]
    while time.monotonic() < deadline and not attack.stop.is_set():
        status, _, _ = visitor.upload("/profile/photo", "photo", "huge.png", flood_png(), "image/png")
        attack.count(f"upload {status}")
        if status in (429, 503):
            time.sleep(0.05)
    visitor.close()


def signin_flood(attack, index, deadline):
    """A loop of wrong sign-ins for random usernames from one address, one cookie and token."""
    source = "127.0.0.5"
    visitor = Visitor(attack.server, source)
    visitor.get("/login")
    while time.monotonic() < deadline and not attack.stop.is_set():
        name = "nobody%06d" % random.randrange(10**6)
        status, headers, _ = visitor.post("/login", {"username": name, "password": "wrong password"})
        attack.count(f"sign-in {status}")
        if status in (429, 503):
            time.sleep(0.05)  # an attacker may well not wait; the bound on this loop's rate is ours
    visitor.close()


def forgot_flood(attack, index, deadline):
    """The forgot-password form hammered from one address, for addresses nobody has (issue 30):
    ten an hour are kept, every other one is a 429 at once, and nothing is mailed meanwhile (the
    server runs without --smtp: each mail would go to its log)."""
    visitor = Visitor(attack.server, "127.0.0.15")
    visitor.get("/password/forgot")
    while time.monotonic() < deadline and not attack.stop.is_set():
        address = "nobody%06d@example.org" % random.randrange(10**6)
        status, _, _ = visitor.post("/password/forgot", {"email": address})
        attack.count(f"forgot {status}")
        if status in (429, 503):
            time.sleep(0.01)  # an attacker may well not wait; the bound on this loop's rate is ours
    visitor.close()


WRITE_FLOOD_ACCOUNTS = 3
WRITES_PER_ACCOUNT = 300  # the server's defaults (--writes-per-account, --writes-per-client)
WRITES_PER_CLIENT = 600
_WRITE_FLOODERS = []


def prepare_write_flood(server):
    """WRITE_FLOOD_ACCOUNTS new accounts, signed up from an address of the attack's own (a new one
    each run, as Benchmarks/tools/under_attack.py runs it again within the limits' window); the
    address, and each account's name, cookies and token."""
    source = f"127.0.4.{len(_WRITE_FLOODERS) // WRITE_FLOOD_ACCOUNTS + 1}"
    accounts = []
    for _ in range(WRITE_FLOOD_ACCOUNTS):
        _WRITE_FLOODERS.append(f"writer{len(_WRITE_FLOODERS) + 1}")
        writer = signed_up(server, _WRITE_FLOODERS[-1], "Writer", source)
        writer.get("/quotes/new")
        writer.close()
        accounts.append((_WRITE_FLOODERS[-1], writer.cookies, writer.token))
    return source, accounts


def write_flood(attack, index, deadline):
    """Quotes of 1,000 four-byte characters added as fast as the server answers, by the attack's
    accounts from one address, on four connections: without a limit one client added thousands
    a second, growing the data and the server's memory by megabytes a second (--writes-per-account,
    --writes-per-client)."""
    source, accounts = attack.prepared
    name, cookies, token = accounts[index % len(accounts)]
    visitor = Visitor(attack.server, source, timeout=30)
    visitor.cookies, visitor.token = dict(cookies), token
    text = "\U0001F30A" * 1000
    number = 0
    while time.monotonic() < deadline and not attack.stop.is_set():
        number += 1
        status, _, _ = visitor.post("/quotes", {"text": f"{number} {text}"[:1000], "author": name})
        attack.count(f"write {status}")
        attack.count(f"{name} {status}")
        if status in (429, 503):
            time.sleep(0.01)  # an attacker may well not wait; the bound on this loop's rate is ours
    visitor.close()


SESSION_FLOOD_SOURCE = "127.0.0.17"
SESSIONS_PER_ACCOUNT = 20  # --sessions-per-account in SERVER_ARGUMENTS (the default is 100)
_SESSION_FLOODERS = []


def prepare_session_flood(server):
    """A new account (one per run of the attack), signed up from the attack's address: its name."""
    _SESSION_FLOODERS.append(f"signer{len(_SESSION_FLOODERS) + 1}")
    signed_up(server, _SESSION_FLOODERS[-1], "Signer", SESSION_FLOOD_SOURCE).close()
    return _SESSION_FLOODERS[-1]


def session_flood(attack, index, deadline):
    """One account signing in with its right password again and again from two connections (its
    address's share of the hashing pool), never signing out: each sign-in used to keep a session
    row for 30 days. The first thread then counts the sessions its page lists."""
    name = attack.prepared
    try:
        visitor = Visitor(attack.server, SESSION_FLOOD_SOURCE)
        while time.monotonic() < deadline and not attack.stop.is_set():
            visitor.cookies = {}
            visitor.get("/login")
            status, _, _ = visitor.post("/login", {"username": name, "password": PASSWORD})
            attack.count(f"sign-in {status}")
            if status in (429, 503):
                time.sleep(0.05)
        visitor.close()
    finally:
        attack.count("signers done")
    if index != 0:
        return
    # Once both have stopped (within run_attack's wait for its threads), a fresh sign-in and its
    # page: each other session has a Sign out form, this browser's has none.
    waited = time.monotonic() + 10
    while attack.counts.get("signers done", 0) < attack.threads and time.monotonic() < waited:
        time.sleep(0.05)
    visitor = Visitor(attack.server, SESSION_FLOOD_SOURCE)
    visitor.get("/login")
    status, _, _ = visitor.post("/login", {"username": name, "password": PASSWORD})
    check(status == 303, f"session-flood: the last sign-in answered {status}")
    status, _, page = visitor.get("/profile/sessions")
    attack.count(f"sessions page {status}")
    attack.count("sessions listed", page.count(b'/end"') + 1)
    visitor.close()


ATTACKS = {
    "slow-bodies": (slow_bodies, 12),
    "connection-flood": (connection_flood, 1),
    "stream-flood": (stream_flood, 1),
    "signin-flood": (signin_flood, 4),
    "lockout": (lockout, 3),
    "photo-flood": (photo_flood, 4),
    "forgot-flood": (forgot_flood, 4),
    "write-flood": (write_flood, 4),
    "session-flood": (session_flood, 2),
}

# The cases that are not attacks on the legitimate visitor, run after them in this order.
CASES = ("inputs", "signin-race", "forgot-race", "photo-churn", "report-flood", "moderation-forbidden")

# What an attack needs made before it starts (an account of its own), by name.
PREPARE = {"photo-flood": prepare_photo_flood, "write-flood": prepare_write_flood, "session-flood": prepare_session_flood}

# The server's options for these runs: a visitor uploading every round needs more than an hour's 20.
SERVER_ARGUMENTS = ["--photo-uploads-per-account", "1000000", "--sessions-per-account", str(SESSIONS_PER_ACCOUNT)]


def start_attack(server, legit, name, deadline):
    """The attack `name` against `server`, aimed at `legit`'s account where it aims at one, started."""
    target, threads = ATTACKS[name]
    attack = Attack(name, threads)
    attack.server = server
    attack.target = legit.username
    attack.prepared = PREPARE[name](server) if name in PREPARE else None
    return attack, attack.run(target, deadline)


def process_figures(pid):
    """(RSS in kB, open descriptors) of the server process."""
    rss = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def run_attack(server, legit, name, results):
    deadline = time.monotonic() + ATTACK_SECONDS
    attack, workers = start_attack(server, legit, name, deadline)
    time.sleep(3)  # let the attack take hold
    first_page = len(legit.timings.get("page", []))
    rounds = 0
    while rounds < 2 or time.monotonic() < deadline - 1:  # the whole attack long, at least twice
        rounds += 1
        legit.round(f"{name} #{rounds}")
        time.sleep(0.5)
    attack.stop.set()
    for worker in workers:
        worker.join(timeout=ATTACK_SECONDS + 10)
        check(not worker.is_alive(), f"{name}: an attacker thread did not stop")
    during = sorted(legit.timings["page"][first_page:])
    median = during[len(during) // 2]
    # Reads at their usual latency: the median within 5x the quiet one (plus 5 ms for a shared
    # machine's noise), besides every single read under PAGE_LIMIT.
    check(median <= 5 * legit.quiet_page_median + 0.005,
          f"{name}: page reads' median {median * 1000:.2f} ms, quiet {legit.quiet_page_median * 1000:.2f} ms")
    results[name] = dict(attack.counts)
    print(f"  {name}: legit visitor fine; attacker saw {dict(sorted(attack.counts.items()))}", flush=True)
    return attack.counts


def check_attack_outcomes(name, counts):
    if name == "slow-bodies":
        cut = sum(v for k, v in counts.items() if k.startswith("answered 408") or k.startswith("cut off"))
        check(cut > 0, f"slow-bodies: no trickling body was cut off: {counts}")
    elif name == "connection-flood":
        refused = sum(v for k, v in counts.items() if k.startswith("refused"))
        check(refused > 0, f"connection-flood: 400 connections from one address were all kept: {counts}")
        check(counts.get("held", 0) <= 256, f"connection-flood: more than 256 held: {counts}")
    elif name == "stream-flood":
        check(counts.get("stream 200", 0) <= 32, f"stream-flood: more than 32 streams from one address: {counts}")
        check(counts.get("stream 503", 0) > 0, f"stream-flood: no stream refused: {counts}")
    elif name == "lockout":
        check(counts.get("a stranger's right password 429", 0) == 1,
              f"lockout: the username was not locked for a browser it does not know: {counts}")
        check(counts.get("guess 401", 0) <= 5 * 2, f"lockout: more than 5 guesses a minute were checked: {counts}")
    elif name == "forgot-flood":
        check(counts.get("forgot 200", 0) <= 10, f"forgot-flood: more than 10 requests an hour kept from one address: {counts}")
        check(counts.get("forgot 429", 0) > 0, f"forgot-flood: nothing refused: {counts}")
        check(all(k in ("forgot 200", "forgot 429") for k in counts), f"forgot-flood: {counts}")
    elif name == "session-flood":
        check(counts.get("sign-in 303", 0) > SESSIONS_PER_ACCOUNT, f"session-flood: too few sign-ins to test the limit: {counts}")
        check(counts.get("sessions page 200", 0) == 1, f"session-flood: no sessions page: {counts}")
        check(1 <= counts.get("sessions listed", 0) <= SESSIONS_PER_ACCOUNT,
              f"session-flood: more than {SESSIONS_PER_ACCOUNT} sessions kept for one account: {counts}")
    elif name == "write-flood":
        check(0 < counts.get("write 303", 0) <= WRITES_PER_CLIENT,
              f"write-flood: more than {WRITES_PER_CLIENT} writes taken from one address: {counts}")
        check(counts.get("write 429", 0) > 0, f"write-flood: nothing refused: {counts}")
        check(all(k.startswith("writer") or k in ("write 303", "write 429") for k in counts), f"write-flood: {counts}")
        for key, value in counts.items():
            if key.startswith("writer") and key.endswith(" 303"):
                check(value <= WRITES_PER_ACCOUNT, f"write-flood: {key.split()[0]} had {value} writes taken: {counts}")
    elif name == "photo-flood":
        check(counts.get("upload 503", 0) > 0, f"photo-flood: four uploads at once were all taken: {counts}")
        check(all(k in ("upload 303", "upload 503") for k in counts), f"photo-flood: {counts}")


def hostile_inputs(server):
    """NUL, control characters and bidirectional overrides: 422, never 500."""
    visitor = Visitor(server, "127.0.0.9")
    visitor.get("/signup")
    status, _, _ = visitor.post("/signup", {"username": "nuller", "display_name": "Nul",
                                            "password": "aaaaaaaa\x00", "password_confirmation": "aaaaaaaa\x00"})
    check(status == 422, f"a NUL in the sign-up password answered {status}")
    status, _, _ = visitor.post("/signup", {"username": "bidi", "display_name": "evil\u202egnp.exe",
                                            "password": PASSWORD, "password_confirmation": PASSWORD})
    check(status == 422, f"a right-to-left override in a display name answered {status}")
    visitor.close()
    print("  inputs: NUL and bidirectional override refused with 422", flush=True)


def photo_churn(server, data):
    """One account uploads 30 different photos: the book keeps one photo per person, so a loop
    of uploads cannot fill the disk."""
    import sqlite3
    churner = Legit(server, "churner")
    churner.visitor.source = "127.0.0.8"
    churner.sign_up()
    for index in range(30):
        churner.visitor.get("/profile/edit")
        status, _, _ = churner.visitor.upload(
            "/profile/photo", "photo", "p.png", tiny_png(bytes([index, 255 - index, 7])), "image/png")
        check(status == 303, f"photo churn: upload {index} answered {status}")
    churner.visitor.close()
    database = sqlite3.connect(f"file:{os.path.join(data, 'quotebook.sqlite3')}?mode=ro", uri=True)
    try:
        stored = database.execute("SELECT count(*) FROM photo").fetchone()[0]
    finally:
        database.close()
    # The legitimate visitor's photo, the churner's and each flooder's, each a 512 px and a 96 px
    # file: nothing else may be kept.
    allowed = 2 * (2 + len(_FLOODERS))
    check(stored <= allowed, f"photo churn: {stored} photos stored after 30 uploads by one person (at most {allowed})")
    print(f"  photo churn: 30 uploads by one person leave {stored} photos stored in all", flush=True)


def signin_race(server):
    """60 wrong passwords for one username at once: at most 5 reach the hash; then even the right
    password answers 429."""
    owner = Legit(server, "racetarget")
    owner.sign_up()
    owner.visitor.close()
    cookies, token = presession(server, "127.0.0.6")
    statuses = []
    lock = threading.Lock()

    def guess(_):
        visitor = Visitor(server, "127.0.0.6")
        visitor.cookies, visitor.token = dict(cookies), token
        status, _, _ = visitor.post("/login", {"username": "racetarget", "password": "wrong guess"})
        visitor.close()
        with lock:
            statuses.append(status)
    workers = [threading.Thread(target=guess, args=(i,), daemon=True) for i in range(60)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    checked = statuses.count(401)
    check(len(statuses) == 60, f"sign-in race: {len(statuses)} of 60 answered")
    check(checked <= 5, f"sign-in race: {checked} of 60 wrong guesses got a password check (401); at most 5 may")
    visitor = Visitor(server, "127.0.0.7")
    visitor.get("/login")
    status, _, _ = visitor.post("/login", {"username": "racetarget", "password": PASSWORD})
    check(status == 429, f"sign-in race: the right password after the lock answered {status}, not 429")
    print(f"  sign-in race: {checked} password checks of 60 guesses; the right password then 429", flush=True)


def forgot_race(server):
    """40 reset requests for one address at once, each from an address of its own (127.0.1.x): at
    most 3 are kept (3 an hour per typed address, issue 30), the same for an address nobody has."""
    statuses = []
    lock = threading.Lock()
    prepared = [presession(server, f"127.0.1.{index + 1}") for index in range(40)]

    def ask(index):
        visitor = Visitor(server, f"127.0.1.{index + 1}")
        visitor.cookies, visitor.token = dict(prepared[index][0]), prepared[index][1]
        status, _, _ = visitor.post("/password/forgot", {"email": "raced@example.org"})
        visitor.close()
        with lock:
            statuses.append(status)
    workers = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(40)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    kept = statuses.count(200)
    check(len(statuses) == 40, f"forgot race: {len(statuses)} of 40 answered")
    check(1 <= kept <= 3 and statuses.count(429) == 40 - kept, f"forgot race: {kept} of 40 kept, statuses {sorted(set(statuses))}")
    print(f"  forgot race: {kept} of 40 requests for one address kept, the rest 429", flush=True)


# --- moderation ----------------------------------------------------------------------------

# Two moderators, made before the server starts (`quotebook user add` and `user role` on its data
# directory: a SQLite book takes a role only while no server holds it).
MODERATORS = ("moderator", "moderator2")
REPORT_ACCOUNTS = 40  # each signs up from an address of its own (127.0.2.x): 10 sign-ups an address
REPORT_QUOTES = 100  # each account reports each of these once, in its own order
REPORT_THREADS = 3  # an account's reports at once
REPORT_LIMIT = 10  # reports a person may make an hour
REPORT_SECONDS = 30  # the most the flood may take
WATCH_LIMIT = 1.0  # seconds: p99 of the moderator's GET /moderation and a visitor's GET / meanwhile


def make_moderators(executable, data):
    """The accounts in MODERATORS, made moderators, in `data` before a server opens it."""
    import subprocess
    for name in MODERATORS:
        for arguments, stdin in ((["user", "add", name, "--display-name", name.title()], PASSWORD + "\n"),
                                 (["user", "role", name, "moderator"], "")):
            result = subprocess.run([executable, *arguments, "--data", data], input=stdin, capture_output=True,
                                    text=True, timeout=60)
            check(result.returncode == 0, f"quotebook {' '.join(arguments)} exited {result.returncode}: "
                                          f"{(result.stdout + result.stderr).strip()}")


def signed_in(server, username, source):
    """A Visitor from `source` signed in as `username` (PASSWORD)."""
    visitor = Visitor(server, source)
    visitor.get("/login")
    status, _, _ = visitor.post("/login", {"username": username, "password": PASSWORD})
    check(status == 303, f"sign-in of {username} from {source} answered {status}")
    return visitor


def signed_up(server, username, display_name, source):
    """A Visitor from `source` with a new account."""
    visitor = Visitor(server, source)
    visitor.get("/signup")
    status, _, _ = visitor.post("/signup", {"username": username, "display_name": display_name,
                                            "password": PASSWORD, "password_confirmation": PASSWORD})
    check(status == 303, f"sign-up of {username} from {source} answered {status}")
    return visitor


def add_quotes(visitor, count, label):
    """`count` new quotes by `visitor`; their ids."""
    ids = []
    for index in range(count):
        visitor.get("/quotes/new")
        status, headers, _ = visitor.post("/quotes", {"text": f"{label} quote {index}", "author": "Hostile"})
        found = re.fullmatch(r"/quotes/(\d+)", headers.get("location", ""))
        check(status == 303 and found, f"adding {label} quote {index} answered {status}")
        ids.append(int(found.group(1)))
    return ids


def percentile(values, fraction):
    """Nearest rank: the smallest value with at least `fraction` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def report_flood(server):
    """REPORT_ACCOUNTS accounts, each from an address of its own, report REPORT_QUOTES quotes each,
    REPORT_THREADS at once per account, all accounts together: no answer but 303 and 429 (never a
    5xx or a dropped connection), at most REPORT_LIMIT reports taken per account (and the queue
    holds exactly those), while a moderator's GET /moderation and a visitor's GET / keep answering
    200 with p99 under WATCH_LIMIT."""
    quoter = signed_up(server, "floodquoter", "Flood Quoter", "127.0.2.201")
    quotes = add_quotes(quoter, REPORT_QUOTES, "Reported")
    quoter.close()
    accounts = []
    for index in range(REPORT_ACCOUNTS):
        name = f"reporter{index + 1:02d}"
        visitor = signed_up(server, name, f"Reporter {index + 1:02d}", f"127.0.2.{index + 1}")
        visitor.get(f"/quotes/{quotes[0]}")  # a page with the session's token
        visitor.close()
        order = list(quotes)
        random.shuffle(order)
        accounts.append({"name": name, "display": f"Reporter {index + 1:02d}", "source": f"127.0.2.{index + 1}",
                         "cookies": dict(visitor.cookies), "token": visitor.token, "queue": order,
                         "answers": {}, "accepted": [], "retry_after": set(), "lock": threading.Lock()})
    moderator = signed_in(server, MODERATORS[0], "127.0.2.250")
    reader = Visitor(server, "127.0.2.251")
    status, _, _ = moderator.get("/moderation")
    check(status == 200, f"report-flood: the moderator's GET /moderation answered {status}")

    start = threading.Barrier(REPORT_ACCOUNTS * REPORT_THREADS + 1, timeout=60)
    deadline = [0.0]

    def report(account):
        visitor = Visitor(server, account["source"])
        visitor.cookies, visitor.token = dict(account["cookies"]), account["token"]
        start.wait()
        while time.monotonic() < deadline[0]:
            with account["lock"]:
                if not account["queue"]:
                    break
                quote = account["queue"].pop()
            try:
                status, headers, _ = visitor.post(f"/quotes/{quote}/report",
                                                  {"reason": f"Flood report by {account['name']} of quote {quote}"})
                outcome = status
            except (OSError, http.client.HTTPException) as error:
                outcome, headers = type(error).__name__, {}
                visitor.close()
            with account["lock"]:
                account["answers"][outcome] = account["answers"].get(outcome, 0) + 1
                if outcome == 303:
                    check(headers.get("location") == f"/quotes/{quote}",
                          f"report-flood: a report answered 303 to {headers.get('location')!r}")
                    account["accepted"].append(quote)
                elif outcome == 429:
                    account["retry_after"].add(headers.get("retry-after"))
        visitor.close()

    failures = []

    def run_reporter(account):
        try:
            report(account)
        except Exception as error:  # recorded, checked below
            failures.append(f"{account['name']}: {type(error).__name__}: {error}")

    deadline[0] = time.monotonic() + REPORT_SECONDS
    threads = [threading.Thread(target=run_reporter, args=(account,), daemon=True)
               for account in accounts for _ in range(REPORT_THREADS)]
    for thread in threads:
        thread.start()
    watched = {"moderator GET /moderation": (moderator, "/moderation"), "visitor GET /": (reader, "/")}
    timings = {name: [] for name in watched}
    statuses = {name: {} for name in watched}
    stop = threading.Event()

    def watch(name):
        visitor, path = watched[name]
        while not stop.is_set() and time.monotonic() < deadline[0]:
            began = time.monotonic()
            try:
                status = visitor.get(path)[0]
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                visitor.close()
            timings[name].append(time.monotonic() - began)
            statuses[name][status] = statuses[name].get(status, 0) + 1
            time.sleep(0.005)

    watchers = [threading.Thread(target=watch, args=(name,), daemon=True) for name in watched]
    start.wait()  # every reporter thread is ready: they all begin now
    began = time.monotonic()
    for watcher in watchers:
        watcher.start()
    for thread in threads:
        thread.join(timeout=max(0.0, deadline[0] - time.monotonic()) + 20)
        check(not thread.is_alive(), "report-flood: a reporter thread did not stop")
    took = time.monotonic() - began
    stop.set()
    for watcher in watchers:
        watcher.join(timeout=20)
        check(not watcher.is_alive(), "report-flood: a watcher thread did not stop")
    moderator.close()
    reader.close()

    check(not failures, f"report-flood: reporters failed: {failures[:5]}")
    answers = {}
    for account in accounts:
        for outcome, count in account["answers"].items():
            answers[outcome] = answers.get(outcome, 0) + count
    sent = sum(answers.values())
    print(f"  report-flood: {REPORT_ACCOUNTS} accounts x {REPORT_QUOTES} quotes ({REPORT_THREADS} at once each) "
          f"in {took:.1f} s: {dict(sorted((str(k), v) for k, v in answers.items()))}", flush=True)
    check(all(outcome in (303, 429) for outcome in answers), f"report-flood: answers other than 303 and 429: {answers}")
    check(sent == REPORT_ACCOUNTS * REPORT_QUOTES,
          f"report-flood: {sent} of {REPORT_ACCOUNTS * REPORT_QUOTES} reports sent within {REPORT_SECONDS} s")
    accepted = sorted(len(account["accepted"]) for account in accounts)
    over = [(account["name"], len(account["accepted"])) for account in accounts
            if len(account["accepted"]) > REPORT_LIMIT]
    check(not over, f"report-flood: accounts with more than {REPORT_LIMIT} reports taken: {over}")
    retry = set().union(*(account["retry_after"] for account in accounts))
    check(all(value and value.isdigit() and int(value) >= 1 for value in retry),
          f"report-flood: 429s' Retry-After values {sorted(map(str, retry))}")
    # The queue counts exactly the reports taken, over its pages, each page bounded however many
    # there are (20 quotes a page, the newest 10 reports of each shown).
    moderator = signed_in(server, MODERATORS[0], "127.0.2.250")
    counted, pages, largest = 0, 0, 0
    while True:
        pages += 1
        status, _, body = moderator.get("/moderation" + ("" if pages == 1 else f"?page={pages}"))
        check(status == 200, f"report-flood: GET /moderation page {pages} afterwards answered {status}")
        page = body.decode()
        largest = max(largest, len(body))
        groups = re.findall(r"<p>(\d+) reports?[ <]", page)
        check(len(groups) <= 20, f"report-flood: page {pages} of the queue shows {len(groups)} quotes")
        check(page.count("<li>") <= 20 * 10 + 20, f"report-flood: page {pages} of the queue shows too many reports")
        counted += sum(int(count) for count in groups)
        if f'href="/moderation?page={pages + 1}"' not in page or pages >= 50:
            break
    moderator.close()
    taken = sum(len(account["accepted"]) for account in accounts)
    check(counted == taken, f"report-flood: the queue counts {counted} reports over {pages} pages; {taken} were answered 303")
    print(f"  report-flood: reports taken per account: min {accepted[0]}, max {accepted[-1]} (limit {REPORT_LIMIT}); "
          f"429 Retry-After values {sorted(map(str, retry))}; the queue counts exactly the reports taken "
          f"over {pages} pages of at most {largest // 1024} KiB", flush=True)
    for name in watched:
        values = timings[name]
        check(len(values) >= 5, f"report-flood: only {len(values)} reads by the {name} during the flood")
        check(set(statuses[name]) == {200}, f"report-flood: {name} answered {statuses[name]} during the flood")
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"  report-flood: {name} during the flood: n={len(values)} p50 {p50 * 1000:.1f} ms, "
              f"p99 {p99 * 1000:.1f} ms, max {max(values) * 1000:.1f} ms", flush=True)
        check(p99 < WATCH_LIMIT, f"report-flood: {name} p99 {p99 * 1000:.1f} ms during the flood "
                                 f"(limit {WATCH_LIMIT * 1000:.0f} ms)")


def moderation_forbidden(server):
    """Every moderation route refuses a member (403, nothing changed), moderators cannot suspend or
    revert a moderator (403), a report without csrf_token is a 403 and is not kept, a 10,000-character
    reason is a 422, and a reason of markup shows escaped on /moderation and /moderation/log."""
    other = signed_up(server, "otherperson", "Other Person", "127.0.3.1")
    quote, second, third = add_quotes(other, 3, "Moderated")
    other.close()
    member = signed_up(server, "plainmember", "Plain Member", "127.0.3.2")
    moderator = signed_in(server, MODERATORS[0], "127.0.3.3")
    member.get(f"/quotes/{quote}")
    reason = "the plain member reports the first quote"
    status, headers, _ = member.post(f"/quotes/{quote}/report", {"reason": reason})
    check(status == 303 and headers.get("location") == f"/quotes/{quote}",
          f"moderation-forbidden: a member's report answered {status} to {headers.get('location')!r}")
    status, _, body = moderator.get("/moderation")
    found = re.search(re.escape(reason).encode()
                      + rb'</p>\s*<form method="post" action="(/moderation/reports/\d+/dismiss)"', body)
    check(status == 200 and found,
          f"moderation-forbidden: the queue ({status}) has no dismiss form for the member's report")
    dismiss = found.group(1).decode()

    # A member, with a valid token, on every moderation route.
    member.get(f"/quotes/{quote}")
    attempt = "a member's attempt at moderating"
    refused = {}
    for path in (dismiss, f"/quotes/{quote}/hide", f"/quotes/{quote}/unhide", "/users/otherperson/suspend",
                 "/users/otherperson/unsuspend", "/users/otherperson/revert"):
        refused[f"POST {path}"] = member.post(path, {"reason": attempt})[0]
    for path in ("/moderation", "/moderation/log"):
        refused[f"GET {path}"] = member.get(path)[0]
    check(set(refused.values()) == {403}, f"moderation-forbidden: a member was answered {refused}")
    # Nothing changed: the report is open, the quote shown, the person not suspended, nothing logged.
    status, _, body = moderator.get("/moderation")
    check(dismiss.encode() in body, "moderation-forbidden: the member's report is gone from the queue")
    check(Visitor(server, "127.0.3.4").get(f"/quotes/{quote}")[0] == 200,
          "moderation-forbidden: the quote is not shown after a member's attempt to hide it")
    status, _, body = Visitor(server, "127.0.3.4").get("/users/otherperson")
    check(status == 200 and b"This account is suspended." not in body,
          "moderation-forbidden: the person is suspended after a member's attempt")
    status, _, body = moderator.get("/moderation/log")
    check(status == 200 and attempt.encode() not in body, "moderation-forbidden: a member's attempt is in the log")

    # A moderator against another moderator.
    moderator.get("/users/moderator2")
    against = {path: moderator.post(path, {"reason": "one moderator against another"})[0]
               for path in ("/users/moderator2/suspend", "/users/moderator2/revert")}
    check(set(against.values()) == {403}, f"moderation-forbidden: a moderator against a moderator: {against}")
    signed_in(server, MODERATORS[1], "127.0.3.5").close()  # not suspended: still signs in

    # A report without csrf_token: 403, and not kept.
    member.get(f"/quotes/{second}")
    tokenless = "a report sent without its csrf_token"
    from urllib.parse import urlencode
    status, _, _ = member.request("POST", f"/quotes/{second}/report", urlencode({"reason": tokenless}),
                                  {"Content-Type": "application/x-www-form-urlencoded"})
    check(status == 403, f"moderation-forbidden: a report without csrf_token answered {status}")
    # A reason of 10,000 characters: 422, not kept.
    member.get(f"/quotes/{second}")
    long_reason = "overlong " + "x" * (10_000 - len("overlong "))
    status, _, _ = member.post(f"/quotes/{second}/report", {"reason": long_reason})
    check(status == 422, f"moderation-forbidden: a report with a 10,000-character reason answered {status}")
    status, _, body = moderator.get("/moderation")
    check(tokenless.encode() not in body and b"overlong xxx" not in body,
          "moderation-forbidden: a report without a token, or with a 10,000-character reason, is in the queue")
    # A reason of markup: kept as text, shown escaped.
    markup = "<script>alert(1)</script>"
    member.get(f"/quotes/{second}")
    status, _, _ = member.post(f"/quotes/{second}/report", {"reason": markup})
    check(status == 303, f"moderation-forbidden: a report with markup in its reason answered {status}")
    status, _, body = moderator.get("/moderation")
    check(status == 200 and b"&lt;script&gt;alert(1)&lt;" in body and b"<script>" not in body,
          "moderation-forbidden: the markup in a report's reason is not shown escaped on /moderation")
    # And a moderator's reason of markup (hiding the third quote), in the hidden list and the log.
    hide_markup = '<img src=x onerror="alert(2)">'
    status, _, _ = moderator.post(f"/quotes/{third}/hide", {"reason": hide_markup})
    check(status == 303, f"moderation-forbidden: hiding a quote answered {status}")
    for path in ("/moderation", "/moderation/log"):
        status, _, body = moderator.get(path)
        check(status == 200 and b"&lt;img src=x onerror=" in body and b"<img src=x" not in body,
              f"moderation-forbidden: the markup in a hide reason is not shown escaped on {path}")
    moderator.get("/moderation")
    check(moderator.post(f"/quotes/{third}/unhide", {"reason": "brought back"})[0] == 303,
          "moderation-forbidden: bringing the quote back failed")
    member.close()
    moderator.close()
    print(f"  moderation-forbidden: a member was refused (403) on all {len(refused)} moderation routes, and "
          f"nothing changed; a moderator against a moderator {sorted(set(against.values()))}; a report without "
          f"csrf_token 403 and not kept; a 10,000-character reason 422; markup in reasons shown escaped", flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    executable, root = sys.argv[1], sys.argv[2]
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
        unknown = [name for name in only if name not in ATTACKS and name not in CASES]
        if unknown:
            sys.exit(f"hostile_test.py: no case called {', '.join(unknown)}\n\n{__doc__}")
    with tempfile.TemporaryDirectory(prefix="quotebook-hostile-") as data:
        make_moderators(executable, data)
        server = Server(executable, root, data, arguments=SERVER_ARGUMENTS)
        try:
            pid = server.process.pid
            legit = Legit(server, "legit")
            legit.sign_up()
            legit.round("warm-up")
            legit.timings.clear()
            for index in range(3):
                legit.round(f"quiet #{index + 1}")
            quiet = sorted(legit.timings["page"])
            legit.quiet_page_median = quiet[len(quiet) // 2]
            print(f"quiet: page reads' median {legit.quiet_page_median * 1000:.2f} ms", flush=True)
            before = process_figures(pid)
            print(f"before: RSS {before[0]} kB, {before[1]} descriptors", flush=True)
            results = {}
            for name in ATTACKS:
                if only and name not in only:
                    continue
                counts = run_attack(server, legit, name, results)
                check_attack_outcomes(name, counts)
            if not only or "inputs" in only:
                hostile_inputs(server)
            if not only or "signin-race" in only:
                signin_race(server)
            if not only or "forgot-race" in only:
                forgot_race(server)
            if not only or "photo-churn" in only:
                photo_churn(server, data)
            if not only or "report-flood" in only:
                report_flood(server)
            if not only or "moderation-forbidden" in only:
                moderation_forbidden(server)
            legit.visitor.close()
            # Closed connections and ended streams are let go within a moment.
            after = None
            for _ in range(50):
                after = process_figures(pid)
                if after[1] <= before[1] + 16:
                    break
                time.sleep(0.2)
            print(f"after: RSS {after[0]} kB, {after[1]} descriptors", flush=True)
            check(after[1] <= before[1] + 16, f"descriptors: {before[1]} before, {after[1]} after the attacks")
            check(after[0] <= before[0] + 64 * 1024, f"RSS: {before[0]} kB before, {after[0]} kB after the attacks")
            for name, values in sorted(legit.timings.items()):
                values = sorted(values)
                print(f"  legit {name}: n={len(values)} median {values[len(values) // 2] * 1000:.1f} ms, "
                      f"max {values[-1] * 1000:.1f} ms", flush=True)
            server.stop()
        except BaseException:
            server.kill_if_running()
            raise
    print("hostile clients: all checks passed")


if __name__ == "__main__":
    main()
