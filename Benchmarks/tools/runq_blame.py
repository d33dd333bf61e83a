#!/usr/bin/env python3
"""Who ran while the server's request threads waited for a CPU: reads `perf script` output of a
system-wide `perf sched record` and prints one JSON object on stdout.

A serving thread (any thread in --tids but the hashing threads, named --hash-prefix*) is
waiting from the moment it becomes runnable (sched_waking, or sched_switch away from it in
state R, i.e. preempted) until a sched_switch puts it on a CPU. Each such wait is split over the
tasks that were on the CPU whose run queue it was on meanwhile (its CPU at waking, then each
sched_migrate_task destination; the CPUs' own sched_switch timelines say who ran), and their
time summed per kind of task:

    hash     the server's hashing threads, or tools/cpuhog (--hog) standing in for them
    server   the server's other threads (one serving thread waiting behind another)
    ours     the benchmark's own load generators (--ours comm names, comma-separated)
    others   every other task on the machine
    idle     the CPU was idle (the wait was a wake-up or migration latency)

Also counted: waits longer than 1 ms by the kind that held the CPU the longest during them, the
longest wait, how often a hashing thread took the CPU from a serving thread that was still
runnable (sched_switch prev = serving thread in state R, next = hashing thread), and how long
serving threads waited on one CPU's queue while another CPU ran a hashing thread: time a CPU
could have served them had the kernel moved them there (a CPU running only SCHED_IDLE work does
not look for queued work on other CPUs the way an idle one does).

usage: perf script -i perf.data -F comm,tid,cpu,time,event,trace | \
       runq_blame.py --tids FILE [--hash-prefix password-hash] [--ours openloop,python3,wrk]
       (FILE: the server's threads, one "TID COMM" a line)
"""
import argparse
import collections
import json
import re
import sys

LINE = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>\d+\.\d+):\s+(?P<event>[\w:]+):\s+(?P<rest>.*)$")
SWITCH = re.compile(r"prev_comm=(?P<prev_comm>.*?) prev_pid=(?P<prev_pid>\d+) .*?prev_state=(?P<prev_state>\S+) ==> "
                    r"next_comm=(?P<next_comm>.*?) next_pid=(?P<next_pid>\d+)")
