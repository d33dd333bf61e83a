#!/usr/bin/env python3
"""Sign-in load for Quotebook (standard library only).

K threads, each on its own keep-alive connection, loop for --warmup + --duration seconds:

    GET /login            (no cookies: the answer sets quotebook_presession; keep it and
                           take the csrf_token from the form)
    POST /login           (username, password, return_to=/, csrf_token; only the pre-session
                           cookie is sent, so every attempt is a signed-out visitor)

Attempts alternate: a valid user with the right password (expects 303), then a username that
does not exist with a wrong password (expects 401; the server spends its dummy hash on it).
Every unknown username is used once, so SPEC.md's 5-failures-per-minute-per-username throttle
never trips; valid users cycle through --users and succeed, which resets their count.

Only attempts that start after --warmup are counted. Prints one JSON object on stdout:
attempts, sign-ins (303), rejections (401), other statuses, errors, rates per second, and the
POST /login latency (p50, p90, p99, max in ms) of counted attempts, and the CPU seconds this
process used from --warmup to the end.

usage: signin_load.py --port PORT [--host 127.0.0.1] --users bench01,bench02,... --password PW
                      [--threads 8] [--warmup 2] [--duration 15]
"""
import argparse
import http.client
import json
import math
import os
import re
import threading
import time
import urllib.parse

CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')
PRESESSION = "quotebook_presession"


def presession_cookie(response):
    for name, value in response.getheaders():
        if name.lower() == "set-cookie" and value.startswith(PRESESSION + "="):
            return value.split(";", 1)[0]
    return None


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    # nearest rank
    return sorted_values[min(len(sorted_values), max(1, math.ceil(p / 100 * len(sorted_values)))) - 1]


class Worker(threading.Thread):
    def __init__(self, index, args, users, start, count_from, stop_at):
        super().__init__(daemon=True)
        self.index, self.args, self.users = index, args, users
        self.start_time, self.count_from, self.stop_at = start, count_from, stop_at
        self.latencies = []  # seconds, POST /login of counted attempts
        self.statuses = {}
        self.errors = 0
        self.connection = None

    def connect(self):
        if self.connection is not None:
            self.connection.close()
        self.connection = http.client.HTTPConnection(self.args.host, self.args.port, timeout=30)

    def request(self, method, path, body=None, headers=None):
        for attempt in range(2):  # one retry on a fresh connection (a closed keep-alive)
            try:
                self.connection.request(method, path, body=body, headers=headers or {})
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connect()
                return response, data
            except (http.client.HTTPException, OSError):
                self.connect()
                if attempt == 1:
                    raise

    def run(self):
        self.connect()
        n = 0
        while time.monotonic() < self.stop_at:
            valid = n % 2 == 0
            if valid:
                username = self.users[(self.index + n // 2) % len(self.users)]
                password = self.args.password
            else:
                username = f"nobody-{self.index}-{n}"
                password = "wrong-password-" + str(n)
            n += 1
            began = time.monotonic()
            counted = began >= self.count_from
            try:
                response, page = self.request("GET", "/login")
                cookie = presession_cookie(response)
                match = CSRF.search(page)
                if response.status != 200 or cookie is None or match is None:
                    raise RuntimeError(f"GET /login: {response.status}, cookie {cookie is not None}, token {match is not None}")
                body = urllib.parse.urlencode({
                    "username": username, "password": password, "return_to": "/",
                    "csrf_token": match.group(1).decode(),
                })
                posted = time.monotonic()
                response, _ = self.request("POST", "/login", body=body, headers={
                    "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie,
                })
                done = time.monotonic()
            except Exception:  # noqa: BLE001 - counted, then go on
                if counted:
                    self.errors += 1
                self.connect()
                time.sleep(0.05)
                continue
            if not counted:
                continue
            expected = 303 if valid else 401
            key = "ok" if response.status == expected else str(response.status)
            if valid and key == "ok":
                key = "signed_in"
            elif key == "ok":
                key = "rejected"
            self.statuses[key] = self.statuses.get(key, 0) + 1
            self.latencies.append(done - posted)
        self.connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--users", required=True, help="comma-separated usernames sharing --password")
    parser.add_argument("--password", required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--duration", type=float, default=15)
    args = parser.parse_args()
    users = [u for u in args.users.split(",") if u]
    start = time.monotonic()
    count_from = start + args.warmup
    stop_at = count_from + args.duration
    workers = [Worker(i, args, users, start, count_from, stop_at) for i in range(args.threads)]
    for w in workers:
        w.start()
    time.sleep(max(0.0, count_from - time.monotonic()))
    cpu_before = os.times()
    for w in workers:
        w.join(timeout=max(0.0, stop_at - time.monotonic()) + 60)
    cpu_after = os.times()
    cpu_s = (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
    elapsed = args.duration
    statuses = {}
    for w in workers:
        for k, v in w.statuses.items():
            statuses[k] = statuses.get(k, 0) + v
    latencies = sorted(x for w in workers for x in w.latencies)
    attempts = len(latencies)
    ms = lambda v: None if v is None else round(v * 1000, 2)  # noqa: E731
    print(json.dumps({
        "threads": args.threads,
        "seconds": elapsed,
        "attempts": attempts,
        "signed_in": statuses.pop("signed_in", 0),
        "rejected": statuses.pop("rejected", 0),
        "other_statuses": statuses,
        "errors": sum(w.errors for w in workers),
        "attempts_per_s": round(attempts / elapsed, 2),
        "signins_per_s": round(sum(w.statuses.get("signed_in", 0) for w in workers) / elapsed, 2),
        "post_p50_ms": ms(percentile(latencies, 50)),
        "post_p90_ms": ms(percentile(latencies, 90)),
        "post_p99_ms": ms(percentile(latencies, 99)),
        "post_max_ms": ms(latencies[-1] if latencies else None),
        "cpu_s": round(cpu_s, 2),
    }))


if __name__ == "__main__":
    main()
