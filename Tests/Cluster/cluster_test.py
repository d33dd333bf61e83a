#!/usr/bin/env python3
"""Two Quotebook instances on one PostgreSQL database, behind nginx: the cluster end to end.

usage: cluster_test.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT

Starts a throwaway PostgreSQL cluster (.ci/postgres.sh, in a temporary directory), instances A
and B of the executable with --database on free ports, and nginx with a copy of
deploy/nginx.conf rendered for those ports (its prefix in the temporary directory), then checks:

(a) sessions: sign-up through A, and the very next request with the cookie is signed in on B
    (the name shown); sign-up through B, on A; ten sign-ups through nginx, on both; signing out
    on B ends the session on A (within 1 s); Sign out everywhere else on B, and then a change of
    password on B, end the person's other session on A (within 1 s each) while the session that
    asked stays signed in on A; deleting the account on B ends its session on A (within 1 s), A
    then shows its quote by "a former member", the old password fails and the username is free;
(b) live updates: 100 edits saved on A; after each, event streams open on B (directly) and
    through nginx deliver it, and B's quote page shows it; from the 303 on A to the event,
    p99 <= 100 ms on each stream;
(c) conflicts: rounds of 16 concurrent saves of one quote from one version, alternating between A
    and B (and one round through nginx): exactly one 303 and fifteen 409 each, and both
    instances then show the winner's text at the next version;
(e) a PostgreSQL restart (.ci/postgres.sh restart) under a write load through nginx: no save
    fails from 2 s after it, then 3 s of writers on A, B and nginx without a single failure,
    edits on A reach B's stream (opened before the restart) within 100 ms p99 again, and every
    save answered 303 is in its quote's history, at the version it made, on A and on B; then a
    restart while idle, after which the first sign-in, save and photo on each instance answer 303;
(d) kill -9 of A under a write load (writers through nginx and straight to B, readers through
    nginx and straight to B): no GET fails, nothing sent to B fails after the kill, no save
    through nginx fails from 1 s after it, every writer has saves answered 303 after it, and
    every save answered 303 is in its quote's history on B and on A started again (same port);
(f) read-your-writes: 50 quotes added and then edited through nginx (round robin, so the page
    a 303 leads to is usually asked of the other instance): the page right after each 303 shows
    the save, never a 404 or the old version (the `quotebook_seen` cookie makes an instance
    behind it catch up first), and the edit form read right after the add is the quote's;
(g) saturation: 4 unpaced writers, 2 straight to each instance, for 3 s: not one save answered
    anything but 303 or 409 (an append refused twice holds the journal's head, so it gets
    through), and every save answered 303 is in its quote's history;
(h) a 10 MiB photo (a PNG of noise, as large as a phone's) uploaded through nginx, as
    deploy/nginx.conf passes it (21 MiB, streamed to the instance): 303, and then each
    instance, asked directly, serves the person's new 96 px photo;
(i) mail: an address given on A is verified on B; a reset asked for on A is mailed exactly once
    (one relay, tests/Support/mail_relay.py, with STARTTLS and AUTH), and the link used on A ends
    the session on B;
(j) moderation: `quotebook user role NAME moderator` on the instances' database while they run
    makes a moderator on both (within 2 s); a person signed in on B and suspended by that
    moderator on A is signed out on B within 1 s of the 303 (the time printed), B then answers
    their sign-in 403 with a page saying the account is suspended (a wrong password still 401),
    and takes it again once the suspension is lifted on A;
(k) a quote reported on B is in A's moderation queue (within 2 s); hidden on A, an event stream of
    it open on B gets the `deleted` event (as for a deletion) within 10 s and ends, and B answers
    its page 404 to a member and 200, with the reason, to the moderator;
(l) compression: through nginx, the stylesheet and the script come gzipped (Vary: Accept-Encoding)
    to a client that accepts it, and unpack to the bytes an instance serves; a page, signed in or
    out, a search showing its words beside the CSRF token included, never does (BREACH);
nginx's access log has the client's address and both instances as upstream; a request through
nginx that claims X-Forwarded-For 198.51.100.23 is logged by the instance that answered as from
that client (the instances are started with --trusted-proxies 127.0.0.1, where nginx is).

Everything runs under one deadline (SIGALRM) with a timeout on every request; processes, the
database cluster and the temporary directory are removed in `finally`, failure or not
(QUOTEBOOK_CLUSTER_LOGS=DIR keeps a copy of every log in DIR first). Prints the figures and PASS,
or FAIL with the failed check (and the end of each log); exits non-zero on failure. Needs
python3's standard library, nginx and PostgreSQL (CI installs both).
"""
import html
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from urllib.parse import urlencode

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from quotebook_server import Server, check  # noqa: E402  (the path above makes it importable)
from mail_relay import MailRelay  # noqa: E402  (likewise)

OVERALL_TIMEOUT = 420
REQUEST_TIMEOUT = 15
PASSWORD = "cluster test password"
LATENCY_EDITS = 100
LATENCY_LIMIT = 0.100
RACE_SIZE = 16


class Failed(AssertionError):
    pass


def fail(message):
    raise Failed(message)


def percentile(values, fraction):
    """Nearest rank: the smallest value with at least `fraction` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def milliseconds(seconds):
    return f"{seconds * 1000:.1f} ms"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# HTTP

class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower())


class Client:
    """One person's keep-alive connection to one address, sharing the person's cookie jar."""

    def __init__(self, address, cookies, timeout=REQUEST_TIMEOUT):
        self.host, self.port = address
        self.cookies = cookies
        self.timeout = timeout
        self.connection = None

    def request(self, method, path, fields=None, raw=None):
        """The response; raises OSError or http.client.HTTPException when there is none. `raw`:
        (body, content type) instead of form `fields`."""
        headers = {"Host": f"{self.host}:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if raw is not None:
            body, headers["Content-Type"] = raw
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.connection.request(method, path, body=body, headers=headers)
            raw = self.connection.getresponse()
            payload = raw.read()
        except Exception:
            self.close()
            raise
        for cookie in raw.msg.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            if "Max-Age=0" in cookie:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = rest.split(";")[0]
        if raw.will_close:
            self.close()
        return Response(raw.status, {key.lower(): value for key, value in raw.getheaders()},
                        payload.decode("utf-8", "replace"))

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, fields):
        return self.request("POST", path, fields)

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def field(body, name):
    match = re.search(rf'name="{name}" value="([^"]*)"', body)
    return match.group(1) if match else None


def sign_up(client, username, display_name):
    form = client.get("/signup")
    check(form.status == 200, f"GET /signup answered {form.status}")
    response = client.post("/signup", {"username": username, "display_name": display_name, "password": PASSWORD,
                                       "password_confirmation": PASSWORD, "csrf_token": field(form.body, "csrf_token")})
    check(response.status == 303, f"sign-up of {username} answered {response.status}")
    check("quotebook_session" in client.cookies, "sign-up set no session cookie")


def sign_in_with(client, username, password):
    form = client.get("/login")
    check(form.status == 200, f"GET /login answered {form.status}")
    response = client.post("/login", {"username": username, "password": password,
                                      "csrf_token": field(form.body, "csrf_token")})
    check(response.status == 303, f"sign-in of {username} answered {response.status}")


def add_quote(client, text, author):
    form = client.get("/quotes/new")
    check(form.status == 200, f"GET /quotes/new answered {form.status}")
    response = client.post("/quotes", {"text": text, "author": author, "csrf_token": field(form.body, "csrf_token")})
    check(response.status == 303, f"adding a quote answered {response.status}")
    match = re.fullmatch(r"/quotes/(\d+)", response.header("Location") or "")
    check(match, f"adding a quote redirected to {response.header('Location')!r}")
    return int(match.group(1))


def edit_form(client, quote):
    """(version, csrf token) from the quote's edit form."""
    form = client.get(f"/quotes/{quote}/edit")
    check(form.status == 200, f"GET /quotes/{quote}/edit answered {form.status}")
    version, token = field(form.body, "version"), field(form.body, "csrf_token")
    check(version and token, "the edit form has no version or csrf_token")
    return int(version), token


