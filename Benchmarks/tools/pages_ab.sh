#!/usr/bin/env bash
# Benchmarks/tools/pages_ab.sh OUTDIR N NAME BIN [NAME BIN ...]: Benchmarks/pages.sh, one round each,
# for each release binary in turn (the order flipped every pass: A B, B A, ...), N passes; keeps every
# run's tsv in OUTDIR and prints, per page and binary, the median Quotebook/nginx ratio (and µs).
# VISITOR (signed-in, pre-session, signed-out) is passed on to pages.sh.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1; n=$2; shift 2
mkdir -p "$out"
names=(); bins=()
while [ $# -gt 0 ]; do names+=("$1"); bins+=("$2"); shift 2; done
for i in $(seq 1 "$n"); do
  order=("${!names[@]}"); if [ $((i % 2)) -eq 0 ]; then order=($(printf '%s\n' "${order[@]}" | tac)); fi
  for k in "${order[@]}"; do
    QUOTEBOOK_BIN=${bins[$k]} LABEL=${names[$k]} DURATION=${DURATION:-4} bash "$here/../pages.sh" 1 >/dev/null 2>&1
    cp "$here/../pages-results/latest-runs-${VISITOR:-signed-in}.tsv" "$out/run$i-${names[$k]}.tsv"
    echo "done run $i ${names[$k]}" >&2
  done
done
python3 - "$out" <<'PY'
import csv, glob, os, statistics, sys, collections
out = sys.argv[1]
ratios = collections.defaultdict(list); per = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(out, "run*-*.tsv"))):
    name = os.path.basename(f).split("-", 1)[1][:-4]
    rows = list(csv.DictReader(open(f), delimiter="\t"))
    for page in dict.fromkeys(r["page"] for r in rows):
        q = [float(r["cpu_us_per_req"]) for r in rows if r["page"] == page and r["server"] == "quotebook"]
        g = [float(r["cpu_us_per_req"]) for r in rows if r["page"] == page and r["server"] == "nginx"]
        ratios[(name, page)].append(statistics.median(q) / statistics.median(g))
        per[(name, page)].append(statistics.median(q))
pages = list(dict.fromkeys(p for _, p in ratios))
names = list(dict.fromkeys(n for n, _ in ratios))
print("| page | " + " | ".join(f"{n} ratio (µs)" for n in names) + " |")
print("|---|" + "---|" * len(names))
for p in pages:
    print(f"| {p} | " + " | ".join(f"{statistics.median(ratios[(n, p)]):.2f}× ({statistics.median(per[(n, p)]):.1f}) [{', '.join(f'{r:.2f}' for r in ratios[(n, p)])}]" for n in names) + " |")
PY
