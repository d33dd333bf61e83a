#!/usr/bin/env bash
# Several instances on one PostgreSQL database (issue: "reads at 1 vs 2 instances behind nginx,
# durable saves per second on Postgres vs SQLite at 1 and 64 writers, and replication lag p50/p99
# between instances"). One throwaway cluster (.ci/postgres.sh, as Tests/Cluster/cluster_test.py
# starts it, whose helpers tools/scaleout_measure.py reuses): instances A and B on PostgreSQL, S on
# SQLite, and two nginx processes rendered from deploy/nginx.conf that differ only in their
# upstream (nginx-1: A; nginx-2: A and B; access log off). Per round, configurations alternating:
#   reads   wrk -t2 -c64 GET / and GET /quotes (60 quotes) through nginx-1 and nginx-2;
#   saves   1 and 64 writers, each a signed-up person on its own session POSTing /profile/name
#           (a durable save acknowledged with 303) one at a time (wrk -tW -cW, tools/scaleout.lua),
#           against S (sqlite-1), A (postgres-1), and nginx-2 (postgres-2: A and B);
#   lag     LAG_SAVES edits saved on A one after another, each from A's 303 to the event on an
#           event stream open on B.
# StoreBenchmark (group-commit.sh) takes only an SQLiteJournal, so saves are measured over HTTP:
# the figures include HTTP, the session and CSRF checks and rendering nothing but a redirect.
# Every row has the client's (wrk) CPU, the instances', nginx's and PostgreSQL's, and the load
# average; the machine is shared, so compare ratios within one run. Data and the PostgreSQL
# cluster live in the system's temporary folder (fsync on; PostgreSQL synchronous_commit on).
#
# usage: Benchmarks/scaleout.sh [ROUNDS]      (default 3)
# env:   RUN_SECONDS  seconds per wrk run (default 5)
#        WRITERS      writer counts (default "1 64")
#        LAG_SAVES    saves per round for the lag (default 250)
#        QUOTEBOOK_BIN  use this binary instead of building
# Output: Benchmarks/scaleout-results/run-YYYYMMDDTHHMMZ/{results.tsv,lag.tsv,summary.md}, a
#         directory per run, so a run never overwrites one the README cites
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
out=$here/scaleout-results/run-$(date -u +%Y%m%dT%H%MZ)
export PATH=/opt/swift/usr/bin:$PATH
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
command -v nginx >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; }
app=${QUOTEBOOK_BIN:-}
if [ -z "$app" ]; then
    (cd "$root" && swift build -c release --scratch-path .build-bench --product quotebook >&2)
    app=$root/.build-bench/release/quotebook
fi
mkdir -p "$out"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$here/tools/scaleout_measure.py" "$app" "$root" "$out" --rounds "$ROUNDS" \
    --seconds "${RUN_SECONDS:-5}" --writers "${WRITERS:-1 64}" --lag-saves "${LAG_SAVES:-250}"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$out" "$started" "$load" "$load_end" "$ROUNDS" "${RUN_SECONDS:-5}" >"$out/summary.md" <<'PY'
import csv, math, statistics, subprocess, sys
out, started, load, load_end, rounds, seconds = sys.argv[1:]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
lags = list(csv.DictReader(open(f"{out}/lag.tsv"), delimiter="\t"))
def pick(kind, config, detail):
    return [r for r in rows if r["kind"] == kind and r["config"] == config and r["detail"] == detail]
def med(kind, config, detail, col):
    return statistics.median(float(r[col]) for r in pick(kind, config, detail))
def paired(kind, top, bottom, detail, col="per_s"):
    """Median over rounds of each round's top/bottom (the two ran minutes apart at most)."""
    value = {(r["round"], r["config"]): float(r[col]) for r in rows if r["kind"] == kind and r["detail"] == detail}
    return statistics.median(value[(n, top)] / value[(n, bottom)] for n in {r["round"] for r in rows})
def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]
loads = [float(r["load"].split()[0]) for r in rows]
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
pg = subprocess.run("ls -d /usr/lib/postgresql/*/ | sort -V | tail -1", shell=True, capture_output=True, text=True).stdout.strip()
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
print("# Scale-out: 1 vs 2 instances behind nginx, PostgreSQL vs SQLite saves, replication lag\n")
print(f"Run {started}, `Benchmarks/scaleout.sh {rounds}`: {rounds} rounds, {seconds} s of wrk per run, "
      "configurations alternating from round to round; raw rows in `results.tsv` and `lag.tsv`.")
print(f"Machine: {cores} cores, {swift}, {nginx}, PostgreSQL {pg.rstrip('/').split('/')[-1]}; everything "
      "(PostgreSQL, the instances, nginx, wrk) on the same cores, shared with a CI run and other work: "
      f"load average {load} at the start, {load_end} at the end, 1-min load {min(loads):.1f}–{max(loads):.1f} "
      "over the rows. Compare ratios within this run. Medians over rounds; CPU in % of one core "
      "over the run (wall time).\n")
