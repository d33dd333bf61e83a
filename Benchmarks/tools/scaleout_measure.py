#!/usr/bin/env python3
"""Measurements of Benchmarks/scaleout.sh: Quotebook as one and two instances on PostgreSQL behind
nginx, and as one instance on SQLite.

usage: scaleout_measure.py QUOTEBOOK_EXECUTABLE REPOSITORY_ROOT OUT_DIR [--rounds N] [--seconds S]
                           [--writers "1 64"] [--lag-saves N] [--read-connections N]

Starts (with Tests/Cluster/cluster_test.py's Cluster: .ci/postgres.sh, instances on free ports)
instances A and B on one throwaway PostgreSQL database, instance S on SQLite (its own data
directory, on the temporary folder's disk), and two nginx processes rendered from
deploy/nginx.conf that differ only in their upstream: "nginx-1" lists A, "nginx-2" lists A and B.
Then, each round (the order of the configurations alternates/rotates from round to round):

  reads   wrk GET / and GET /quotes through nginx-1 and nginx-2 (the book has 60 quotes);
  saves   W concurrent writers (W in --writers), each a signed-up person on a session of its own
          POSTing /profile/name (a durable save answered 303) and waiting for the answer before the
          next: wrk -t W -c W with tools/scaleout.lua, against S (sqlite-1), A (postgres-1) and
          nginx-2 (postgres-2);
  lag     --lag-saves edits of one quote saved on A one after another, each time from A's 303 to
          the quote's event on an event stream open on B.

Every row has the client's CPU (wrk's, from getrusage), the instances', nginx's and PostgreSQL's
(from /proc) and the load average when it ran. Writes OUT_DIR/results.tsv and OUT_DIR/lag.tsv.
"""
import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import json
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Tests", "Cluster"))
sys.path.insert(0, os.path.join(here, "..", "..", "Tests", "Support"))
from cluster_test import (Client, Cluster, EventStream, add_quote, check, edit_form, field, start_nginx,  # noqa: E402
                          free_port, sign_up)
from quotebook_server import Server  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def loadavg():
    with open("/proc/loadavg") as file:
        return " ".join(file.read().split()[:3])


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICKS


class Nginx:
    """nginx with deploy/nginx.conf rendered for one port and the given upstream ports."""

    def __init__(self, root, work, name, upstream_ports):
        self.prefix = os.path.join(work, name)
        # The access log would cost a write per request; the benchmark measures the proxying.
        self.process, self.port = start_nginx(root, self.prefix, upstream_ports, os.path.join(self.prefix, "stderr"),
                                              access_log=False)

    def pids(self):
        return [self.process.pid, *children(self.process.pid)]

    def close(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait(timeout=10)


def writers_file(path, address, count, prefix):
    """Signs up `count` people on the instance at `address`; writes "cookie<TAB>csrf" per person."""
    def one(index):
        client = Client(address, {})
        sign_up(client, f"{prefix}{index}", f"Writer {index}")
        form = client.get("/profile/edit")
        check(form.status == 200, f"GET /profile/edit answered {form.status}")
        token = field(form.body, "csrf_token")
        saved = client.post("/profile/name", {"display_name": f"Writer {index} ready", "csrf_token": token})
        check(saved.status == 303, f"a first save of the profile name answered {saved.status}")
        return "; ".join(f"{name}={value}" for name, value in client.cookies.items()) + "\t" + token
    with ThreadPoolExecutor(8) as pool:
        lines = list(pool.map(one, range(count)))
    with open(path, "w") as file:
        file.write("\n".join(lines) + "\n")


def wrk(address, seconds, threads, connections, lua, writers=None):
    """(figures from tools/scaleout.lua, client CPU seconds, wall seconds)."""
    environment = dict(os.environ)
    environment.pop("SCALEOUT_WRITERS", None)
    if writers:
        environment["SCALEOUT_WRITERS"] = writers
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    result = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "10s",
                             "-s", lua, f"http://{address[0]}:{address[1]}{'' if writers else address[2]}"],
                            capture_output=True, text=True, env=environment, timeout=seconds + 60)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next((line for line in result.stdout.splitlines() if line.startswith("SCALEOUT ")), None)
    check(line, f"wrk printed no figures: {result.stdout} {result.stderr}")
    client = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(line[len("SCALEOUT "):]), client, wall