def shown_version(address, quote):
    """The version of the quote that an instance's quote page shows; None while it has none."""
    page = Client(address, {}).get(f"/quotes/{quote}")
    if page.status == 404:
        return None
    check(page.status == 200, f"GET /quotes/{quote} answered {page.status}")
    return int(re.search(r'data-version="(\d+)"', page.body).group(1))


def await_version(cluster, quote, version, timeout=2):
    """Waits until both instances show `quote` at `version` or later: an instance applies
    another's saves when PostgreSQL notifies it, a moment after the other answered."""
    deadline = time.monotonic() + timeout
    for name in cluster.instances:
        while (shown_version(cluster.address(name), quote) or 0) < version:
            check(time.monotonic() < deadline,
                  f"{timeout} s on, {name} does not show quote {quote} at version {version}")
            time.sleep(0.005)


def history(client, quote):
    """{version: text} from every page of the quote's history (50 versions a page, newest first,
    each linking to the next older one with rel="next")."""
    versions = {}
    target = f"/quotes/{quote}/history"
    while target:
        page = client.get(target)
        check(page.status == 200, f"GET {target} answered {page.status}")
        for item in re.findall(r'<li class="version[^"]*">(.*?)</li>', page.body, re.S):
            number = re.search(r'<h2 class="version-heading">Version (\d+)', item)
            text = re.search(r'<blockquote class="quote-text"><p>(.*?)</p></blockquote>', item, re.S)
            if number and text:
                versions[int(number.group(1))] = text.group(1)
        older = re.search(r'<a href="([^"]+)" rel="next">', page.body)
        target = html.unescape(older.group(1)) if older else None
    return versions


# Event streams

