#!/usr/bin/env python3
"""Does a search of a large book hold up the event loop? (standard library only)

Against a running Quotebook with a large book (ScaleBenchmark build):

- a probe, on one keep-alive connection, GETs a cheap page answered at once (--probe, a quote
  page: signed out, from the page cache) back to back and records each latency;
- first alone for --duration seconds, then while --searchers threads, each on its own
  connection, GET /quotes?q=WORD with a new random WORD every time (so no search result is
  ever kept: each is a byte search of every key).

A search that runs on an event loop holds every other connection of that loop until it ends;
the probe's latency under searches shows it. Prints one JSON object: the probe's latency
(p50, p90, p99, max in ms, count) alone and under searches, and the searches' count, rate and
latency.

usage: search_probe.py --port PORT [--host 127.0.0.1] [--searchers 2] [--duration 10]
                       [--probe /quotes/50000] [--seed 1]
"""
import argparse
import http.client
import json
import math
import random
import threading
import time


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values), max(1, math.ceil(p / 100 * len(sorted_values)))) - 1]


def summary(seconds):
    values = sorted(seconds)
    if not values:
        return None
    return {name: round(percentile(values, p) * 1000, 3) for name, p in (("p50", 50), ("p90", 90), ("p99", 99))} | {
        "max": round(values[-1] * 1000, 3), "count": len(values)}


class Loop(threading.Thread):
    """GETs the targets `next_target` gives, back to back on one connection, until stopped."""

    def __init__(self, host, port, next_target):
        super().__init__(daemon=True)
        self.host, self.port, self.next_target = host, port, next_target
        self.latencies, self.failures = [], 0
        self.stop = threading.Event()

    def run(self):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        while not self.stop.is_set():
            target = self.next_target()
            start = time.perf_counter()
            connection.request("GET", target, headers={"Host": f"{self.host}:{self.port}"})
            response = connection.getresponse()
            response.read()
            self.latencies.append(time.perf_counter() - start)
            if response.status != 200:
                self.failures += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--searchers", type=int, default=2)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--probe", default="/quotes/50000")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generator = random.Random(args.seed)
    lock = threading.Lock()

    def word():
        with lock:
            return "".join(generator.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(generator.randint(3, 5)))

    def run_probe():
        probe = Loop(args.host, args.port, lambda: args.probe)
        probe.start()
        time.sleep(args.duration)
        probe.stop.set()
        probe.join(timeout=60)
        return probe

    # Warm the page cache and the connection paths.
    warm = Loop(args.host, args.port, lambda: args.probe)
    warm.start()
    time.sleep(0.5)
    warm.stop.set()
    warm.join(timeout=60)

    alone = run_probe()
    searchers = [Loop(args.host, args.port, lambda: "/quotes?q=" + word()) for _ in range(args.searchers)]
    for searcher in searchers:
        searcher.start()
    time.sleep(0.5)
    for searcher in searchers:
        searcher.latencies.clear()
    began = time.perf_counter()
    loaded = run_probe()
    seconds = time.perf_counter() - began
    for searcher in searchers:
        searcher.stop.set()
    for searcher in searchers:
        searcher.join(timeout=60)
    searches = [latency for searcher in searchers for latency in searcher.latencies]
    print(json.dumps({
        "probe": args.probe, "searchers": args.searchers,
        "probe_alone_ms": summary(alone.latencies),
        "probe_under_searches_ms": summary(loaded.latencies),
        "searches": len(searches), "searches_per_second": round(len(searches) / seconds, 1),
        "search_ms": summary(searches),
        "failures": alone.failures + loaded.failures + sum(s.failures for s in searchers),
    }))


if __name__ == "__main__":
    main()
