#!/usr/bin/env python3
"""Open event streams on one quote and time the fan-out of an edit (standard library only).

Against a running Quotebook (pid --pid, for its memory and CPU from /proc):

1. signs up one account (GET /signup, POST /signup) and warms up with a few page views;
2. idle: the server's VmRSS (/proc/PID/status), twice --settle seconds apart, the larger kept;
3. opens --streams connections with `GET /quotes/1/events` (non-blocking sockets, one epoll
   selector, one thread) and waits until every one has received the quote's current version;
   then the server's VmRSS again (after --settle seconds): the cost of the open streams;
4. --edits times: saves an edit of quote 1 (GET /quotes/1/edit for the version and token, then
   POST /quotes/1, expecting 303) and records, from just before the POST is sent, when the
   event with the new version (`id: N`) has arrived on the first, the median and the last
   stream; also the POST's own time and the server's CPU time (utime + stime) over the round;
5. closes every stream and reads VmRSS once more.

Prints one JSON object on stdout. Any stream that fails or misses an event makes the run fail
(exit 1) with the reason on standard error.

usage: streams_load.py --port PORT --pid PID [--host 127.0.0.1] [--streams 1000] [--edits 5]
                       [--settle 1] [--timeout 30]
"""
import argparse
import http.client
import json
import os
import re
import selectors
import socket
import statistics
import sys
import time
import urllib.parse

CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')
VERSION = re.compile(rb'name="version" value="(\d+)"')


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Browser:
    """One keep-alive connection with a cookie jar."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.cookies = {}
        self.connection = http.client.HTTPConnection(host, port, timeout=30)

    def request(self, method, path, fields=None):
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, val = pair.partition("=")
                self.cookies[key] = val
        return response.status, data

    def form(self, path):
        status, page = self.request("GET", path)
        token = CSRF.search(page)
        if status != 200 or token is None:
            raise RuntimeError(f"GET {path}: {status}, token {token is not None}")
        return page, token.group(1).decode()


class Streams:
    """N open `text/event-stream` connections, read with one selector."""

    def __init__(self, host, port, count, path):
        self.selector = selectors.DefaultSelector()
        self.sockets = []
        request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
        for index in range(count):
            sock = socket.create_connection((host, port))
            sock.setblocking(False)
            sock.sendall(request)
            self.sockets.append(sock)
            # the tail of what arrived (to find markers split across reads), and when each
            # marker was first seen
            self.selector.register(sock, selectors.EVENT_READ, {"index": index, "tail": b""})
        self.seen = {}  # marker -> {index: time}

    def wait_for(self, marker, deadline):
        """Reads until every stream has received `marker`; returns the arrival times."""
        arrivals = self.seen.setdefault(marker, {})
        while len(arrivals) < len(self.sockets):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(f"{len(self.sockets) - len(arrivals)} streams did not receive {marker!r} in time")
            for key, _ in self.selector.select(timeout=min(remaining, 1.0)):
                now = time.monotonic()
                state = key.data
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    raise RuntimeError(f"stream {state['index']} was closed by the server")
                text = state["tail"] + data
                for known, times in self.seen.items():
                    if state["index"] not in times and known in text:
                        times[state["index"]] = now
                state["tail"] = text[-64:]
        return [arrivals[i] for i in range(len(self.sockets))]

    def close(self):
        for sock in self.sockets:
            self.selector.unregister(sock)
            sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--settle", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()

    browser = Browser(args.host, args.port)
    _, token = browser.form("/signup")
    status, _ = browser.request("POST", "/signup", {
        "username": "streams", "display_name": "Stream Bench", "password": "streams-benchmark",
        "password_confirmation": "streams-benchmark", "csrf_token": token})
    if status != 303:
        raise RuntimeError(f"sign-up answered {status}")
    for path in ("/", "/quotes/1", "/quotes/1/edit", "/quotes"):
        browser.request("GET", path)

    idle = rss_kib(args.pid)
    time.sleep(args.settle)
    idle = max(idle, rss_kib(args.pid))

    opened = time.monotonic()
    streams = Streams(args.host, args.port, args.streams, "/quotes/1/events")
    page, _ = browser.form("/quotes/1/edit")
    version = int(VERSION.search(page).group(1))
    streams.wait_for(f"\nid: {version}\n".encode(), time.monotonic() + args.timeout)
    open_seconds = time.monotonic() - opened
    time.sleep(args.settle)
    with_streams = rss_kib(args.pid)

    rounds = []
    for edit in range(args.edits):
        page, token = browser.form("/quotes/1/edit")
        version = int(VERSION.search(page).group(1))
        marker = f"\nid: {version + 1}\n".encode()
        streams.seen.setdefault(marker, {})
        cpu_before = cpu_seconds(args.pid)
        sent = time.monotonic()
        status, _ = browser.request("POST", "/quotes/1", {
            "text": f"Edit {edit + 1}: the same words reach every open page at once.",
            "author": "Stream Bench", "version": str(version), "csrf_token": token})
        answered = time.monotonic()
        if status != 303:
            raise RuntimeError(f"POST /quotes/1 answered {status}")
        arrivals = sorted(streams.wait_for(marker, sent + args.timeout))
        cpu_after = cpu_seconds(args.pid)
        rounds.append({
            "version": version + 1,
            "post_ms": round((answered - sent) * 1000, 2),
            "first_ms": round((arrivals[0] - sent) * 1000, 2),
            "median_ms": round((statistics.median(arrivals) - sent) * 1000, 2),
            "last_ms": round((arrivals[-1] - sent) * 1000, 2),
            "server_cpu_ms": round((cpu_after - cpu_before) * 1000, 1),
        })
        time.sleep(args.settle / 2)

    streams.close()
    time.sleep(args.settle)
    after_close = rss_kib(args.pid)
    print(json.dumps({
        "streams": args.streams,
        "rss_idle_kib": idle,
        "rss_streams_kib": with_streams,
        "rss_delta_kib": with_streams - idle,
        "rss_per_stream_bytes": round((with_streams - idle) * 1024 / args.streams),
        "rss_after_close_kib": after_close,
        "open_all_s": round(open_seconds, 3),
        "rounds": rounds,
        "last_ms_max": max(r["last_ms"] for r in rounds),
        "last_ms_median": statistics.median(r["last_ms"] for r in rounds),
    }))


if __name__ == "__main__":
    try:
        main()
    except Exception as failure:  # noqa: BLE001 - reported, then a non-zero exit
        print(f"streams_load: {failure}", file=sys.stderr)
        sys.exit(1)