class EventStream(threading.Thread):
    """A `text/event-stream` read on a thread of its own, each `quote` event (and `deleted`: the
    quote was deleted or hidden) kept with the time (time.monotonic) it was read. Handles chunked
    and close-delimited bodies."""

    def __init__(self, address, path):
        super().__init__(daemon=True)
        self.events = []
        self.deleted = []  # (data, time.monotonic()) of each `deleted` event: the quote is gone
        self.ended = False
        self.condition = threading.Condition()
        self.socket = socket.create_connection(address, timeout=REQUEST_TIMEOUT)
        self.socket.sendall(f"GET {path} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
                            "Accept: text/event-stream\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.socket.recv(65536)
            check(chunk, f"the event stream {path} closed before its headers")
            head += chunk
        head, _, self.raw = head.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        check(" 200 " in lines[0] + " ", f"the event stream {path} answered {lines[0]!r}")
        headers = {key.strip().lower(): value.strip() for key, _, value in (line.partition(":") for line in lines[1:])}
        check(headers.get("content-type", "").startswith("text/event-stream"),
              f"the event stream {path} is {headers.get('content-type')!r}")
        self.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        self.socket.settimeout(None)
        self.start()

    def run(self):
        text = b""
        self.last_chunk = False
        try:
            while True:
                text += self.take_payload()
                while b"\n\n" in text:
                    block, _, text = text.partition(b"\n\n")
                    self.keep(block.decode(), time.monotonic())
                if self.last_chunk:
                    break
                chunk = self.socket.recv(65536)
                if not chunk:
                    break
                self.raw += chunk
        except OSError:
            pass
        with self.condition:
            self.ended = True
            self.condition.notify_all()

    def take_payload(self):
        """The event-stream bytes complete in self.raw, removing their framing."""
        if not self.chunked:
            payload, self.raw = self.raw, b""
            return payload
        payload = b""
        while b"\r\n" in self.raw:
            size_line, _, rest = self.raw.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                break
            payload += rest[:size]
            self.raw = rest[size + 2:]
            if size == 0:
                # The last chunk: what came before it in the same read (a `deleted` event, which
                # ends the stream) is still kept.
                self.last_chunk = True
                break
        return payload

    def keep(self, block, arrived):
        fields = {}
        for line in block.split("\n"):
            if line and not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
        if fields.get("event") == "quote":
            with self.condition:
                self.events.append((int(fields["id"]), json.loads(fields["data"]), arrived))
                self.condition.notify_all()
        elif fields.get("event") == "deleted":
            with self.condition:
                self.deleted.append((json.loads(fields["data"]), arrived))
                self.condition.notify_all()

    def wait_for(self, version, timeout):
        """(data, arrival time) of the first event of `version`, or None after `timeout`."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for number, data, arrived in self.events:
                    if number == version:
                        return data, arrived
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.ended:
                    return None
                self.condition.wait(remaining)

    def wait_for_deleted(self, timeout):
        """(data, arrival time) of the first `deleted` event, or None after `timeout` (or once the
        stream ended without one)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                if self.deleted:
                    return self.deleted[0]
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.ended:
                    return None
                self.condition.wait(remaining)

    def wait_ended(self, timeout):
        """Whether the server ended the stream within `timeout`."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not self.ended:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.condition.wait(remaining)
            return True

    def close(self):
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.socket.close()


# The cluster

def start_nginx(root, prefix, upstream_ports, stderr_path, access_log=True):
    """Starts nginx on deploy/nginx.conf rendered into `prefix` for a free port and an upstream of
    `upstream_ports` (in place of its 127.0.0.1:8081 and :8082 lines, keeping their parameters),
    in the foreground and its own process group (so clean-up ends the workers with the master),
    stderr to `stderr_path`; without `access_log` the access log is off. Returns (process, port)
    once it serves /healthz, within 15 s. Used by this test and Benchmarks/tools/scaleout_measure.py."""
    with open(os.path.join(root, "deploy", "nginx.conf")) as file:
        template = file.read()
    port = free_port()
    config, count = re.subn(r"listen 127\.0\.0\.1:8080;", f"listen 127.0.0.1:{port};", template)
    check(count == 1, "deploy/nginx.conf has no 'listen 127.0.0.1:8080;' line to render")
    upstream = re.search(r"(        server 127\.0\.0\.1:808[12]([^\n]*)\n)+", config)
    check(upstream is not None and upstream.group(0).count("server ") == 2,
          "deploy/nginx.conf does not list 127.0.0.1:8081 and :8082 in its upstream")
    lines = "".join(f"        server 127.0.0.1:{upstream_port}{upstream.group(2)}\n" for upstream_port in upstream_ports)
    config = config[:upstream.start()] + lines + config[upstream.end():]
    if not access_log:
        config, count = re.subn(r"access_log logs/access\.log [^;]*;", "access_log off;", config)
        check(count == 1, "deploy/nginx.conf has no access_log line to turn off")
    os.makedirs(os.path.join(prefix, "logs"))
    os.makedirs(os.path.join(prefix, "temp"))
    path = os.path.join(prefix, "nginx.conf")
    with open(path, "w") as file:
        file.write(config)
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen([binary, "-p", prefix, "-c", path, "-g", directives],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                   start_new_session=True)
    deadline = time.monotonic() + 15
    while True:
        check(process.poll() is None, f"nginx exited with status {process.returncode}")
        try:
            if Client(("127.0.0.1", port), {}, timeout=2).get("/healthz").status == 200:
                return process, port
        except OSError:
            pass
        check(time.monotonic() < deadline, "nginx did not serve /healthz within 15 s")
        time.sleep(0.05)


class Cluster:
    """PostgreSQL, instances A and B and nginx, each started here and stopped by `close`."""

    def __init__(self, executable, root):
        self.executable, self.root = executable, root
        self.work = tempfile.mkdtemp(prefix="quotebook-cluster-")
        # The postgres user runs the server (as root) and must reach its directory.
        os.chmod(self.work, 0o755)
        self.postgres_dir = os.path.join(self.work, "postgres")
        self.database = None
        self.instances = {}
        self.nginx = None
        self.nginx_port = None
        self.nginx_prefix = os.path.join(self.work, "nginx")
        self.streams = []
        # One relay (STARTTLS and AUTH) that both instances send mail through.
        self.relay = MailRelay(os.path.join(self.work, "relay"))

    def postgres(self, *arguments, timeout=180):
        result = subprocess.run([os.path.join(self.root, ".ci", "postgres.sh"), *arguments], capture_output=True,
                                text=True, timeout=timeout)
        if result.returncode != 0:
            fail(f"postgres.sh {' '.join(arguments)} failed ({result.returncode}): {result.stderr.strip()}")
        return result.stdout.strip()

    def start_postgres(self):
        self.database = self.postgres("start", self.postgres_dir)
        check(self.database.startswith("postgres://"), f"postgres.sh printed {self.database!r}")

    def start_instance(self, name, port=0):
        log = open(os.path.join(self.work, f"instance-{name}.log"), "ab")
        try:
            server = Server(self.executable, self.root, os.path.join(self.work, f"data-{name}"), port=port,
                            # Every visitor here is 127.0.0.1, and it makes 13 accounts in seconds:
                            # more than --sign-ups-per-client allows one address by default. Its
                            # writers save as fast as the instances answer, thousands of times: far
                            # past the write limits, which HostileWriteTests and hostile_test.py check.
                            arguments=["--database", self.database, "--log-level", "info",
                                       "--trusted-proxies", "127.0.0.1", "--sign-ups-per-client", "100",
                                       "--writes-per-account", "1000000000", "--writes-per-client", "1000000000",
                                       *self.relay.arguments], stderr=log)
        finally:
            log.close()
        self.instances[name] = server
        return server

    def address(self, name):
        server = self.instances[name]
        return (server.host, server.port)

    def start_nginx(self):
        ports = [self.instances["A"].port, self.instances["B"].port]
        self.nginx, self.nginx_port = start_nginx(
            self.root, self.nginx_prefix, ports, os.path.join(self.work, "nginx.stderr"))

    def stream(self, address, quote):
        stream = EventStream(address, f"/quotes/{quote}/events")
        self.streams.append(stream)
        return stream

    def logs(self):
        """The end of every log, for a failure report."""
        parts = []
        for name in sorted(os.listdir(self.work)) if os.path.isdir(self.work) else []:
            if name.endswith(".log") or name.endswith(".stderr"):
                parts.append((name, os.path.join(self.work, name)))
        for sub in ("nginx/logs/error.log", "postgres/server.log"):
            parts.append((sub, os.path.join(self.work, sub)))
        out = []
        for name, path in parts:
            try:
                with open(path, "rb") as file:
                    lines = file.read().decode("utf-8", "replace").splitlines()[-15:]
            except OSError:
                continue
            out.append(f"--- {name} (last {len(lines)} lines)\n" + "\n".join(lines))
        return "\n".join(out)

    def keep_logs(self, directory):
        """Copies every log into `directory` (QUOTEBOOK_CLUSTER_LOGS), for a closer look."""
        os.makedirs(directory, exist_ok=True)
        for path in ["instance-A.log", "instance-B.log", "nginx.stderr", "nginx/logs/error.log",
                     "nginx/logs/access.log", "postgres/server.log"]:
            source = os.path.join(self.work, path)
            if os.path.exists(source):
                shutil.copy(source, os.path.join(directory, path.replace("/", "-")))

    def close(self):
        problems = []
        for stream in self.streams:
            stream.close()
        self.relay.stop()
        for name, server in self.instances.items():
            try:
                server.kill_if_running()
            except Exception as error:  # noqa: BLE001  (clean-up goes on)
                problems.append(f"instance {name}: {error}")
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        if self.nginx is not None:
            # The workers are in the master's process group; none may outlive the test.
            try:
                os.killpg(self.nginx.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.nginx.wait(timeout=10)
        if os.path.exists(self.postgres_dir):
            try:
                self.postgres("stop", self.postgres_dir, timeout=90)
            except Exception as error:  # noqa: BLE001
                problems.append(f"postgres.sh stop: {error}")
        shutil.rmtree(self.work, ignore_errors=True)
        return problems


# Write load

class Writer(threading.Thread):
    """Saves its own quote over and over (`pause` seconds apart) with unique text through one address, recording every
    save answered 303 with the version it made; after any other answer it reads the edit form
    again."""

    def __init__(self, name, address, cookies, quote, stop, pause=0.0):
        super().__init__(daemon=True)
        self.name, self.quote, self.stop, self.pause = name, quote, stop, pause
        self.client = Client(address, dict(cookies))
        self.acknowledged = []  # (version, text, time.monotonic() of the answer)
        self.answers = {}  # status or exception name: count
        self.failures = []  # (time.monotonic(), what) for anything but 303 and 409

    def run(self):
        version = token = None
        count = 0
        while not self.stop.is_set():
            try:
                if version is None:
                    version, token = edit_form(self.client, self.quote)
                text = f"{self.name} save {count} at version {version}"
                count += 1
                response = self.client.post(f"/quotes/{self.quote}",
                                            {"text": text, "author": self.name, "version": version,
                                             "csrf_token": token})
                outcome = response.status
            except (OSError, http.client.HTTPException, AssertionError) as error:
                outcome = type(error).__name__
            self.answers[outcome] = self.answers.get(outcome, 0) + 1
            if outcome == 303:
                version += 1
                self.acknowledged.append((version, text, time.monotonic()))
                time.sleep(self.pause)
                continue
            version = None
            if outcome != 409:
                self.failures.append((time.monotonic(), outcome))
                time.sleep(0.05)


class Reader(threading.Thread):
    """GETs a page over and over, recording every answer that is not a 200."""

    def __init__(self, address, path, stop):
        super().__init__(daemon=True)
        self.client = Client(address, {})
        self.path, self.stop = path, stop
        self.count = 0
        self.failures = []

    def run(self):
        while not self.stop.is_set():
            try:
                status = self.client.get(self.path).status
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
            self.count += 1
            if status != 200:
                self.failures.append((time.monotonic(), status))
                time.sleep(0.05)


def run_load(threads, duration, event=None, at=None):
    """Runs `threads` for `duration` seconds; `event()` is called `at` seconds in. Returns its
    result and the times (time.monotonic) it was called and returned."""
    stop = threads[0].stop
    for thread in threads:
        thread.start()
    started = time.monotonic()
    outcome = None
    if event is not None:
        time.sleep(at)
        began = time.monotonic()
        result = event()
        outcome = (result, began, time.monotonic())
    time.sleep(max(0.0, started + duration - time.monotonic()))
    stop.set()
    for thread in threads:
        thread.join(timeout=2 * REQUEST_TIMEOUT)
        check(not thread.is_alive(), f"a load thread did not stop within {2 * REQUEST_TIMEOUT} s")
    return outcome


def expect_acknowledged_present(writers, client, where):
    """Every save a writer had answered 303 is in its quote's history, as the version it made."""
    total = 0
    for writer in writers:
        versions = history(client, writer.quote)
        for version, text, _ in writer.acknowledged:
            check(versions.get(version) == text,
                  f"{where}: {writer.name}'s save answered 303 as version {version} ({text!r}) is not in the "
                  f"history (version {version} there: {versions.get(version)!r})")
        total += len(writer.acknowledged)
    return total


# The checks

def expect_signed_in(address, cookies, display_name, what):
    """The first request to `address` with the session is signed in: no waiting, as a browser
    following the sign-up's redirect through nginx does not wait."""
    page = Client(address, dict(cookies)).get("/profile/edit")
    check(page.status == 200 and display_name in page.body,
          f"{what}: GET /profile/edit right after the sign-up answered {page.status}"
          f"{'' if page.status != 200 else ' without the name'}")


def check_sessions(cluster, figures):
    ada_cookies = {}
    sign_up(Client(cluster.address("A"), ada_cookies), "ada", "Ada Lovelace")
    expect_signed_in(cluster.address("B"), ada_cookies, "Ada Lovelace", "(a) signed up on A, on B")
    check("Ada Lovelace" in Client(cluster.address("B"), dict(ada_cookies)).get("/").body,
          "(a) signed up on A, B's home page does not show the name")

    grace_cookies = {}
    sign_up(Client(cluster.address("B"), grace_cookies), "grace", "Grace Hopper")
    expect_signed_in(cluster.address("A"), grace_cookies, "Grace Hopper", "(a) signed up on B, on A")

    # Through nginx, the sign-up's redirect reaches the other instance half of the time.
    through_nginx = 10
    for index in range(through_nginx):
        cookies = {}
        sign_up(Client(("127.0.0.1", cluster.nginx_port), cookies), f"visitor{index}", f"Visitor {index}")
        for name in ("A", "B"):
            expect_signed_in(cluster.address(name), cookies, f"Visitor {index}",
                             f"(a) signed up through nginx, on {name}")

    # A third person signs out on B: A no longer knows the session (NOTIFY evicts it from A's cache).
    linus_cookies = {}
    sign_up(Client(cluster.address("A"), linus_cookies), "linus", "Linus")
    on_a = Client(cluster.address("A"), dict(linus_cookies))
    check(on_a.get("/profile/edit").status == 200, "(a) a session made on A is not signed in on A")
    form = Client(cluster.address("B"), linus_cookies).get("/profile/edit")
    signed_out = Client(cluster.address("B"), linus_cookies).post(
        "/logout", {"csrf_token": field(form.body, "csrf_token")})
    check(signed_out.status == 303, f"(a) signing out on B answered {signed_out.status}")
    answered = time.monotonic()
    while on_a.get("/profile/edit").status != 303:
        check(time.monotonic() < answered + 1, "(a) 1 s after signing out on B, the session still works on A")
        time.sleep(0.002)
    ended = time.monotonic() - answered

    # Sign out everywhere else on B, then a change of password on B: the person's other sessions,
    # cached on A, end there within 1 s; the session that asked (its new token, after the change)
    # stays signed in on A.
    laptop_cookies, phone_cookies = {}, {}
    sign_in_with(Client(cluster.address("B"), laptop_cookies), "linus", PASSWORD)
    sign_in_with(Client(cluster.address("A"), phone_cookies), "linus", PASSWORD)
    endings = []
    for what, action, fields in (
            ("Sign out everywhere else", "/profile/sessions/end-others", {}),
            ("a change of password", "/profile/password",
             {"current_password": PASSWORD, "password": PASSWORD + " 2", "password_confirmation": PASSWORD + " 2"})):
        if not phone_cookies:
            sign_in_with(Client(cluster.address("A"), phone_cookies), "linus", PASSWORD)
        phone = Client(cluster.address("A"), phone_cookies)
        check(phone.get("/profile/edit").status == 200, f"(a) before {what}, the phone's session is not signed in on A")
        laptop = Client(cluster.address("B"), laptop_cookies)
        form = laptop.get("/profile/sessions")
        check(form.status == 200 and "/end\"" in form.body, f"(a) B's sessions page does not list the phone ({form.status})")
        answer = laptop.post(action, dict(fields, csrf_token=field(form.body, "csrf_token")))
        check(answer.status == 303, f"(a) {what} on B answered {answer.status}")
        answered = time.monotonic()
        while phone.get("/profile/edit").status != 303:
            check(time.monotonic() < answered + 1, f"(a) 1 s after {what} on B, the phone's session still works on A")
            time.sleep(0.002)
        endings.append(time.monotonic() - answered)
        check(Client(cluster.address("A"), dict(laptop_cookies)).get("/profile/edit").status == 200,
              f"(a) after {what} on B, the session that asked is not signed in on A")
        phone_cookies.clear()
    # Deleting the account on B: the phone's session on A ends within 1 s, A forgets the person
    # (profile 404, their quote by "a former member") and the username is free again on A.
    sign_in_with(Client(cluster.address("A"), phone_cookies), "linus", PASSWORD + " 2")
    phone = Client(cluster.address("A"), phone_cookies)
    quote = add_quote(phone, "Given to the book before leaving it", "Linus")
    laptop = Client(cluster.address("B"), laptop_cookies)
    form = laptop.get("/profile/delete")
    check(form.status == 200, f"(a) B's delete-account page answered {form.status}")
    answer = laptop.post("/profile/delete", {"password": PASSWORD + " 2", "csrf_token": field(form.body, "csrf_token")})
    check(answer.status == 303, f"(a) deleting the account on B answered {answer.status}")
    answered = time.monotonic()
    while phone.get("/profile/edit").status != 303:
        check(time.monotonic() < answered + 1, "(a) 1 s after deleting the account on B, the phone's session still works on A")
        time.sleep(0.002)
    deleted = time.monotonic() - answered
    while Client(cluster.address("A"), {}).get("/users/linus").status != 404:
        check(time.monotonic() < answered + 1, "(a) 1 s after deleting the account on B, A still shows the profile")
        time.sleep(0.002)
    shown = Client(cluster.address("A"), {}).get(f"/quotes/{quote}")
    check(shown.status == 200 and "a former member" in shown.body and "/users/linus" not in shown.body,
          f"(a) after the deletion, A's page of the person's quote does not say 'a former member' ({shown.status})")
    stranger = Client(cluster.address("A"), {})
    login = stranger.get("/login")
    refused = stranger.post("/login", {"username": "linus", "password": PASSWORD + " 2", "csrf_token": field(login.body, "csrf_token")})
    check(refused.status == 401, f"(a) after the deletion, signing in with the old password on A answered {refused.status}")
    sign_up(Client(cluster.address("A"), {}), "linus", "Another Linus")
    figures.append(f"(a) sessions made on A are signed in on B at the first request, and the other way round "
                   f"({2 + through_nginx} sign-ups, {through_nginx} through nginx); sign-out on B ends it on A "
                   f"{milliseconds(ended)} after; Sign out everywhere else and a change of password on B end the "
                   f"other session on A {milliseconds(endings[0])} and {milliseconds(endings[1])} after; deleting "
                   f"the account on B ends its session on A {milliseconds(deleted)} after, and the username is free")
    return ada_cookies, grace_cookies


def check_password_reset(cluster, figures):
    """(i) Mail with two instances: an address given on A is verified on B; a reset asked for on A
    is mailed exactly once (both instances' senders watch the one outbox); the link sets the
    password on A, and the session Ella has on B ends at once."""
    relay = cluster.relay
    ella_a = Client(cluster.address("A"), {})
    form = ella_a.get("/signup")
    signed_up = ella_a.post("/signup", {"username": "ella", "display_name": "Ella", "password": PASSWORD,
                                        "password_confirmation": PASSWORD, "email": "ella@example.org",
                                        "csrf_token": field(form.body, "csrf_token")})
    check(signed_up.status == 303, f"sign-up with an address answered {signed_up.status}")
    verify = MailRelay.link(relay.wait_for("ella@example.org", "Confirm"), "/email/verify")
    target = verify[verify.index("/email/verify"):]
    visitor_b = Client(cluster.address("B"), {})
    page = visitor_b.get(target)
    check(page.status == 200, f"the verification link on B answered {page.status}")
    confirmed = visitor_b.post("/email/verify", {"token": target.split("=", 1)[1], "csrf_token": field(page.body, "csrf_token")})
    check(confirmed.status == 303, f"confirming the address on B answered {confirmed.status}")
    ella_b = Client(cluster.address("B"), {})
    sign_in_with(ella_b, "ella", PASSWORD)
    check(ella_b.get("/profile/edit").status == 200, "Ella's session on B does not reach her edit page")

    before = len(relay.messages())
    stranger_a = Client(cluster.address("A"), {})
    form = stranger_a.get("/password/forgot")
    asked = stranger_a.post("/password/forgot", {"email": "ella@example.org", "csrf_token": field(form.body, "csrf_token")})
    check(asked.status == 200, f"asking for a reset link on A answered {asked.status}")
    reset = MailRelay.link(relay.wait_for("ella@example.org", "Reset", after=before), "/password/reset")
    # Both senders poll the outbox every few seconds: give the other one time to send it again.
    time.sleep(6)
    resets = [m for m in relay.messages()[before:] if "Reset" in m["Subject"]]
    check(len(resets) == 1, f"the reset mail was sent {len(resets)} times")
    target = reset[reset.index("/password/reset"):]
    page = stranger_a.get(target)
    check(page.status == 200, f"the reset link on A answered {page.status}")
    new_password = "a new cluster password"
    done = stranger_a.post("/password/reset", {"token": target.split("=", 1)[1], "password": new_password,
                                               "password_confirmation": new_password,
                                               "csrf_token": field(page.body, "csrf_token")})
    check(done.status == 303 and done.header("Location") == "/login", f"setting the password answered {done.status}")
    ended = time.monotonic()
    while ella_b.get("/profile/edit").status != 303:
        check(time.monotonic() - ended < 2, "Ella's session on B outlived the reset on A by 2 s")
        time.sleep(0.05)
    waited = time.monotonic() - ended
    sign_in_with(Client(cluster.address("B"), {}), "ella", new_password)
    relay.wait_for("ella@example.org", "password was changed", after=before)
    figures.append(f"(i) mail: an address given on A verified on B; a reset asked for on A mailed once (through a "
                   f"relay with STARTTLS and AUTH); the session on B ended {milliseconds(waited)} after the reset on A")


def make_moderator(cluster, username):
    """`quotebook user role NAME moderator` with the instances' own --database, while they run."""
    result = subprocess.run([cluster.executable, "user", "role", username, "moderator", "--database", cluster.database],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    check(result.returncode == 0, f"quotebook user role {username} moderator exited {result.returncode}: "
                                  f"{(result.stdout + result.stderr).strip()}")


def check_moderation(cluster, ada, figures):
    """(j) A moderator made with `quotebook user role` (on the instances' database, while they run)
    may moderate on both instances; Sam, signed in on B, is suspended by the moderator on A: B stops
    honouring Sam's session (within 1 s), and Sam's sign-in on B then answers 403 saying the account
    is suspended, until the suspension is lifted on A.
    (k) A quote reported on B is in A's queue; hidden on A, a live stream of it opened on B is told
    it is gone (the `deleted` event) within 10 s and ends, and B answers its page 404 to a member
    (200, marked hidden, to the moderator)."""
    a, b = cluster.address("A"), cluster.address("B")
    mona = {}
    sign_up(Client(a, mona), "mona", "Mona Moderator")
    check(Client(b, dict(mona)).get("/moderation").status == 403, "(j) a member's GET /moderation on B is not 403")
    make_moderator(cluster, "mona")
    granted = time.monotonic()
    for name, address in (("A", a), ("B", b)):
        client = Client(address, dict(mona))
        while (status := client.get("/moderation").status) != 200:
            check(status == 403, f"(j) the moderator's GET /moderation on {name} answered {status}")
            check(time.monotonic() < granted + 2,
                  f"(j) 2 s after `quotebook user role mona moderator`, GET /moderation on {name} is still 403")
            time.sleep(0.005)
    role_seen = time.monotonic() - granted
    moderator = Client(a, mona)

    # (j) Suspension on A of a person signed in on B.
    sam = {}
    sign_up(Client(b, sam), "sam", "Sam Suspended")
    probe = Client(b, dict(sam))
    check(probe.get("/profile/edit").status == 200, "(j) Sam's session made on B is not signed in on B")
    profile = moderator.get("/users/sam")
    check(profile.status == 200 and 'action="/users/sam/suspend"' in profile.body,
          f"(j) A's profile of Sam shows the moderator no suspend form ({profile.status})")
    answer = moderator.post("/users/sam/suspend", {"reason": "Cluster test: a suspension",
                                                   "csrf_token": field(profile.body, "csrf_token")})
    answered = time.monotonic()
    check(answer.status == 303 and answer.header("Location") == "/users/sam",
          f"(j) suspending Sam on A answered {answer.status} to {answer.header('Location')!r}")
    requests = 0
    while True:
        signed_out = probe.get("/profile/edit")
        requests += 1
        if signed_out.status == 303:
            break
        check(signed_out.status == 200, f"(j) after the suspension, Sam's GET /profile/edit on B answered {signed_out.status}")
        check(time.monotonic() < answered + 1, "(j) 1 s after the suspension on A, Sam's session still works on B")
        time.sleep(0.002)
    suspended_after = time.monotonic() - answered
    check((signed_out.header("Location") or "").startswith("/login"),
          f"(j) Sam's signed-out GET /profile/edit on B went to {signed_out.header('Location')!r}")
    home = Client(b, dict(sam)).get("/")
    check(home.status == 200 and "Sam Suspended" not in home.body,
          f"(j) B's home page to Sam's old cookie answered {home.status} or still shows Sam signed in")
    stranger = Client(b, {})
    form = stranger.get("/login")
    wrong = stranger.post("/login", {"username": "sam", "password": "not sam's password",
                                     "csrf_token": field(form.body, "csrf_token")})
    check(wrong.status == 401 and "suspended" not in wrong.body,
          f"(j) a wrong password for suspended Sam on B answered {wrong.status}"
          f"{' and told of the suspension' if 'suspended' in wrong.body else ''}")
    form = stranger.get("/login")
    refused = stranger.post("/login", {"username": "sam", "password": PASSWORD,
                                       "csrf_token": field(form.body, "csrf_token")})
    check(refused.status == 403 and "suspended" in refused.body,
          f"(j) Sam's sign-in with the right password on B answered {refused.status}"
          f"{'' if 'suspended' in refused.body else ' without saying the account is suspended'}")
    check("quotebook_session" not in stranger.cookies, "(j) Sam's refused sign-in on B set a session cookie")
    shown = Client(b, {}).get("/users/sam")
    check(shown.status == 200 and "This account is suspended." in shown.body,
          f"(j) B's profile of Sam does not say the account is suspended ({shown.status})")
    # Lifted on A: Sam signs in on B again once B has followed (within 2 s).
    profile = moderator.get("/users/sam")
    lifted = moderator.post("/users/sam/unsuspend", {"reason": "Cluster test: lifted",
                                                     "csrf_token": field(profile.body, "csrf_token")})
    check(lifted.status == 303, f"(j) lifting Sam's suspension on A answered {lifted.status}")
    lifted_at = time.monotonic()
    while "This account is suspended." in Client(b, {}).get("/users/sam").body:
        check(time.monotonic() < lifted_at + 2, "(j) 2 s after the suspension was lifted on A, B's profile still says it")
        time.sleep(0.005)
    sign_in_with(Client(b, {}), "sam", PASSWORD)
    figures.append(f"(j) `quotebook user role` made a moderator of a running cluster's member: /moderation answered "
                   f"200 on A and B {milliseconds(role_seen)} after the command exited; a suspension on A ended the "
                   f"session on B {milliseconds(suspended_after)} after its 303 ({requests} request"
                   f"{'s' if requests != 1 else ''} on B, the last signed out); B then refused Sam's sign-in with "
                   f"403 saying the account is suspended (a wrong password: 401), and took it again once lifted on A")

    # (k) A report on B reaches A's queue; hiding on A reaches a live stream on B.
    author = Client(a, dict(ada))
    quote = add_quote(author, "A quote the moderators will hide", "Ada")
    await_version(cluster, quote, 1)
    reporter = Client(b, dict(ada))
    page = reporter.get(f"/quotes/{quote}")
    check(page.status == 200 and f'action="/quotes/{quote}/report"' in page.body,
          f"(k) B's page of quote {quote} has no report form ({page.status})")
    reason = f"Cluster test report of quote {quote}"
    reported = reporter.post(f"/quotes/{quote}/report", {"reason": reason, "csrf_token": field(page.body, "csrf_token")})
    check(reported.status == 303 and reported.header("Location") == f"/quotes/{quote}",
          f"(k) reporting quote {quote} on B answered {reported.status} to {reported.header('Location')!r}")
    reported_at = time.monotonic()
    while reason not in (queue := moderator.get("/moderation")).body:
        check(queue.status == 200, f"(k) the moderator's GET /moderation on A answered {queue.status}")
        check(time.monotonic() < reported_at + 2, "(k) 2 s after a report on B, A's moderation queue does not list it")
        time.sleep(0.005)
    queued_after = time.monotonic() - reported_at
    stream = cluster.stream(b, quote)
    check(stream.wait_for(1, 5), f"(k) the stream of quote {quote} on B did not start with version 1")
    hidden = moderator.post(f"/quotes/{quote}/hide", {"reason": "Cluster test: hidden",
                                                     "csrf_token": field(queue.body, "csrf_token")})
    hidden_at = time.monotonic()
    check(hidden.status == 303 and hidden.header("Location") == "/moderation",
          f"(k) hiding quote {quote} on A answered {hidden.status} to {hidden.header('Location')!r}")
    gone = stream.wait_for_deleted(10)
    check(gone, f"(k) 10 s after quote {quote} was hidden on A, its stream on B was not told it is gone "
                f"(ended: {stream.ended})")
    data, arrived = gone
    check(data.get("id") == quote and data.get("url") == f"/quotes/{quote}",
          f"(k) the stream on B said {data!r} of hidden quote {quote}")
    check(stream.wait_ended(5), f"(k) B did not end quote {quote}'s stream within 5 s of telling it is gone")
    member_page = Client(b, dict(ada)).get(f"/quotes/{quote}")
    check(member_page.status == 404, f"(k) B answered the hidden quote's page with {member_page.status} to a member")
    check(Client(b, {}).get(f"/quotes/{quote}/history").status == 404,
          "(k) B answered the hidden quote's history with other than 404 to a visitor")
    check("A quote the moderators will hide" not in Client(b, dict(ada)).get("/quotes").body,
          "(k) B's list of quotes still shows the hidden quote")
    seen = Client(b, dict(mona)).get(f"/quotes/{quote}")
    check(seen.status == 200 and "Cluster test: hidden" in seen.body,
          f"(k) B answered the hidden quote's page to the moderator with {seen.status}"
          f"{'' if seen.status != 200 else ' without the reason'}")
    figures.append(f"(k) a report on B was in A's moderation queue {milliseconds(queued_after)} after its 303; "
                   f"hidden on A, the quote's stream on B got the `deleted` event {milliseconds(max(0.0, arrived - hidden_at))} "
                   f"after the 303 and ended; B then answered its page 404 to a member, 200 (with the reason) to the "
                   f"moderator")


def check_live_updates(cluster, ada, figures, label="(b)", edits=LATENCY_EDITS, quote=None, streams=None):
    on_a = Client(cluster.address("A"), dict(ada))
    on_b = Client(cluster.address("B"), {})
    if quote is None:
        quote = add_quote(on_a, "Live from A", "Ada")
        await_version(cluster, quote, 1)
        streams = [cluster.stream(cluster.address("B"), quote),
                   cluster.stream(("127.0.0.1", cluster.nginx_port), quote)]
    version, token = edit_form(on_a, quote)
    for stream in streams:
        check(stream.wait_for(version, 5), f"{label}: a new stream did not start with version {version}")
    latencies = {name: [] for name, _ in zip(("B", "nginx"), streams)}
    for index in range(edits):
        text = f"Edit {index} of {label} saved on A"
        response = on_a.post(f"/quotes/{quote}", {"text": text, "author": "Ada", "version": version,
                                                  "csrf_token": token})
        answered = time.monotonic()
        check(response.status == 303, f"{label}: edit {index} on A answered {response.status}")
        version += 1
        for name, stream in zip(("B", "nginx"), streams):
            event = stream.wait_for(version, 5)
            check(event, f"{label}: the stream on {name} did not get version {version} within 5 s")
            data, arrived = event
            check(data["text"] == text, f"{label}: the event on {name} has text {data['text']!r}")
            latencies[name].append(max(0.0, arrived - answered))
        page = on_b.get(f"/quotes/{quote}")
        check(page.status == 200 and text in page.body, f"{label}: B's quote page does not show edit {index}")
    result = {}
    for name, values in latencies.items():
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        result[name] = (p50, p99)
        figures.append(f"{label} 303 on A -> event on {name} stream, {edits} edits: p50 {milliseconds(p50)}, "
                       f"p99 {milliseconds(p99)}, max {milliseconds(max(values))}")
        check(p99 <= LATENCY_LIMIT, f"{label}: p99 from the 303 on A to the event on {name} is {milliseconds(p99)} "
                                    f"(limit {milliseconds(LATENCY_LIMIT)})")
    return quote, streams


def check_conflicts(cluster, ada, grace, figures):
    on_a = Client(cluster.address("A"), dict(ada))
    quote = add_quote(on_a, "Raced over", "Ada")
    await_version(cluster, quote, 1)
    rounds = [("A/B", [cluster.address("A"), cluster.address("B")])] * 4
    rounds.append(("nginx", [("127.0.0.1", cluster.nginx_port)]))
    version = 1
    for number, (how, addresses) in enumerate(rounds, start=1):
        await_version(cluster, quote, version)
        people = [ada, grace]
        clients = [Client(addresses[i % len(addresses)], dict(people[i % 2])) for i in range(RACE_SIZE)]
        forms = [edit_form(client, quote) for client in clients]  # also opens each keep-alive connection
        versions = {form_version for form_version, _ in forms}
        check(versions == {version}, f"(c) round {number}: the edit forms give versions {sorted(versions)}, "
                                     f"not {version}")
        barrier = threading.Barrier(RACE_SIZE, timeout=REQUEST_TIMEOUT)
        statuses = [None] * RACE_SIZE

        def save(index):
            barrier.wait()
            try:
                statuses[index] = clients[index].post(
                    f"/quotes/{quote}", {"text": f"Round {number}, saver {index}", "author": "Racer",
                                         "version": version, "csrf_token": forms[index][1]}).status
            except (OSError, http.client.HTTPException) as error:
                statuses[index] = type(error).__name__

        threads = [threading.Thread(target=save, args=(index,), daemon=True) for index in range(RACE_SIZE)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=2 * REQUEST_TIMEOUT)
        check(statuses.count(303) == 1 and statuses.count(409) == RACE_SIZE - 1,
              f"(c) round {number} ({how}): {RACE_SIZE} saves from version {version} answered {statuses}")
        winner = f"Round {number}, saver {statuses.index(303)}"
        version += 1
        await_version(cluster, quote, version)
        for name in ("A", "B"):
            page = Client(cluster.address(name), {}).get(f"/quotes/{quote}")
            check(f'data-version="{version}"' in page.body and winner in page.body,
                  f"(c) round {number}: {name} does not show version {version} with the winner's text")
        for client in clients:
            client.close()
    figures.append(f"(c) {len(rounds)} rounds of {RACE_SIZE} concurrent saves from one version "
                   f"(4 alternating A/B, 1 through nginx): each exactly one 303 and {RACE_SIZE - 1} 409")


def check_read_your_writes(cluster, ada, figures, rounds=50):
    """A person who saves through nginx and follows the 303 (to the other instance, round robin)
    always sees the save: the answer carries `quotebook_seen`, and an instance that has not
    applied that far catches up before it answers."""
    person = Client(("127.0.0.1", cluster.nginx_port), dict(ada))
    missing = stale = 0
    for index in range(rounds):
        quote = add_quote(person, f"Read back {index}", "Ada")
        check("quotebook_seen" in person.cookies, "(f) a save through nginx set no quotebook_seen cookie")
        page = person.get(f"/quotes/{quote}")
        missing += page.status == 404
        check(page.status in (200, 404), f"GET /quotes/{quote} after adding it answered {page.status}")
        version, token = edit_form(person, quote)
        response = person.post(f"/quotes/{quote}", {"text": f"Read back {index}, edited", "author": "Ada",
                                                     "version": version, "csrf_token": token})
        check(response.status == 303, f"(f) an edit through nginx answered {response.status}")
        stale += f'data-version="{version + 1}"' not in person.get(f"/quotes/{quote}").body
    figures.append(f"(f) read-your-writes through nginx: the page right after the 303 was 404 after "
                   f"{missing} of {rounds} adds, and showed the old version after {stale} of {rounds} edits")
    check(missing == 0 and stale == 0,
          f"(f) read-your-writes: {missing} of {rounds} adds answered 404 and {stale} of {rounds} edits showed the "
          "old version on the page right after the 303")


def make_writers(cluster, cookies, stop, spec, pause=0.0):
    """One Writer per (name, address) in `spec`, each on a quote of its own."""
    on_a = Client(cluster.address("A"), dict(cookies))
    writers = [Writer(name, address, cookies, add_quote(on_a, f"{name} starts here", name), stop, pause)
               for name, address in spec]
    for writer in writers:
        await_version(cluster, writer.quote, 1)
    return writers


def summarize(writers):
    answers = {}
    for writer in writers:
        for outcome, count in writer.answers.items():
            answers[str(outcome)] = answers.get(str(outcome), 0) + count
    return ", ".join(f"{outcome}: {count}" for outcome, count in sorted(answers.items()))


def sign_in(address, username, display_name):
    """A fresh sign-in on `address` (the instance writes a session row); its status."""
    client = Client(address, {})
    form = client.get("/login")
    check(form.status == 200, f"GET /login answered {form.status}")
    response = client.post("/login", {"username": username, "password": PASSWORD, "return_to": "/",
                                      "csrf_token": field(form.body, "csrf_token")})
    if response.status == 303:
        check(display_name in client.get("/").body, f"signed in on port {address[1]}, the home page lacks the name")
    return response.status, client


def png_bytes():
    """A 1x1 PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def noise_png(size):
    """A PNG of random pixels, 1,800 px wide and tall enough to be at least `size` bytes: noise
    does not compress, so it stays as large as a phone's photo (stored deflate blocks)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    width = 1800
    height = -(-size // (width * 3))
    rows = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b""))


def upload_photo(client, photo=None):
    form = client.get("/profile/edit")
    check(form.status == 200, f"GET /profile/edit answered {form.status}")
    boundary = "clustertestboundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"
            f"{field(form.body, 'csrf_token')}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; "
            f"filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n").encode()
    body += (photo or png_bytes()) + f"\r\n--{boundary}--\r\n".encode()
    return client.request("POST", "/profile/photo", raw=(body, f"multipart/form-data; boundary={boundary}")).status


