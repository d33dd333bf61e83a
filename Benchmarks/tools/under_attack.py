#!/usr/bin/env python3
"""A legitimate visitor's latency with each attack of Tests/Hostile running, and with none, on one
server in one run (Benchmarks/hostile.sh).

usage: under_attack.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT OUT.md [ROUNDS] [PHASE_SECONDS]

Phases alternate none, attack, none, attack ... for ROUNDS rounds (default 2); in each the
visitor (on an address of its own each phase, 127.0.5.x: its saves stay under the per-address write
limit; its account's is lifted), one keep-alive connection, repeats for PHASE_SECONDS (default 8): 20 page
reads (GET /quotes), a save (POST /quotes), a photo upload (a 2 x 2 PNG), a sign-out and a sign-in
(from the browser it signed up in, which carries its account's device cookie). Then GET / alone, read as
fast as one connection goes, with 0, 1 and 2 sign-in loops (right password, other addresses)
keeping the hashing threads busy. Percentiles per phase kind over all rounds; raw samples in
OUT.tsv beside OUT.md.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Hostile"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Support"))
import hostile_test as hostile  # noqa: E402
from quotebook_server import Server  # noqa: E402


def percentile(values, fraction):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(fraction * len(values)))]


def measure_visitor(legit, seconds, samples, kind):
    v = legit.visitor
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(20):
            start = time.monotonic()
            status, _, _ = v.get("/quotes")
            samples.append((kind, "page", time.monotonic() - start, status))
        v.get("/quotes/new")
        start = time.monotonic()
        status, _, _ = v.post("/quotes", {"text": f"Benchmark at {time.time():.6f}", "author": "Bench"})
        samples.append((kind, "save", time.monotonic() - start, status))
        v.get("/profile/edit")
        start = time.monotonic()
        status, _, _ = v.upload("/profile/photo", "photo", "me.png", hostile.tiny_png(), "image/png")
        samples.append((kind, "upload", time.monotonic() - start, status))
        v.post("/logout", {})
        v.get("/login")
        start = time.monotonic()
        status, _, _ = v.post("/login", {"username": legit.username, "password": hostile.PASSWORD})
        samples.append((kind, "sign-in", time.monotonic() - start, status))


def hashing_load(server, index, stop):
    visitor = hostile.Visitor(server, f"127.0.1.{index + 1}")
    while not stop.is_set():
        visitor.post("/logout", {})
        visitor.get("/login")
        visitor.post("/login", {"username": f"hasher{index}", "password": hostile.PASSWORD})
    visitor.close()


def main():
    executable, root, out = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 8
    import tempfile
    samples = []
    with tempfile.TemporaryDirectory(prefix="quotebook-under-attack-") as data:
        # The visitor saves a few times a second for minutes, past any account's write limit:
        # every account's is lifted (so here only its address's allowance binds the write
        # flood, not its accounts' as in CI), and the visitor changes address every phase
        # (below), so it never meets the per-address one.
        server = Server(executable, root, data,
                        arguments=["--log-level", "error", *hostile.SERVER_ARGUMENTS, "--writes-per-account", "1000000000"])
        try:
            legit = hostile.Legit(server, "legit")
            legit.sign_up()
            for index in range(2):
                hasher = hostile.Legit(server, f"hasher{index}")
                hasher.visitor.source = f"127.0.1.{index + 1}"
                hasher.sign_up()
                hasher.visitor.close()
            measure_visitor(legit, 2, [], "warm-up")
            phase = 0

            def next_address():
                nonlocal phase
                phase += 1
                legit.visitor.close()
                legit.visitor.source = f"127.0.{5 + phase // 250}.{phase % 250 + 1}"

            for round_number in range(rounds):
                for name in hostile.ATTACKS:
                    next_address()
                    measure_visitor(legit, seconds, samples, "none")
                    deadline = time.monotonic() + seconds + 4
                    attack, workers = hostile.start_attack(server, legit, name, deadline)
                    time.sleep(2)
                    next_address()
                    measure_visitor(legit, seconds, samples, name)
                    attack.stop.set()
                    for worker in workers:
                        worker.join(timeout=seconds + 10)
                    print(f"round {round_number + 1}: {name} done; attacker saw {dict(sorted(attack.counts.items()))}",
                          flush=True)
            for busy in (0, 1, 2):
                stop = threading.Event()
                loaders = [threading.Thread(target=hashing_load, args=(server, i, stop), daemon=True) for i in range(busy)]
                for loader in loaders:
                    loader.start()
                time.sleep(1)
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    start = time.monotonic()
                    status, _, _ = legit.visitor.get("/")
                    samples.append((f"hashing {busy}", "GET /", time.monotonic() - start, status))
                stop.set()
                for loader in loaders:
                    loader.join(timeout=10)
            legit.visitor.close()
            server.stop()
        except BaseException:
            server.kill_if_running()
            raise
    with open(os.path.splitext(out)[0] + ".tsv", "w") as raw:
        raw.write("phase\tstep\tseconds\tstatus\n")
        for kind, step, duration, status in samples:
            raw.write(f"{kind}\t{step}\t{duration:.6f}\t{status}\n")
    kinds = ["none"] + list(hostile.ATTACKS) + ["hashing 0", "hashing 1", "hashing 2"]
    with open(out, "w") as report:
        report.write(f"Run {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {rounds} rounds of "
                     f"{seconds:g} s phases, `Benchmarks/hostile.sh`, load average {os.getloadavg()[0]:.2f}.\n\n")
        report.write("| phase | step | n | p50 ms | p99 ms | max ms | not 2xx/3xx |\n|---|---|---|---|---|---|---|\n")
        for kind in kinds:
            for step in ("page", "save", "upload", "sign-in", "GET /"):
                values = [d for k, s, d, _ in samples if k == kind and s == step]
                if not values:
                    continue
                failed = sum(1 for k, s, _, st in samples if k == kind and s == step and not 200 <= st < 400)
                report.write(f"| {kind} | {step} | {len(values)} | {percentile(values, 0.5) * 1000:.2f} | "
                             f"{percentile(values, 0.99) * 1000:.2f} | {max(values) * 1000:.2f} | {failed} |\n")
    print(open(out).read())


if __name__ == "__main__":
    main()
