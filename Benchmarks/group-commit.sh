#!/usr/bin/env bash
# Durable saves per second through the Store on a real file (WAL, synchronous=FULL) with 1, 16
# and 64 writers, each waiting for its save's answer before the next: the store before group
# commit ("before": the Store of BASE) and after ("after": this tree), side by side. Both are
# release builds of the same Sources/StoreBenchmark; runs alternate before/after, each round in
# the opposite order, and the summary gives medians over rounds and after/before ratios.
#
# usage: Benchmarks/group-commit.sh [ROUNDS]      (default 5)
# env:   BASE      the commit whose store is "before" (default: merge-base of HEAD and main)
#        WRITERS   writer counts (default "1 16 64")
#        RUN_SECONDS  measured seconds per run (default 3), after WARMUP seconds (default 0.5)
#        DATA      parent folder of each run's data directory (default: the system's temp folder;
#                  it must be on a real disk for fsync to cost what it costs; /dev/shm shows the
#                  store's own cost per save, with a free sync)
#        OUT       output folder (default Benchmarks/group-commit-results)
# Output: $OUT/{results.tsv,summary.md}
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-5}
WRITERS=${WRITERS:-1 16 64}
SECONDS_PER_RUN=${RUN_SECONDS:-3}
WARMUP=${WARMUP:-0.5}
DATA=${DATA:-${TMPDIR:-/tmp}}
BASE=${BASE:-$(git -C "$root" merge-base HEAD main)}
out=${OUT:-$here/group-commit-results}
work=$root/.build-bench/group-commit
mkdir -p "$out" "$work"

# 1. "before": BASE's sources with this benchmark added as one more target
rm -rf "$work/before" && mkdir -p "$work/before"
git -C "$root" archive "$BASE" | tar -x -C "$work/before"
cp -r "$root/Sources/StoreBenchmark" "$work/before/Sources/"
grep -q '"StoreBenchmark"' "$work/before/Package.swift" || cat >>"$work/before/Package.swift" <<'SWIFT'
package.targets.append(
    .executableTarget(name: "StoreBenchmark", dependencies: ["Store", "Logging"], swiftSettings: strictSettings))
SWIFT
(cd "$work/before" && swift build -c release --product StoreBenchmark >&2)
before=$work/before/.build/release/StoreBenchmark
# 2. "after": this tree
(cd "$root" && swift build -c release --scratch-path .build-bench --product StoreBenchmark >&2)
after=$root/.build-bench/release/StoreBenchmark

# 3. alternate: odd rounds before then after, even rounds after then before
results=$out/results.tsv
printf 'round\tlabel\twriters\tsaves\tsaves_per_s\tp50_ms\tp90_ms\tp99_ms\n' >"$results"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
    for writers in $WRITERS; do
        order=("before:$before" "after:$after")
        [ $((round % 2)) -eq 0 ] && order=("after:$after" "before:$before")
        for entry in "${order[@]}"; do
            line=$("${entry#*:}" "${entry%%:*}" "$writers" "$SECONDS_PER_RUN" "$WARMUP" "$DATA")
            printf '%s\t%s\n' "$round" "$line" | tee -a "$results" >&2
        done
    done
done

# 4. medians and ratios
python3 - "$results" "$started" "$load" "$BASE" "$ROUNDS" "$SECONDS_PER_RUN" "$DATA" >"$out/summary.md" <<'PY'
import csv, statistics, subprocess, sys
path, started, load, base, rounds, seconds, data = sys.argv[1:]
rows = list(csv.DictReader(open(path), delimiter="\t"))
def med(label, writers, col):
    return statistics.median(float(r[col]) for r in rows if r["label"] == label and r["writers"] == writers)
writers = sorted({r["writers"] for r in rows}, key=int)
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
print("# Group commit: durable saves per second\n")
print(f"Run {started}, `Benchmarks/group-commit.sh {rounds}`: {rounds} rounds, {seconds} s measured per run "
      f"after a warm-up, before/after alternating; raw rows in `results.tsv`. Before = the Store of {base[:10]}; "
      f"after = this tree. Data on {data} ({subprocess.run(['df', '-T', data], capture_output=True, text=True).stdout.splitlines()[-1].split()[1]}), "
      "WAL, synchronous=FULL.")
print(f"Machine: {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, {swift}; "
      f"shared with other engineers' builds and tests (load average {load} at the start), so compare ratios within the run.\n")
print("Each writer saves a display-name change and waits for the answer before the next. Medians over rounds.\n")
def paired(writers, col):
    """after/before of `col` in each round (the two ran back to back), median over rounds."""
    value = {(r["round"], r["label"]): float(r[col]) for r in rows if r["writers"] == writers}
    return statistics.median(value[(n, "after")] / value[(n, "before")]
                             for n in {r["round"] for r in rows} if (n, "after") in value and (n, "before") in value)
print("| writers | before saves/s | after saves/s | after/before (paired) | before p50 / p99 ms | after p50 / p99 ms | p50 after/before (paired) |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for w in writers:
    b, a = med("before", w, "saves_per_s"), med("after", w, "saves_per_s")
    print(f"| {w} | {b:,.0f} | {a:,.0f} | {a / b:.2f}x ({paired(w, 'saves_per_s'):.2f}x) "
          f"| {med('before', w, 'p50_ms'):.3f} / {med('before', w, 'p99_ms'):.3f} "
          f"| {med('after', w, 'p50_ms'):.3f} / {med('after', w, 'p99_ms'):.3f} | {paired(w, 'p50_ms'):.2f}x |")
print()
print("after/before: of the medians; (paired): the median over rounds of each round's ratio, the two runs "
      "of a round having run back to back, which cancels slow changes in the machine's load.")
one = med("after", writers[0], "saves_per_s")
print()
for w in writers[1:]:
    print(f"- after, {w} writers / 1 writer: {med('after', w, 'saves_per_s') / one:.2f}x "
          f"(before: {med('before', w, 'saves_per_s') / med('before', writers[0], 'saves_per_s'):.2f}x; "
          f"after at {w} against before at 1: {med('after', w, 'saves_per_s') / med('before', writers[0], 'saves_per_s'):.2f}x).")
PY
cat "$out/summary.md"
