#!/usr/bin/env python3
"""How many candidate keys each search of a rotation leaves after the byte-pair filters, for
a book in a Quotebook data directory (SQLite journal): a copy, in Python, of PairFilter's hash
(Sources/Store/Search/PairFilter.swift) over each quote's key as last written.

Approximate where the app is exact: a key here is the lower-cased text, a space and the
lower-cased author (the app folds accents and compatibility forms too; the seeded books are
ASCII), and a query without any byte pair counts every slot of one chunk (256), as the app
counts for a book of one chunk.

usage: search_candidates.py DATA_DIR PATHS_FILE [KEPT_ABOVE (64)]
PATHS_FILE: one /quotes?q=... a line (pages.sh's search-paths.txt).
"""
import json
import sqlite3
import statistics
import sys
import urllib.parse

data, paths = sys.argv[1], sys.argv[2]
kept_above = int(sys.argv[3]) if len(sys.argv) > 3 else 64
db = sqlite3.connect(f"file:{data}/quotebook.sqlite3?mode=ro", uri=True)
keys, next_id = {}, 0
for (action,) in db.execute("SELECT action FROM journal ORDER BY sequence"):
    entry = json.loads(action)
    kind, body = next(iter(entry.items()))
    if kind == "addQuote":
        next_id += 1
        keys[next_id] = body["_0"]
    elif kind in ("editQuote", "restoreQuote"):
        keys[int(body["_0"])] = body["_1"]
    elif kind == "deleteQuote":
        keys.pop(int(body["_0"]), None)
keys = {i: (q["text"].lower() + " " + q["author"].lower()).encode() for i, q in keys.items()}


def bit(a, b):
    return (((a << 8 | b) * 0x9E3779B1) & 0xFFFFFFFF) >> 24


filters = {i: {bit(k[j - 1], k[j]) for j in range(1, len(k))} for i, k in keys.items()}
counts = []
for line in open(paths):
    words = urllib.parse.unquote_plus(line.strip().split("q=", 1)[1]).lower().split()
    wanted = {bit(w[j - 1], w[j]) for w in map(str.encode, words) for j in range(1, len(w))}
    counts.append(sum(1 for i in keys if wanted <= filters[i]) if wanted else 256)
kept = sum(1 for c in counts if c > kept_above)
print(f"{len(keys)} quotes, {len(counts)} searches; candidates: median {statistics.median(counts)}, "
      f"mean {statistics.mean(counts):.1f}, max {max(counts)}; more than {kept_above}: {kept} "
      f"({kept / len(counts):.1%})")