def check_large_photo(cluster, ada, figures):
    photo = noise_png(10 * 1024 * 1024)
    through_nginx = Client(("127.0.0.1", cluster.nginx_port), dict(ada))
    started = time.monotonic()
    status = upload_photo(through_nginx, photo)
    took = time.monotonic() - started
    check(status == 303, f"(h) a {len(photo)}-byte photo through nginx answered {status}")
    for name in ("A", "B"):
        page = Client(cluster.address(name), {}).get("/users/ada")
        found = re.search(r'src="(/users/ada/photo/small\?v=[^"]+)"', page.body)
        check(page.status == 200 and found, f"(h) {name}'s profile of ada does not show the new photo ({page.status})")
        small = Client(cluster.address(name), {}).get(html.unescape(found.group(1)))
        check(small.status == 200 and small.header("content-type") == "image/webp",
              f"(h) {name} served the new photo with {small.status} {small.header('content-type')}")
    figures.append(f"(h) a {len(photo) / 1048576:.1f} MiB photo uploaded through nginx answered 303 in "
                   f"{milliseconds(took)}, and both instances serve its 96 px version")


def check_postgres_restart(cluster, ada, figures, quote, streams):
    nginx = ("127.0.0.1", cluster.nginx_port)
    stop = threading.Event()
    writers = make_writers(cluster, ada, stop, [(f"restart-writer-{i}", nginx) for i in range(4)], pause=0.01)
    readers = [Reader(nginx, "/quotes/1", stop), Reader(cluster.address("A"), "/", stop),
               Reader(cluster.address("B"), "/quotes", stop)]

    def restart():
        cluster.postgres("restart", cluster.postgres_dir, timeout=120)

    _, began, restarted = run_load(writers + readers, 9, restart, 2)
    took = restarted - began
    during = summarize(writers)
    read_failures = [outcome for reader in readers for _, outcome in reader.failures]
    late = [(writer.name, outcome) for writer in writers for at, outcome in writer.failures if at > restarted + 2]
    check(not late, f"(e) saves through nginx still failed more than 2 s after the restart: {late[:5]}")

    # Then a load on both instances (paced: (g) is about saturation) without a single failure.
    settled_stop = threading.Event()
    settled = make_writers(cluster, ada, settled_stop, [("settled-A", cluster.address("A")),
                                                        ("settled-B", cluster.address("B")), ("settled-nginx", nginx)],
                           pause=0.02)
    run_load(settled, 3)
    for writer in settled:
        check(not writer.failures, f"(e) after the restart, {writer.name} had failures: {writer.failures[:5]}")
        check(writer.acknowledged, f"(e) after the restart, {writer.name} saved nothing")
    acknowledged = expect_acknowledged_present(writers + settled, Client(cluster.address("B"), {}), "(e) on B")
    expect_acknowledged_present(writers + settled, Client(cluster.address("A"), {}), "(e) on A")
    figures.append(f"(e) PostgreSQL restart ({took:.1f} s) at 2 s into a 9 s load of 4 writers (10 ms apart) "
                   f"through nginx: "
                   f"{during}; failed reads (nginx, A, B) {len(read_failures)} {sorted(set(map(str, read_failures)))}; "
                   f"none failed from 2 s after")
    figures.append(f"(e) then 3 s of 3 paced writers (A, B, nginx): {sum(len(w.acknowledged) for w in settled)} saves, "
                   f"no failure; all {acknowledged} saves answered 303 are in the history on A and B")
    check_live_updates(cluster, ada, figures, label="(e) after the restart", edits=50, quote=quote, streams=streams[:1])

    # A restart while nothing happens: each instance's connections were idle when the server
    # ended them. The first sign-in (a session row), save (the journal) and photo (its own
    # connection) on each instance afterwards must simply work.
    cluster.postgres("restart", cluster.postgres_dir, timeout=120)
    time.sleep(1)  # a while later
    first = {}
    for name in ("A", "B"):
        answers = []
        status, person = sign_in(cluster.address(name), "grace", "Grace Hopper")
        answers.append(status)
        if status == 303:
            version, token = edit_form(person, quote)
            answers.append(person.post(f"/quotes/{quote}", {"text": f"{name} after an idle restart", "author": "Grace",
                                                            "version": version, "csrf_token": token}).status)
            answers.append(upload_photo(person))
            await_version(cluster, quote, version + 1)
        first[name] = tuple(answers)
    figures.append(f"(e) after a restart while idle, the first sign-in, save and photo on A and on B answered "
                   f"{first['A']} and {first['B']}")
    for name, answers in first.items():
        check(answers == (303, 303, 303),
              f"(e) after a restart while idle, the first sign-in, save and photo on {name} answered {answers}")


