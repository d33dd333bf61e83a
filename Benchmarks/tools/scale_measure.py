#!/usr/bin/env python3
"""Start-up time, RSS and server CPU per request of a quotebook binary on a big data directory.

usage: scale_measure.py BIN DATA_DIR ROOT OUT_PREFIX [--starts N] [--seconds S] [--label NAME]
       scale_measure.py --summarize RESULTS_DIR [--against LABEL]   (Markdown on stdout)

1. Start-up: N times, start `BIN --port 0 --data DATA_DIR --root ROOT --log-level warning`, time
   from spawning to the listening line on standard output, read VmRSS from /proc/PID/status right
   then and again 1 s later, stop it with SIGTERM. Median, min and max.
2. Server CPU per request: one more start; for each page, `wrk -t1 -c1 -d{S}s` (one request at a
   time) after a 1 s warm-up, with the server's utime+stime (all threads, /proc/PID/stat) read
   before and after: CPU seconds / requests completed. This is the server's own time for a
   request (parsing, routing, the controller, rendering, writing), unaffected by how the 2 shared
   cores were split with wrk. wrk's own mean latency is reported beside it.

Writes OUT_PREFIX-startup.tsv and OUT_PREFIX-pages.tsv; prints a Markdown summary.
--summarize reads every *-startup.tsv and *-pages.tsv in RESULTS_DIR (several rounds, one or more
labels) and prints medians per label, each page as a ratio to the same label's list page 1, and,
with --against, each label's figures as a ratio to that label's.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
PAGES = [
    ("list page 1", "/quotes"),
    ("list page 2", "/quotes?page=2"),
    ("list page 2500", "/quotes?page=2500"),
    ("list page 5000", "/quotes?page=5000"),
    ("search 'ecole' (accent-free word)", "/quotes?q=ecole"),
    ("search 'garden silence' (two words)", "/quotes?q=garden+silence"),
    ("search 'lodz einstein' (author word)", "/quotes?q=lodz+einstein"),
    ("search 'ecole' page 20", "/quotes?q=ecole&page=20"),
    ("search 'the' (most quotes match)", "/quotes?q=the"),
    ("search 'xylophone' (no match)", "/quotes?q=xylophone"),
    ("quote page", "/quotes/50000"),
    ("home", "/"),
]


def start(binary, data, root):
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "--port", "0", "--data", data, "--root", root, "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    m = re.search(r"listening on http://[^:]+:(\d+)", line)
    if not m:
        proc.kill()
        sys.exit(f"no listening line: {line!r}")
    return proc, int(m.group(1)), elapsed


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def wrk(url, seconds):
    out = subprocess.run(["wrk", "-t1", "-c1", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    latency = re.search(r"Latency\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 1, "ms": 1000, "s": 1e6}[latency.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return requests, float(latency.group(1)) * scale, int(non2xx.group(1)) if non2xx else 0


def read_tsv(path):
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def summarize(folder, against):
    starts, pages = {}, {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith("-startup.tsv"):
            for row in read_tsv(path):
                starts.setdefault(row["label"], []).append(row)
        elif name.endswith("-pages.tsv"):
            for row in read_tsv(path):
                pages.setdefault(row["label"], {}).setdefault((row["page"], row["path"]), []).append(float(row["cpu_us_per_request"]))
    labels = list(starts)
    med = statistics.median
    print("| | " + " | ".join(labels) + (f" | ratio to {against}" if against else "") + " |")
    print("|---|" + "---:|" * (len(labels) + (1 if against else 0)))
    rows = [("start-up to the listening line, ms", "start_ms"),
            ("CPU time (user + system, all threads) by the listening line, ms", "cpu_ms_at_listen"),
            ("RSS at the listening line, MiB", "rss_mib_at_listen"), ("RSS 1 s later, MiB", "rss_mib_after_1s")]
    for title, key in rows:
        if any(key not in r for label in labels for r in starts[label]):
            continue
        values = {label: med(float(r[key]) for r in starts[label]) for label in labels}
        ratio = " | " + " / ".join(f"{values[l] / values[against]:.2f}" for l in labels if l != against) if against else ""
        count = " / ".join(str(len(starts[l])) for l in labels)
        print(f"| {title} (median of {count} starts) | " + " | ".join(f"{values[l]:.1f}" for l in labels) + ratio + " |")
    print()
    print("Server CPU per request, µs (median over rounds; in brackets, the ratio to the same server's list page 1):\n")
    print("| page | path | " + " | ".join(labels) + (f" | ratio to {against}" if against else "") + " |")
    print("|---|---|" + "---:|" * (len(labels) + (1 if against else 0)))
    keys = list(pages[labels[0]])
    for key in keys:
        cells, values = [], {}
        for label in labels:
            samples = pages.get(label, {}).get(key)
            first = med(pages[label][keys[0]])
            if samples:
                values[label] = med(samples)
                cells.append(f"{values[label]:.0f} ({values[label] / first:.2f}×)")
            else:
                cells.append("—")
        ratio = ""
        if against:
            ratio = " | " + " / ".join(f"{values[l] / values[against]:.2f}" for l in labels if l != against and l in values and against in values)
        print(f"| {key[0]} | `{key[1]}` | " + " | ".join(cells) + ratio + " |")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--summarize":
        against = sys.argv[sys.argv.index("--against") + 1] if "--against" in sys.argv else None
        summarize(sys.argv[2], against)
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("data")
    parser.add_argument("root")
    parser.add_argument("out")
    parser.add_argument("--starts", type=int, default=9)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--label", default="quotebook")
    args = parser.parse_args()

    starts = []
    for _ in range(args.starts):
        proc, _, elapsed = start(args.binary, args.data, args.root)
        cpu_ms = cpu_ticks(proc.pid) / HZ * 1000
        rss_now = rss_kib(proc.pid)
        time.sleep(1)
        rss_later = rss_kib(proc.pid)
        stop(proc)
        starts.append((elapsed * 1000, rss_now / 1024, rss_later / 1024, cpu_ms))
    with open(args.out + "-startup.tsv", "w") as f:
        f.write("label\tstart_ms\trss_mib_at_listen\trss_mib_after_1s\tcpu_ms_at_listen\n")
        for s in starts:
            f.write(f"{args.label}\t{s[0]:.1f}\t{s[1]:.1f}\t{s[2]:.1f}\t{s[3]:.0f}\n")

    proc, port, _ = start(args.binary, args.data, args.root)
    rows = []
    try:
        for name, path in PAGES:
            url = f"http://127.0.0.1:{port}{path}"
            wrk(url, 1)
            before = cpu_ticks(proc.pid)
            requests, latency_us, non2xx = wrk(url, args.seconds)
            after = cpu_ticks(proc.pid)
            cpu_us = (after - before) / HZ / max(1, requests) * 1e6
            rows.append((name, path, requests, cpu_us, latency_us, non2xx))
        rss_end = rss_kib(proc.pid) / 1024
    finally:
        stop(proc)
    with open(args.out + "-pages.tsv", "w") as f:
        f.write("label\tpage\tpath\trequests\tcpu_us_per_request\twrk_mean_latency_us\tnon_2xx\n")
        for r in rows:
            f.write(f"{args.label}\t{r[0]}\t{r[1]}\t{r[2]}\t{r[3]:.1f}\t{r[4]:.1f}\t{r[5]}\n")

    times = [s[0] for s in starts]
    print(f"### {args.label}\n")
    print(f"start-up to the listening line, {len(times)} starts: median {statistics.median(times):.1f} ms "
          f"(min {min(times):.1f}, max {max(times):.1f}); CPU time by then: median "
          f"{statistics.median(s[3] for s in starts):.0f} ms  ")
    print(f"RSS at the listening line: median {statistics.median(s[1] for s in starts):.1f} MiB; "
          f"1 s later: {statistics.median(s[2] for s in starts):.1f} MiB; after the page runs: {rss_end:.1f} MiB\n")
    first = rows[0][3]
    print("| page | path | server CPU µs/request | × page 1 | wrk mean latency µs | requests | non-2xx |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | `{r[1]}` | {r[3]:.0f} | {r[3] / first:.2f} | {r[4]:.0f} | {r[2]} | {r[5]} |")


if __name__ == "__main__":
    main()
