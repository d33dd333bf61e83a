#!/usr/bin/env python3
"""Turns the TSV of `Benchmarks/signin.sh --open-loop` into its Markdown section (on stdout).

Phases: A (GET / at a fixed rate alone), and one per hashing-thread class with the sign-in load
running (nice10, idle). Per phase: medians over rounds; per class, B/A as the ratio of the
medians and, to show the spread, the range of the per-round ratios (each B against the A of its
own round).

usage: openloop_report.py TSV --stamp S --rounds N --machine M --loadavg "1 5 15" ... (see main)
"""
import argparse
import csv
import statistics

PHASES = ["A", "nice10", "idle"]  # replaced by --phases
LABELS = {
    "A": "A: GET / alone",
    "nice10": "B: + sign-ins, hashing at nice 10",
    "idle": "B: + sign-ins, hashing SCHED_IDLE",
    "spin-idle": "C: + spinning SCHED_IDLE process, no sign-ins",
    "crypt-idle": "C: + yescrypt in a SCHED_IDLE process, no sign-ins",
    "spin-nice10": "C: + spinning nice-10 process, no sign-ins",
    "crypt-nice10": "C: + yescrypt in a nice-10 process, no sign-ins",
}


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def median(rows, column):
    values = [v for v in (number(r[column]) for r in rows) if v is not None]
    return statistics.median(values) if values else None


def fmt(value, pattern="{:.2f}"):
    return "-" if value is None else pattern.format(value)


def print_ratios(by_phase, title):
    """One line per B phase: B/A as the ratio of the medians, and the range of per-round ratios."""
    a_by_round = {r["round"]: r for r in by_phase["A"]}
    for p in PHASES[1:]:
        if not by_phase[p] or not by_phase["A"]:
            continue
        parts = []
        for column, label in (("p50_ms", "p50"), ("p99_ms", "p99"), ("p999_ms", "p99.9")):
            a, b = median(by_phase["A"], column), median(by_phase[p], column)
            per_round = sorted(number(r[column]) / number(a_by_round[r["round"]][column])
                               for r in by_phase[p]
                               if r["round"] in a_by_round and number(r[column]) and number(a_by_round[r["round"]][column]))
            spread = f" (rounds {per_round[0]:.2f}–{per_round[-1]:.2f})" if per_round else ""
            parts.append(f"{label} **{b / a:.2f}x**{spread}" if a and b else f"{label} -")
        print(f"- {title}, {LABELS.get(p, p)} against A (medians {median(by_phase['A'], 'p99_ms'):.2f} → "
              f"{median(by_phase[p], 'p99_ms'):.2f} ms p99, over {len(by_phase[p])} rounds): " + ", ".join(parts) + ".")