def check_contention(cluster, ada, figures):
    """Both instances take saves as fast as they can: every save is answered 303 or 409, never
    500 (each instance's optimistic appends keep losing to the other's commits, so after two
    refusals a save holds the journal's head), and every 303 is in the history."""
    stop = threading.Event()
    writers = make_writers(cluster, ada, stop, [(f"busy-{name}-{i}", cluster.address(name))
                                                for name in ("A", "B") for i in range(2)])
    run_load(writers, 3)
    expect_acknowledged_present(writers, Client(cluster.address("A"), {}), "(g) on A")
    failed = sum(len(writer.failures) for writer in writers)
    saved = sum(len(writer.acknowledged) for writer in writers)
    figures.append(f"(g) saturated: 4 unpaced writers, 2 straight to each instance, 3 s: "
                   f"{summarize(writers)} ({failed} failed)")
    check(failed == 0, f"(g) {failed} saves under saturation answered neither 303 nor 409: {summarize(writers)}")
    check(saved > 0, "(g) no save under saturation was answered 303")


def check_kill(cluster, ada, figures):
    nginx = ("127.0.0.1", cluster.nginx_port)
    stop = threading.Event()
    writers = make_writers(cluster, ada, stop, [(f"kill-writer-nginx-{i}", nginx) for i in range(4)]
                           + [(f"kill-writer-B-{i}", cluster.address("B")) for i in range(2)], pause=0.01)
    readers = [Reader(nginx, "/quotes", stop), Reader(nginx, f"/quotes/{writers[0].quote}", stop),
               Reader(cluster.address("B"), "/", stop)]

    def kill():
        os.kill(cluster.instances["A"].process.pid, signal.SIGKILL)
        cluster.instances["A"].process.wait(timeout=10)

    _, killed, _ = run_load(writers + readers, 8, kill, 2.5)
    for reader in readers:
        check(not reader.failures, f"(d) GET {reader.path} via port {reader.client.port} failed: {reader.failures[:5]}")
    before = []
    for writer in writers:
        late = [outcome for at, outcome in writer.failures if at > killed + 1]
        check(not late, f"(d) {writer.name} had failures from 1 s after the kill on: {late[:5]}")
        if writer.client.port == cluster.instances["B"].port:
            after = [outcome for at, outcome in writer.failures if at > killed]
            check(not after, f"(d) {writer.name}, straight to B, had failures after the kill: {after[:5]}")
            before += [outcome for at, outcome in writer.failures if at <= killed]
        check([at for _, _, at in writer.acknowledged if at > killed + 1],
              f"(d) {writer.name} had no save answered 303 from 1 s after the kill")
    around = [outcome for writer in writers[:4] for at, outcome in writer.failures if at > killed]
    acknowledged = expect_acknowledged_present(writers, Client(cluster.address("B"), {}), "(d) on B")
    reads = sum(reader.count for reader in readers)

    # A again, on its port: it has every acknowledged save.
    cluster.start_instance("A", port=cluster.instances["A"].port)
    expect_acknowledged_present(writers, Client(cluster.address("A"), {}), "(d) on A started again")
    figures.append(f"(d) kill -9 of A at 2.5 s into an 8 s load (4 writers via nginx, 2 straight to B, 10 ms apart; "
                   f"3 readers): {summarize(writers)}; saves via nginx failed within 1 s of the kill: {len(around)} "
                   f"({', '.join(sorted(set(map(str, around)))) or 'none'}), later none; "
                   f"straight to B none after the kill ({len(before)} before it); {reads} reads, none failed")
    figures.append(f"(d) all {acknowledged} saves answered 303 are in the history on B, and on A started again")