def main():
    # The writers save far faster than a person: the instances (which inherit this environment)
    # run with the write limits lifted unless the caller sets them.
    for name in ("QUOTEBOOK_WRITES_PER_ACCOUNT", "QUOTEBOOK_WRITES_PER_CLIENT"):
        os.environ.setdefault(name, "1000000000")
    parser = argparse.ArgumentParser()
    parser.add_argument("executable")
    parser.add_argument("root")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--writers", default="1 64")
    parser.add_argument("--lag-saves", type=int, default=250)
    parser.add_argument("--read-connections", type=int, default=64)
    options = parser.parse_args()
    executable, root = os.path.abspath(options.executable), os.path.abspath(options.root)
    lua = os.path.join(here, "scaleout.lua")
    seconds = int(options.seconds) if options.seconds == int(options.seconds) else options.seconds
    os.makedirs(options.out, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))

    cluster = Cluster(executable, root)
    proxies = {}
    streams = []
    try:
        cluster.start_postgres()
        postmaster = int(open(os.path.join(cluster.postgres_dir, "data", "postmaster.pid")).readline())
        cluster.start_instance("A")
        cluster.start_instance("B")
        # The SQLite instance: the same executable without --database.
        cluster.instances["S"] = Server(executable, root, os.path.join(cluster.work, "data-S"))
        a, b = cluster.instances["A"], cluster.instances["B"]
        proxies["nginx-1"] = Nginx(root, cluster.work, "nginx-1", [a.port])
        proxies["nginx-2"] = Nginx(root, cluster.work, "nginx-2", [a.port, b.port])

        ada = Client(cluster.address("A"), {})
        sign_up(ada, "ada", "Ada Lovelace")
        for index in range(60):
            add_quote(ada, f"Quote {index}: the analytical engine weaves algebraic patterns.", f"Author {index % 7}")
        lag_quote = add_quote(ada, "Live from A", "Ada")
        pg_writers = os.path.join(cluster.work, "writers-postgres.tsv")
        sqlite_writers = os.path.join(cluster.work, "writers-sqlite.tsv")
        most = max(int(w) for w in options.writers.split())
        writers_file(pg_writers, cluster.address("A"), most, "pgwriter")
        writers_file(sqlite_writers, cluster.address("S"), most, "sqlitewriter")
        print(f"set up: 60 quotes, {most} writers on each store; load {loadavg()}", file=sys.stderr)

        def pids(names):
            found = []
            for name in names:
                found += proxies[name].pids() if name in proxies else [cluster.instances[name].process.pid]
            return found
        postgres_pids = lambda: [postmaster, *children(postmaster)]  # noqa: E731

        def measure(kind, config, detail, address, threads, connections, writers=None):
            servers = {"A": ["A"], "B": ["B"], "S": ["S"]}
            tracked = {"instances": ["A", "B", "S"], "nginx": ["nginx-1", "nginx-2"]}
            load = loadavg()
            before = {key: cpu_seconds(pids(names)) for key, names in tracked.items()}
            before["postgres"] = cpu_seconds(postgres_pids())
            figures, client, wall = wrk(address, seconds, threads, connections, lua, writers)
            after = {key: cpu_seconds(pids(names)) for key, names in tracked.items()}
            after["postgres"] = cpu_seconds(postgres_pids())
            del servers
            statuses = figures["statuses"]
            ok = statuses.get("303" if writers else "200", 0)
            other = {code: n for code, n in statuses.items() if code != ("303" if writers else "200")}
            return {"kind": kind, "config": config, "detail": detail, "per_s": ok / figures["seconds"],
                    "p50_ms": figures["p50_us"] / 1000, "p99_ms": figures["p99_us"] / 1000, "ok": ok,
                    "other": ",".join(f"{code}:{n}" for code, n in sorted(other.items())) or "-",
                    "socket_errors": figures["socket_errors"],
                    "client_cpu": 100 * client / wall,
                    "instances_cpu": 100 * (after["instances"] - before["instances"]) / wall,
                    "nginx_cpu": 100 * (after["nginx"] - before["nginx"]) / wall,
                    "postgres_cpu": 100 * (after["postgres"] - before["postgres"]) / wall, "load": load}

        def address_of(name, path=""):
            if name in proxies:
                return ("127.0.0.1", proxies[name].port, path)
            return (*cluster.address(name), path)

        read_configs = ["nginx-1", "nginx-2"]
        save_configs = [("sqlite-1", "S", sqlite_writers), ("postgres-1", "A", pg_writers),
                        ("postgres-2", "nginx-2", pg_writers)]
        # Warm-up: every path once through each configuration.
        for name in read_configs:
            for path in ("/", "/quotes"):
                wrk(address_of(name, path), 1, 2, options.read_connections, lua)
        for _, target, writers in save_configs:
            wrk(address_of(target), 1, 4, 4, lua, writers)

        columns = ["round", "kind", "config", "detail", "per_s", "p50_ms", "p99_ms", "ok", "other", "socket_errors",
                   "client_cpu", "instances_cpu", "nginx_cpu", "postgres_cpu", "load"]
        results = open(os.path.join(options.out, "results.tsv"), "w")
        results.write("\t".join(columns) + "\n")
        lag_file = open(os.path.join(options.out, "lag.tsv"), "w")
        lag_file.write("round\tsave\tlag_ms\tsave_ms\tevent_after_send_ms\tload\n")

        def keep(round_number, row):
            row["round"] = round_number
            text = "\t".join(f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in columns)
            results.write(text + "\n")
            results.flush()
            print(text, file=sys.stderr)

        on_a = Client(cluster.address("A"), dict(ada.cookies))
        for round_number in range(1, options.rounds + 1):
            shift = round_number - 1
            for path in ("/", "/quotes"):
                order = read_configs if round_number % 2 else read_configs[::-1]
                for name in order:
                    keep(round_number, measure("read", name, path, address_of(name, path), 2, options.read_connections))
            for count in (int(w) for w in options.writers.split()):
                order = save_configs[shift % 3:] + save_configs[:shift % 3]
                for config, target, writers in order:
                    keep(round_number, measure("save", config, str(count), address_of(target), count, count, writers))
            # Replication lag: saves on A, the event on B's stream.
            stream = EventStream(cluster.address("B"), f"/quotes/{lag_quote}/events")
            streams.append(stream)
            version, token = edit_form(on_a, lag_quote)
            check(stream.wait_for(version, 5), f"the stream on B did not start with version {version}")
            lags = []
            for index in range(options.lag_saves):
                sent = time.monotonic()
                response = on_a.post(f"/quotes/{lag_quote}", {"text": f"Round {round_number}, save {index}",
                                                              "author": "Ada", "version": version,
                                                              "csrf_token": token})
                answered = time.monotonic()
                check(response.status == 303, f"lag save {index} on A answered {response.status}")
                version += 1
                event = stream.wait_for(version, 5)
                check(event, f"B's stream did not get version {version} within 5 s")
                # Unclamped: B's event can be read before the client has finished reading A's 303.
                lags.append(event[1] - answered)
                lag_file.write(f"{round_number}\t{index}\t{lags[-1] * 1000:.3f}\t{(answered - sent) * 1000:.3f}\t"
                               f"{(event[1] - sent) * 1000:.3f}\t{loadavg()}\n")
            lag_file.flush()
            ordered = sorted(lags)
            print(f"round {round_number}: lag p50 {ordered[len(ordered) // 2] * 1000:.2f} ms, "
                  f"p99 {ordered[int(0.99 * len(ordered)) - 1] * 1000:.2f} ms; load {loadavg()}", file=sys.stderr)
            stream.close()
        results.close()
        lag_file.close()
    finally:
        for stream in streams:
            stream.close()
        for proxy in proxies.values():
            proxy.close()
        for problem in cluster.close():
            print(f"clean-up: {problem}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
