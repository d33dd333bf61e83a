#!/usr/bin/env python3
"""A quote's history page while people save (standard library only).

Against a running Quotebook on a fresh data directory:

1. signs up one person, adds quote H and saves it --versions - 1 more times (sequentially), and
   adds one quote per writer;
2. idle: --reads sequential GET /quotes/H/history (the first page), one keep-alive connection;
3. under load: --writers threads, each on its own connection, save their own quote as fast as
   the server answers (POST /quotes/W with the version they last made); after --settle seconds
   the same --reads GETs again, then the writers stop.

Prints one JSON object: for each phase the history page's latency (p50, p90, p99, max in ms),
its size in bytes, and under load the saves made and their latency.

usage: history_load.py --port PORT [--host 127.0.0.1] [--versions 2000] [--writers 16]
                       [--reads 200] [--settle 1]
"""
import argparse
import http.client
import json
import math
import re
import threading
import time
import urllib.parse

CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')
PASSWORD = "history benchmark password"


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values), max(1, math.ceil(p / 100 * len(sorted_values)))) - 1]


def summary(seconds):
    values = sorted(seconds)
    return {name: round(percentile(values, p) * 1000, 3) for name, p in (("p50", 50), ("p90", 90), ("p99", 99))} | {
        "max": round(values[-1] * 1000, 3), "count": len(values)}


class Client:
    """One keep-alive connection with the cookies the server set."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.cookies = {}
        self.connection = http.client.HTTPConnection(host, port, timeout=60)

    def request(self, method, target, body=None):
        headers = {"Host": f"{self.host}:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(body).encode()
        self.connection.request(method, target, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, cookie = pair.partition("=")
                if cookie:
                    self.cookies[key] = cookie
                else:
                    self.cookies.pop(key, None)
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        return response.status, response.getheader("Location"), data

    def token(self, target="/"):
        _, _, page = self.request("GET", target)
        match = CSRF.search(page)
        if not match:
            raise SystemExit(f"no csrf_token on {target}")
        return match.group(1).decode()


def sign_up(host, port):
    client = Client(host, port)
    token = client.token("/signup")
    status, _, _ = client.request("POST", "/signup", {
        "username": "historybench", "display_name": "History Bench", "password": PASSWORD,
        "password_confirmation": PASSWORD, "csrf_token": token})
    if status != 303:
        raise SystemExit(f"sign-up answered {status}")
    return client.cookies


def add(client, token, text):
    status, location, _ = client.request("POST", "/quotes", {"text": text, "author": "Bench", "csrf_token": token})
    if status != 303 or not location:
        raise SystemExit(f"adding a quote answered {status}")
    return location


def save(client, token, quote, version, text):
    status, _, _ = client.request("POST", quote, {"text": text, "author": "Bench", "version": str(version), "csrf_token": token})
    return status


def read_history(host, port, cookies, quote, reads):
    client = Client(host, port)
    client.cookies = dict(cookies)
    latencies, size = [], 0
    for _ in range(reads):
        start = time.perf_counter()
        status, _, body = client.request("GET", quote + "/history")
        latencies.append(time.perf_counter() - start)
        if status != 200:
            raise SystemExit(f"GET {quote}/history answered {status}")
        size = len(body)
    return latencies, size


class Writer(threading.Thread):
    def __init__(self, host, port, cookies, token, quote):
        super().__init__(daemon=True)
        self.client = Client(host, port)
        self.client.cookies = dict(cookies)
        self.token, self.quote = token, quote
        self.version = 1
        self.latencies, self.failures = [], 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            start = time.perf_counter()
            status = save(self.client, self.token, self.quote, self.version, f"Saved over version {self.version}")
            self.latencies.append(time.perf_counter() - start)
            if status == 303:
                self.version += 1
            else:
                self.failures += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--versions", type=int, default=2000)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--settle", type=float, default=1.0)
    args = parser.parse_args()

    cookies = sign_up(args.host, args.port)
    client = Client(args.host, args.port)
    client.cookies = dict(cookies)
    token = client.token()
    quote = add(client, token, "Version 1")
    began = time.perf_counter()
    for version in range(1, args.versions):
        if save(client, token, quote, version, f"Version {version + 1}") != 303:
            raise SystemExit(f"saving version {version + 1} failed")
    building = time.perf_counter() - began
    writers_quotes = [add(client, token, f"Writer {i}") for i in range(args.writers)]

    idle, idle_size = read_history(args.host, args.port, cookies, quote, args.reads)

    writers = [Writer(args.host, args.port, cookies, token, q) for q in writers_quotes]
    for writer in writers:
        writer.start()
    time.sleep(args.settle)
    for writer in writers:
        writer.latencies.clear()
    loaded_began = time.perf_counter()
    loaded, loaded_size = read_history(args.host, args.port, cookies, quote, args.reads)
    loaded_seconds = time.perf_counter() - loaded_began
    for writer in writers:
        writer.stop.set()
    for writer in writers:
        writer.join(timeout=60)
    saves = [latency for writer in writers for latency in writer.latencies]

    print(json.dumps({
        "versions": args.versions, "seconds_to_make_them": round(building, 2), "writers": args.writers,
        "idle": {"history_ms": summary(idle), "page_bytes": idle_size},
        "under_writers": {
            "history_ms": summary(loaded), "page_bytes": loaded_size,
            "saves": len(saves), "saves_per_second": round(len(saves) / loaded_seconds, 1),
            "save_ms": summary(saves) if saves else None,
            "save_failures": sum(writer.failures for writer in writers)},
    }))


if __name__ == "__main__":
    main()