def check_compression(cluster, ada, figures):
    def fetch(address, path, cookies=None, accept_gzip=True):
        connection = http.client.HTTPConnection(*address, timeout=REQUEST_TIMEOUT)
        try:
            headers = {"Host": f"{address[0]}:{address[1]}"}
            if accept_gzip:
                headers["Accept-Encoding"] = "gzip"
            if cookies:
                headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            return response.status, {key.lower(): value for key, value in response.getheaders()}, response.read()
        finally:
            connection.close()

    nginx = ("127.0.0.1", cluster.nginx_port)
    sizes = []
    for path in ("/site.css", "/live.js"):
        status, headers, body = fetch(nginx, path)
        check(status == 200 and headers.get("content-encoding") == "gzip",
              f"(l) {path} through nginx: {status}, Content-Encoding {headers.get('content-encoding')!r}")
        check("accept-encoding" in headers.get("vary", "").lower(), f"(l) {path} through nginx says no Vary: Accept-Encoding")
        _, _, direct = fetch(cluster.address("A"), path, accept_gzip=False)
        check(zlib.decompress(body, 16 + zlib.MAX_WBITS) == direct, f"(l) {path} through nginx does not unpack to the instance's bytes")
        status, headers, _ = fetch(nginx, path, accept_gzip=False)
        check(status == 200 and "content-encoding" not in headers, f"(l) {path} compressed for a client that did not ask")
        sizes.append(f"{path} {len(direct)} → {len(body)} bytes")
    for path, cookies in (("/", None), ("/quotes", dict(ada)), ("/quotes?q=secret+words", dict(ada)), ("/login", None)):
        status, headers, body = fetch(nginx, path, cookies)
        check(status == 200 and "content-encoding" not in headers,
              f"(l) the page {path} went compressed through nginx ({status}, {headers.get('content-encoding')!r})")
        if "q=" in path:
            check(b"secret words" in body and b"csrf_token" in body, "(l) the search page lacks its words or its CSRF token")
    figures.append(f"(l) through nginx, gzipped: {', '.join(sizes)}; pages (signed in and out, a search) never")