def print_blame(directory, seconds):
    """The `perf sched` phases: whose tasks held the CPU while the serving threads waited."""
    import json
    import os
    found = [(p, os.path.join(directory, f"blame-{p}.json")) for p in PHASES]
    found = [(p, json.load(open(f))) for p, f in found if os.path.exists(f) and os.path.getsize(f) > 0]
    if not found:
        return
    print()
    print(f"Under `perf sched record -a` ({seconds} s of one more phase of each kind, not in the tables above: tracing "
          "costs time of its own), `tools/runq_blame.py` splits the time the server's serving threads (all but "
          "password-hash-*) were runnable but not running by what held that CPU meanwhile, in ms per second; "
          "waits over 1 ms are counted by what held the CPU longest during them. The last column is the time they "
          "waited in one CPU's queue while the other CPU ran hashing (or cpuhog) work instead:")
    print()
    print("| phase | hashing threads (or cpuhog) | server's other threads | load tools | other processes | CPU idle (wake-up) "
          "| waits > 1 ms: hashing / others / ours / server | longest wait ms | waiting while the other CPU hashed, ms/s "
          "(waits > 1 ms mostly so) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p, d in found:
        w, n = d["wait_ms_per_s"], d["waits_over_1ms_by_holder"]
        elsewhere = d.get("waiting_while_hash_ran_elsewhere_ms_per_s")
        print(f"| {LABELS.get(p, p)} | {w['hash']:.2f} | {w['server']:.2f} | {w['ours']:.2f} | {w['others']:.2f} | {w['idle']:.2f} "
              f"| {n['hash']} / {n['others']} / {n['ours']} / {n['server']} | {d['longest_wait_ms']:.1f} "
              f"| {'-' if elsewhere is None else f'{elsewhere:.2f}'} ({d.get('waits_over_1ms_mostly_while_hash_ran_elsewhere', '-')}) |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tsv")
    for name in ("stamp", "rounds", "machine", "loadavg", "loadavg-end", "duration", "warmup", "connections",
                 "signin-threads", "users", "hashing-threads", "initial-class", "saturation", "saturation-runs",
                 "wrk-connections", "fraction", "quiet-cores", "quiet-wait", "blame-dir", "perf-seconds"):
        parser.add_argument("--" + name, default="")
    parser.add_argument("--phases", default="A nice10 idle")
    args = parser.parse_args()
    PHASES[:] = args.phases.split()
    rows = list(csv.DictReader(open(args.tsv), delimiter="\t"))
    by_phase = {p: [r for r in rows if r["phase"] == p] for p in PHASES}
    rate = rows[0]["target_rate"] if rows else "-"
    tsv_name = args.tsv.rsplit("/", 1)[-1]

    print("## Open loop: GET / at a fixed rate below saturation")
    print()
    print(f"Run {args.stamp} ({rows[0]['date']} to {rows[-1]['date']}), `Benchmarks/signin.sh --open-loop {args.rounds}`; "
          f"raw rows: `{tsv_name}`, openloop, wrk and load-tool output: `logs/{args.stamp}/`.")
    others = [number(r["others_cores"]) or 0 for r in rows]
    print(f"Machine: {args.machine}. **Shared** with other people's builds and tests, and the server, the load "
          f"generators and everyone else share its cores; during the measured phases the rest of the machine used a "
          f"median of {statistics.median(others):.2f} cores (at most {max(others):.2f}). 1-minute load average "
          f"{args.loadavg.split()[0] if args.loadavg else '-'} at the start, "
          f"{args.loadavg_end.split()[0] if args.loadavg_end else '-'} at the end (our own threads count in it).")
    print()
    if args.saturation not in ("", "-"):
        print(f"Saturation, measured first on the same server: `wrk -t2 -c{args.wrk_connections} -d5s` three times, "
              f"{', '.join(f'{float(x):,.0f}' for x in args.saturation_runs.split())} req/s, median {float(args.saturation):,.0f}; "
              f"the fixed rate is {args.fraction} of it: **{int(float(rate)):,} GET/s**.")
    else:
        print(f"Fixed rate given: **{int(float(rate)):,} GET/s**.")
    print()
    print(f"Each phase: `tools/openloop` sends GET / at that rate on {args.connections} keep-alive connections for "
          f"{args.warmup} s (not counted) + {args.duration} s; latency is measured from each request's scheduled send "
          "time, so a stall delays the requests due during it and they all count (no coordinated omission). "
          f"In the B phases `tools/signin_load.py` runs {args.signin_threads} sign-in loops (GET /login, POST /login; "
          f"a right password for one of {args.users} users, alternating with an unknown username, which spends the dummy "
          f"hash) against `--hashing-threads {args.hashing_threads}`; before each B phase the script puts the running "
          "server's password-hash-* threads in that phase's class with chrt/renice and reads it back from /proc "
          f"(the server started them as `{args.initial_class}`, `main.swift`'s default). "
          + ("In the C phases there are no sign-ins; instead `tools/cpuhog.c` runs "
             f"{args.hashing_threads} threads in a process of its own, in the class named: spinning in user space "
             "(the scheduler alone), or the server's yescrypt hash in a loop (its kernel work, outside the server's "
             "address space). " if any(p.startswith(("spin-", "crypt-")) for p in PHASES) else "")
          + f"Each round rotates the order of `{' '.join(PHASES)}` by one. Medians over rounds. "
          "Serving threads' run-queue wait: time the server's threads other than password-hash-* (event loops, "
          "cooperative pool) were runnable but not running (schedstat), ms per second. "
          "CPU/GET counts every server thread but password-hash-* (in B it also carries the sign-in pages' HTTP work); "
          "the hashing threads' share of system time is from /proc/PID/task/TID/stat.")
    print()
    print("| phase | rounds | GET/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | server CPU µs/GET | "
          "serving threads' run-queue wait ms/s | hashing cores (in the kernel) | sign-ins/s (attempts/s) | POST /login p50 / p99 ms | "
          "others' cores | load avg (1 min, median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in PHASES:
        rs = by_phase[p]
        if not rs:
            continue
        loads = [number(r["loadavg1_start_end"].split("/")[0]) for r in rs]
        load = statistics.median([x for x in loads if x is not None]) if any(x is not None for x in loads) else None
        hog = p.startswith(("spin-", "crypt-"))
        signins = "-" if p == "A" else f"{fmt(median(rs, 'signins_per_s'), '{:.1f}')} ({fmt(median(rs, 'signin_attempts_per_s'), '{:.1f}')})"
        if hog:
            signins = f"- ({fmt(median(rs, 'signin_attempts_per_s'), '{:,.0f}')} {'hashes' if p.startswith('crypt') else 'spins'}/s)"
        hashing = "-" if p == "A" or hog else f"{fmt(median(rs, 'hash_cores'))} ({fmt(median(rs, 'hash_kernel_share'), '{:.0%}')})"
        post = "-" if p == "A" or hog else f"{fmt(median(rs, 'signin_post_p50_ms'), '{:.0f}')} / {fmt(median(rs, 'signin_post_p99_ms'), '{:.0f}')}"
        print(f"| {LABELS.get(p, p)} | {len(rs)} | {fmt(median(rs, 'achieved_rate'), '{:,.0f}')} | {fmt(median(rs, 'p50_ms'), '{:.3f}')} | "
              f"{fmt(median(rs, 'p90_ms'), '{:.3f}')} | {fmt(median(rs, 'p99_ms'))} | {fmt(median(rs, 'p999_ms'))} | "
              f"{fmt(median(rs, 'max_ms'), '{:.1f}')} | {fmt(median(rs, 'server_cpu_us_per_get'), '{:.1f}')} | "
              f"{fmt(median(rs, 'serve_runq_wait_ms_per_s'))} | {hashing} | {signins} | {post} | "
              f"{fmt(median(rs, 'others_cores'))} | {fmt(load, '{:.2f}')} |")
    print()
    rounds_of = lambda p: {r["round"]: r for r in by_phase[p]}  # noqa: E731
    print_ratios(by_phase, "All rounds")
    quiet_cores = number(args.quiet_cores)
    if quiet_cores is not None:
        quiet_rounds = sorted({r["round"] for r in rows} - {r["round"] for r in rows
                                                             if (number(r["others_cores"]) or 0) >= quiet_cores},
                              key=int)
        print(f"- Quiet rounds, in which the rest of the machine used under {args.quiet_cores} cores in every phase: "
              f"{len(quiet_rounds)} of {args.rounds}" + (f" ({', '.join(quiet_rounds)})." if quiet_rounds else "."))
        if quiet_rounds:
            print_ratios({p: [r for r in by_phase[p] if r["round"] in quiet_rounds] for p in PHASES}, "Quiet rounds only")
    print()
    print("p99 by round (ms; in brackets the cores the rest of the machine used during the phase):")
    print()
    print("| round | " + " | ".join(PHASES) + " |")
    print("|---:|" + "---:|" * len(PHASES))
    for k in sorted({r["round"] for r in rows}, key=int):
        cells = []
        for p in PHASES:
            r = rounds_of(p).get(k)
            cells.append("-" if r is None else f"{r['p99_ms']} ({r['others_cores']})")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print()
    bad = [r for r in rows if r["errors"] not in ("0", "") or r["non2xx"] not in ("0", "")
           or r["signin_unexpected"] not in ("0", "-", "")]
    late = sum(int(number(r["late_sends"]) or 0) for r in rows)
    sent = sum(float(r["achieved_rate"]) * float(args.duration) for r in rows if number(r["achieved_rate"]))
    classes = sorted({f"{r['phase']}={r['hash_class']}" for r in rows if r["hash_class"] != "-"})
    print(f"- Failed or non-2xx GETs, unexpected sign-in answers (429, 503, errors): {'none' if not bad else f'in {len(bad)} of {len(rows)} phases'}.")
    print(f"- Requests the generator wrote more than 1 ms after their scheduled time: {late:,} of {sent:,.0f} "
          "(their wait is in the latencies above).")
    print(f"- Hashing-thread class read back during the B phases: {', '.join(classes)}.")
    waited = [number(r["quiet_wait_s"]) or 0 for r in rows]
    print(f"- Before each phase the script waited for the rest of the machine to use under {args.quiet_cores} cores "
          f"over 2 s (at most {args.quiet_wait} s): median wait {statistics.median(waited):.0f} s, "
          f"{sum(1 for r in rows if (number(r['others_before_cores']) or 0) >= (number(args.quiet_cores) or 0))} of "
          f"{len(rows)} phases started without it.")
    if args.blame_dir:
        print_blame(args.blame_dir, args.perf_seconds)


if __name__ == "__main__":
    main()