print("## Reads through nginx (wrk -t2 -c64)\n")
print("| path | nginx-1 (A) req/s | nginx-2 (A+B) req/s | 2/1 (paired) | p99 ms 1 / 2 | wrk CPU 1 / 2 | instances CPU 1 / 2 | nginx CPU 1 / 2 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for path in ("/", "/quotes"):
    one, two = med("read", "nginx-1", path, "per_s"), med("read", "nginx-2", path, "per_s")
    f = lambda col: f"{med('read', 'nginx-1', path, col):.0f} / {med('read', 'nginx-2', path, col):.0f}"
    print(f"| `{path}` | {one:,.0f} | {two:,.0f} | {two / one:.2f}x ({paired('read', 'nginx-2', 'nginx-1', path):.2f}x) "
          f"| {med('read', 'nginx-1', path, 'p99_ms'):.1f} / {med('read', 'nginx-2', path, 'p99_ms'):.1f} "
          f"| {f('client_cpu')} | {f('instances_cpu')} | {f('nginx_cpu')} |")
print()
print("## Durable saves per second (POST /profile/name, 303)\n")
print("| writers | config | saves/s | p50 / p99 ms | other answers | wrk CPU | instances CPU | nginx CPU | PostgreSQL CPU |")
print("|---:|---|---:|---:|---|---:|---:|---:|---:|")
writers = sorted({r["detail"] for r in rows if r["kind"] == "save"}, key=int)
for w in writers:
    for config in ("sqlite-1", "postgres-1", "postgres-2"):
        if not pick("save", config, w):
            continue
        other = ", ".join(sorted({r["other"] for r in pick("save", config, w)}))
        print(f"| {w} | {config} | {med('save', config, w, 'per_s'):,.0f} | {med('save', config, w, 'p50_ms'):.2f} / "
              f"{med('save', config, w, 'p99_ms'):.2f} | {other} | {med('save', config, w, 'client_cpu'):.0f} | "
              f"{med('save', config, w, 'instances_cpu'):.0f} | {med('save', config, w, 'nginx_cpu'):.0f} | "
              f"{med('save', config, w, 'postgres_cpu'):.0f} |")
print()
print("sqlite-1: instance S on SQLite; postgres-1: instance A on PostgreSQL; postgres-2: A and B through "
      "nginx-2. Ratios of medians (paired: median over rounds of each round's ratio):\n")
for w in writers:
    s, p1, p2 = (med("save", c, w, "per_s") for c in ("sqlite-1", "postgres-1", "postgres-2"))
    print(f"- {w} writer{'s' if w != '1' else ''}: PostgreSQL/SQLite {p1 / s:.2f}x "
          f"({paired('save', 'postgres-1', 'sqlite-1', w):.2f}x); 2 instances/1 on PostgreSQL {p2 / p1:.2f}x "
          f"({paired('save', 'postgres-2', 'postgres-1', w):.2f}x).")
if len(writers) > 1:
    for config in ("sqlite-1", "postgres-1", "postgres-2"):
        print(f"- {config}: {writers[-1]} writers / 1 writer {med('save', config, writers[-1], 'per_s') / med('save', config, writers[0], 'per_s'):.2f}x.")
print()
print("## Replication lag: A's 303 to the event on B's stream\n")
print("| round | saves | lag p50 / p99 / max ms | event before the 303 was read | POST to 303 p50 / p99 ms | POST to B's event p50 / p99 ms | load at the end |")
print("|---:|---:|---:|---:|---:|---:|---|")
everything = []
for n in sorted({r["round"] for r in lags}, key=int) + ["all"]:
    mine = [r for r in lags if n == "all" or r["round"] == n]
    lag = [max(0.0, float(r["lag_ms"])) for r in mine]
    save = [float(r["save_ms"]) for r in mine]
    whole = [float(r["event_after_send_ms"]) for r in mine]
    early = sum(float(r["lag_ms"]) < 0 for r in mine)
    print(f"| {n} | {len(mine)} | {percentile(lag, 0.5):.2f} / {percentile(lag, 0.99):.2f} / {max(lag):.2f} | "
          f"{early} ({100 * early / len(mine):.0f} %) | {percentile(save, 0.5):.2f} / {percentile(save, 0.99):.2f} | "
          f"{percentile(whole, 0.5):.2f} / {percentile(whole, 0.99):.2f} | {mine[-1]['load'] if n != 'all' else ''} |")
print()
print("Saves on A one at a time (POST /quotes/{id}, an edit), nothing else running; the stream on B "
      "connects straight to B (no nginx). Lag = B's event read by the client minus A's 303 read by the client "
      "(one clock; an event read first counts as 0, as in Tests/Cluster/cluster_test.py): B is notified by "
      "PostgreSQL when A commits, so its event often races A's own answer. POST to B's event is the "
      "bound that does not depend on that race.")
PY
cat "$out/summary.md"