def expect_nginx_log(cluster):
    path = os.path.join(cluster.nginx_prefix, "logs", "access.log")
    with open(path) as file:
        lines = file.read().splitlines()
    check(lines, "nginx's access log is empty")
    for name in ("A", "B"):
        upstream = f"upstream=127.0.0.1:{cluster.instances[name].port}"
        check(any(line.startswith("127.0.0.1 ") and upstream in line for line in lines),
              f"nginx's access log has no line with the client's address and {upstream}")
    return len(lines)


def expect_forwarded_client_logged(cluster):
    """A GET through nginx claiming X-Forwarded-For 198.51.100.23: nginx appends the address it
    saw (127.0.0.1, trusted by the instances, so the walk goes on past it) and the instance that
    answered logs 198.51.100.23 as the client; the readiness GETs, which claimed nothing, as
    127.0.0.1."""
    connection = http.client.HTTPConnection("127.0.0.1", cluster.nginx_port, timeout=REQUEST_TIMEOUT)
    try:
        connection.request("GET", "/healthz", headers={"X-Forwarded-For": "198.51.100.23"})
        response = connection.getresponse()
        response.read()
        check(response.status == 200, f"GET /healthz through nginx answered {response.status}")
    finally:
        connection.close()
    deadline = time.monotonic() + 5
    while True:
        lines = []
        for name in ("A", "B"):
            with open(os.path.join(cluster.work, f"instance-{name}.log"), errors="replace") as file:
                lines += [line for line in file if " GET /healthz 200 " in line]
        forwarded = [line for line in lines if "198.51.100.23 GET /healthz 200 " in line]
        direct = [line for line in lines if "127.0.0.1 GET /healthz 200 " in line]
        if forwarded and direct:
            return
        if time.monotonic() > deadline:
            fail(f"no instance logged the forwarded client (198.51.100.23) and the direct one: {lines[-4:]}")
        time.sleep(0.05)


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    executable, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])

    def interrupt(reason):
        def handler(*_):
            # Once: the clean-up that follows must not be interrupted in turn.
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            raise Failed(reason)
        return handler

    signal.signal(signal.SIGALRM, interrupt(f"the whole test took longer than {OVERALL_TIMEOUT} s"))
    signal.signal(signal.SIGTERM, interrupt("stopped by SIGTERM"))
    signal.alarm(OVERALL_TIMEOUT)
    started = time.monotonic()
    figures = []
    cluster = Cluster(executable, root)
    failure = None
    try:
        cluster.start_postgres()
        cluster.start_instance("A")
        cluster.start_instance("B")
        cluster.start_nginx()
        ada, grace = check_sessions(cluster, figures)
        check_large_photo(cluster, ada, figures)
        check_password_reset(cluster, figures)
        check_moderation(cluster, ada, figures)
        quote, streams = check_live_updates(cluster, ada, figures)
        check_conflicts(cluster, ada, grace, figures)
        check_read_your_writes(cluster, ada, figures)
        check_postgres_restart(cluster, ada, figures, quote, streams)
        check_contention(cluster, ada, figures)
        check_kill(cluster, ada, figures)
        check_compression(cluster, ada, figures)
        figures.append(f"nginx access log: {expect_nginx_log(cluster)} lines with the client's address and both "
                       "instances as upstream")
        expect_forwarded_client_logged(cluster)
        figures.append("instance access log: a request through nginx is logged with the client nginx forwarded for")
    except Exception as error:  # noqa: BLE001  (reported below, after the clean-up has started)
        failure = error
        print(cluster.logs(), file=sys.stderr)
        traceback.print_exc()
    finally:
        signal.alarm(0)
        if os.environ.get("QUOTEBOOK_CLUSTER_LOGS"):
            cluster.keep_logs(os.environ["QUOTEBOOK_CLUSTER_LOGS"])
        problems = cluster.close()
    for line in figures:
        print(line)
    for problem in problems:
        print(f"clean-up: {problem}", file=sys.stderr)
    if failure is not None:
        print(f"FAIL after {time.monotonic() - started:.0f} s: {type(failure).__name__}: {failure}", file=sys.stderr)
        return 1
    if problems:
        print("FAIL: the clean-up had problems", file=sys.stderr)
        return 1
    print(f"PASS ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