WAKING = re.compile(r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) .*?target_cpu=(?P<cpu>\d+)")
MIGRATE = re.compile(r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) .*?dest_cpu=(?P<cpu>\d+)")
KINDS = ("hash", "server", "ours", "others", "idle")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tids", required=True, help="file of 'TID COMM' lines: the server's threads")
    parser.add_argument("--hash-prefix", default="password-hash")
    parser.add_argument("--ours", default="openloop,python3,wrk", help="comm names of the load generators")
    parser.add_argument("--hog", default="cpuhog", help="comm names counted with the hashing threads")
    args = parser.parse_args()
    hash_tids, serving_tids = set(), set()
    for line in open(args.tids):
        tid, _, comm = line.strip().partition(" ")
        if not tid:
            continue
        (hash_tids if comm.startswith(args.hash_prefix) else serving_tids).add(int(tid))
    ours = set(args.ours.split(","))
    hogs = set(args.hog.split(","))

    def kind(tid, comm):
        if tid == 0:
            return "idle"
        if tid in hash_tids or comm in hogs:
            return "hash"
        if tid in serving_tids:
            return "server"
        return "ours" if comm in ours else "others"

    # Per CPU: the task on it and since when; per waiting serving thread: since when.
    running = {}          # cpu -> (since, kind)
    on_cpu = set()        # tids on a CPU right now
    spans = {}            # cpu -> deque of (start, end, kind), appended as switches happen
    waiting = {}          # tid -> [(since, cpu of its run queue), ...], one entry per migration
    blame = {k: 0.0 for k in KINDS}
    long_waits = {k: 0 for k in KINDS}
    waits = 0
    longest = 0.0
    hash_preemptions = 0
    stranded = 0.0        # waiting while another CPU ran a hashing thread (or cpuhog)
    long_stranded = 0     # waits over 1 ms, more than half of them so
    first = last = None
    t = 0.0

    def occupancy(c, since, until):
        """Seconds each kind of task spent on CPU c within [since, until] (until <= t)."""
        share = {k: 0.0 for k in KINDS}
        if c in running:  # the task on it now, not in its spans yet
            start, k = running[c]
            share[k] += max(0.0, min(t, until) - max(start, since))
        for start, end, k in reversed(spans.get(c, ())):
            if end <= since:
                break
            share[k] += max(0.0, min(end, until) - max(start, since))
        return share

    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        t = float(m["time"])
        first = t if first is None else first
        last = t
        event = m["event"]
        if event.endswith("sched_waking") or event.endswith("sched_wakeup"):
            w = WAKING.search(m["rest"])
            if w and int(w["pid"]) in serving_tids and int(w["pid"]) not in on_cpu:
                waiting.setdefault(int(w["pid"]), [(t, int(w["cpu"]))])
            continue
        if event.endswith("sched_migrate_task"):
            w = MIGRATE.search(m["rest"])
            if w and int(w["pid"]) in waiting:
                waiting[int(w["pid"])].append((t, int(w["cpu"])))
            continue
        if not event.endswith("sched_switch"):
            continue
        s = SWITCH.search(m["rest"])
        if not s:
            continue
        cpu = int(m["cpu"])
        prev, nxt = int(s["prev_pid"]), int(s["next_pid"])
        previous = running.get(cpu)
        if previous is not None:
            timeline = spans.setdefault(cpu, collections.deque())
            timeline.append((previous[0], t, previous[1]))
            while timeline[0][1] < t - 1.0:  # waits are far shorter than a second
                timeline.popleft()
        running[cpu] = (t, kind(nxt, s["next_comm"]))
        on_cpu.discard(prev)
        on_cpu.add(nxt)
        if prev in serving_tids:
            if s["prev_state"].startswith("R"):
                waiting[prev] = [(t, cpu)]  # preempted, still runnable
                if kind(nxt, s["next_comm"]) == "hash":
                    hash_preemptions += 1
            else:
                waiting.pop(prev, None)  # went to sleep
        if nxt in serving_tids and nxt in waiting:
            segments = waiting.pop(nxt)
            duration = t - segments[0][0]
            if duration <= 0:
                continue
            waits += 1
            longest = max(longest, duration)
            share = {k: 0.0 for k in KINDS}
            hash_elsewhere = 0.0
            for i, (since, queue_cpu) in enumerate(segments):
                until = segments[i + 1][0] if i + 1 < len(segments) else t
                for k, v in occupancy(queue_cpu, since, until).items():
                    share[k] += v
                others_ran = sum(occupancy(c, since, until)["hash"] for c in running if c != queue_cpu)
                hash_elsewhere += min(until - since, others_ran)
            for k in KINDS:
                blame[k] += share[k]
            stranded += hash_elsewhere
            if duration > 0.001:
                long_waits[max(share, key=share.get)] += 1
                if hash_elsewhere > duration / 2:
                    long_stranded += 1

    seconds = (last - first) if first is not None else 0
    print(json.dumps({
        "seconds": round(seconds, 2),
        "serving_threads": len(serving_tids),
        "hashing_threads": len(hash_tids),
        "waits": waits,
        "wait_ms_per_s": {k: round(v * 1000 / seconds, 3) if seconds else None for k, v in blame.items()},
        "waits_over_1ms_by_holder": long_waits,
        "longest_wait_ms": round(longest * 1000, 3),
        "hash_preemptions_of_serving_threads": hash_preemptions,
        "waiting_while_hash_ran_elsewhere_ms_per_s": round(stranded * 1000 / seconds, 3) if seconds else None,
        "waits_over_1ms_mostly_while_hash_ran_elsewhere": long_stranded,
    }))


if __name__ == "__main__":
    main()
