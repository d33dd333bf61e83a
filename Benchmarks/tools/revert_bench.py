#!/usr/bin/env python3
"""A moderator reverts a person who edited 5,000 quotes of a 100,000-quote book, while other
people read pages and save (Benchmarks/revert.sh; issue 31). Standard library only.

Against a running Quotebook on a big book whose accounts `revert.sh` made beforehand with
`quotebook user add` (password PASSWORD below): ROUNDS vandals (vandal1 …), a moderator (`mod`)
and READERS + SAVERS other people (`other1` …).

setup   every account signs in over HTTP (GET /login for the pre-session cookie and token, POST
        /login). Each vandal, on --vandal-connections keep-alive connections, adds --own quotes
        and saves each once more (quotes only they wrote: the revert hides them), and edits
        --edits - --own distinct quotes of the book (GET /quotes/{id}/edit for `version`, POST
        /quotes/{id}), --deep of them --deep-versions times over (a history longer than the
        controller's read of 32 versions). The vandals' quotes and the savers' quotes are
        disjoint, drawn with a fixed seed from the book's quote ids (from the journal).
round r background load: READERS people each view a page every 1/--read-rate s (/, /quotes, a
        /quotes?page=N, /quotes/{id} at random), SAVERS people each save one of their own 20
        quotes every 1/--save-rate s, each on its own keep-alive connection. After --quiet s
        the moderator POSTs /users/vandal{r}/revert (a fresh connection, its token fetched
        before), timed to its 303; the load runs --tail s more and stops. Each round's quiet
        window is at least 1.2 x the longest revert before it, so it can be as long as the
        revert it is compared with.

Latency of a background request is measured two ways: `service` from sending to the whole
answer, and `intended` from when its schedule said it should start (so a request that waited
behind a stalled one counts its wait too, as wrk2 does; with no stall both agree). A request
belongs to the window its intended start falls in: `during` = [revert sent, 303 read],
`quiet` = the same length just before the revert was sent.

Journal bytes: read-only SQLite on DATA/quotebook.sqlite3 (WAL, beside the server): the revert's
journal row and its journal_version rows, length(action) summed; and, from dbstat before the
load starts and after it stops, the pages of the journal and journal_version B-trees (with their
indexes), against the logical bytes of every row the round added (the savers' too).

Afterwards it checks: the moderator's log's newest line says "reverted the edits of vandal{r}:
N taken back, M hidden" with the numbers planned; a sample of restored quotes shows (to another
person) the text it had before the vandal, and each quote only the vandal wrote answers 404.

usage: revert_bench.py --port PORT --data DIR --out DIR [--rounds 3] [--edits 5000] [--own 50]
       [--deep 10] [--deep-versions 40] [--readers 3] [--read-rate 20] [--savers 2]
       [--save-rate 10] [--quiet 15] [--tail 3] [--verify 300] [--vandal-connections 4]
Writes OUT/round{r}-samples.tsv, OUT/round{r}.json, OUT/setup.json, and prints a summary JSON.
"""
import argparse
import html
import http.client
import json
import math
import os
import random
import re
import sqlite3
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

PASSWORD = "revert benchmark password"
CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')
VERSION = re.compile(rb'name="version" value="(\d+)"')
TEXTAREA = re.compile(rb'<textarea id="text"[^>]*>(.*?)</textarea>', re.S)
AUTHOR = re.compile(rb'<input id="author"[^>]*value="([^"]*)"')
LOG_LINE = re.compile(r"reverted the edits of ([^:<]*): (\d+) quotes? taken back, (\d+) hidden")
CLOCK = time.perf_counter
ORIGIN = CLOCK()


def now():
    return CLOCK() - ORIGIN


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values), max(1, math.ceil(p / 100 * len(sorted_values)))) - 1]


def summary(seconds):
    values = sorted(seconds)
    if not values:
        return {"count": 0}
    return {"count": len(values), **{name: round(percentile(values, p) * 1000, 2) for name, p in (("p50", 50), ("p99", 99))},
            "max": round(values[-1] * 1000, 2)}


class Client:
    """One keep-alive connection with the cookies the server set."""

    def __init__(self, host, port, cookies=None, timeout=120):
        self.host, self.port, self.timeout = host, port, timeout
        self.cookies = dict(cookies or {})
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)

    def request(self, method, target, body=None):
        headers = {"Host": f"{self.host}:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(body).encode()
        for attempt in (1, 2):
            try:
                self.connection.request(method, target, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A keep-alive connection the server closed while idle: once more on a new one.
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                if attempt == 2:
                    raise
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, cookie = value.split(";", 1)[0].partition("=")
                if cookie:
                    self.cookies[key] = cookie
                else:
                    self.cookies.pop(key, None)
        if (response.getheader("Connection") or "").lower() == "close":
            self.connection.close()
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        return response.status, response.getheader("Location"), data

    def token(self, target="/"):
        status, _, page = self.request("GET", target)
        match = CSRF.search(page)
        if not match:
            raise SystemExit(f"no csrf_token on {target} (status {status})")
        return match.group(1).decode()

    def close(self):
        self.connection.close()


def sign_in(host, port, username):
    client = Client(host, port)
    token = client.token("/login")
    status, _, _ = client.request("POST", "/login", {"username": username, "password": PASSWORD, "csrf_token": token})
    if status != 303:
        raise SystemExit(f"signing in {username} answered {status}")
    cookies = client.cookies
    token = client.token("/")
    client.close()
    return cookies, token


def edit_form(client, quote):
    """(version, text, author) of quote's edit form, as the page has them (HTML-escaped); None on 404."""
    status, _, page = client.request("GET", f"/quotes/{quote}/edit")
    if status == 404:
        return None
    if status != 200:
        raise SystemExit(f"GET /quotes/{quote}/edit answered {status}")
    return int(VERSION.search(page).group(1)), TEXTAREA.search(page).group(1).decode(), AUTHOR.search(page).group(1).decode()


def save(client, token, quote, version, text, author):
    return client.request("POST", f"/quotes/{quote}", {"text": text, "author": author, "version": str(version), "csrf_token": token})[0]


# ---------------------------------------------------------------------------------------------
# Set-up: a vandal's edits


def vandalise(host, port, cookies, token, name, targets, own, deep, deep_versions, connections):
    """name's edits: `own` quotes added and saved once more, every quote of `targets` edited once,
    the first `deep` of them `deep_versions` times. Returns the quotes' text before (escaped),
    the own quotes' ids, and counts."""
    local = threading.local()
    originals = {}
    skipped = []
    lock = threading.Lock()

    def client():
        if not hasattr(local, "client"):
            local.client = Client(host, port, cookies)
        return local.client

    def edit(item):
        index, quote = item
        c = client()
        form = edit_form(c, quote)
        if form is None:
            with lock:
                skipped.append(quote)
            return 0
        version, text, author = form
        with lock:
            originals[quote] = (text, author)
        times = deep_versions if index < deep else 1
        for n in range(times):
            status = save(c, token, quote, version, f"{name} was here ({n + 1}) on quote {quote}", html.unescape(author))
            if status != 303:
                raise SystemExit(f"{name} saving quote {quote} answered {status}")
            version += 1
        return times

    def add_own(n):
        c = client()
        status, location, _ = c.request("POST", "/quotes", {"text": f"{name}'s own quote {n}", "author": name, "csrf_token": token})
        if status != 303 or not location:
            raise SystemExit(f"{name} adding a quote answered {status}")
        quote = int(location.rstrip("/").rsplit("/", 1)[1])
        if save(c, token, quote, 1, f"{name}'s own quote {n}, edited", name) != 303:
            raise SystemExit(f"{name} editing their own quote {quote} failed")
        return quote

    began = CLOCK()
    with ThreadPoolExecutor(connections) as pool:
        own_quotes = list(pool.map(add_own, range(own)))
        saves = sum(pool.map(edit, enumerate(targets)))
    return {"originals": originals, "own": own_quotes, "skipped": skipped, "saves": saves + 2 * own,
            "seconds": round(CLOCK() - began, 1)}


# ---------------------------------------------------------------------------------------------
# Background load


class Person(threading.Thread):
    """One signed-in person on one keep-alive connection, a request every `interval` seconds."""

    def __init__(self, host, port, cookies, token, interval, kind, samples, stop, seed):
        super().__init__(daemon=True)
        self.client = Client(host, port, cookies)
        self.token, self.interval, self.kind = token, interval, kind
        self.samples, self.stop = samples, stop
        self.random = random.Random(seed)

    def run(self):
        intended = now() + self.random.random() * self.interval
        while not self.stop.is_set():
            wait = intended - now()
            if wait > 0:
                time.sleep(wait)
            start = now()
            target, status = self.once()
            end = now()
            self.samples.append((self.kind, target, intended, start, end, status))
            intended += self.interval
        self.client.close()


class Reader(Person):
    def __init__(self, *arguments, quote_ids, **keywords):
        super().__init__(*arguments, kind="view", **keywords)
        self.quote_ids = quote_ids

    def once(self):
        roll = self.random.random()
        if roll < 0.2:
            target = "/"
        elif roll < 0.4:
            target = "/quotes"
        elif roll < 0.5:
            target = f"/quotes?page={self.random.randint(2, 2000)}"
        else:
            target = f"/quotes/{self.random.choice(self.quote_ids)}"
        return target, self.client.request("GET", target)[0]


class Saver(Person):
    def __init__(self, *arguments, quotes, name, **keywords):
        super().__init__(*arguments, kind="save", **keywords)
        self.name = name
        self.versions = {}
        for quote in quotes:
            form = edit_form(self.client, quote)
            if form:
                self.versions[quote] = (form[0], html.unescape(form[2]))
        self.order = list(self.versions)
        self.count = 0

    def once(self):
        quote = self.order[self.count % len(self.order)]
        self.count += 1
        version, author = self.versions[quote]
        status = save(self.client, self.token, quote, version, f"{self.name} saves quote {quote}, time {self.count}", author)
        if status == 303:
            self.versions[quote] = (version + 1, author)
        elif status == 409:
            form = edit_form(self.client, quote)
            self.versions[quote] = (form[0], author)
        return f"/quotes/{quote}", status


# ---------------------------------------------------------------------------------------------
# The journal, read-only beside the server


def database(data):
    path = os.path.join(data, "quotebook.sqlite3")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)


def head(data):
    with database(data) as db:
        return db.execute("SELECT coalesce(max(sequence), 0) FROM journal").fetchone()[0]


def tree_bytes(data):
    """Bytes of the pages of the journal and journal_version B-trees and their indexes (dbstat)."""
    with database(data) as db:
        rows = db.execute(
            "SELECT name, sum(pgsize) FROM dbstat WHERE name IN ('journal', 'journal_version', 'journal_quote', "
            "'journal_person', 'sqlite_autoindex_journal_version_1') GROUP BY name").fetchall()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    return {"trees": dict(rows), "total": sum(size for _, size in rows), "database_bytes": page_size * pages}


def journal_added(data, after):
    """What the journal gained after sequence `after`: the revert's row and its indexed versions,
    and every row."""
    with database(data) as db:
        revert = db.execute(
            "SELECT sequence, length(CAST(action AS BLOB)) FROM journal WHERE sequence > ? "
            "AND json_type(action, '$.revertEdits') IS NOT NULL", (after,)).fetchall()
        if len(revert) != 1:
            raise SystemExit(f"expected one revert entry after {after}, found {len(revert)}")
        sequence, row_bytes = revert[0]
        versions, version_bytes = db.execute(
            "SELECT count(*), coalesce(sum(length(CAST(action AS BLOB))), 0) FROM journal_version WHERE sequence = ?",
            (sequence,)).fetchone()
        plan = db.execute(
            "SELECT json_array_length(action, '$.revertEdits.plan.restores'), json_array_length(action, '$.revertEdits.plan.hides') "
            "FROM journal WHERE sequence = ?", (sequence,)).fetchone()
        others, other_bytes = db.execute(
            "SELECT count(*), coalesce(sum(length(CAST(action AS BLOB))), 0) FROM journal WHERE sequence > ? AND sequence != ?",
            (after, sequence)).fetchone()
        sample = db.execute("SELECT action FROM journal_version WHERE sequence = ? LIMIT 1", (sequence,)).fetchone()
    return {"sequence": sequence, "journal_row_bytes": row_bytes, "journal_version_rows": versions,
            "journal_version_bytes": version_bytes, "revert_bytes": row_bytes + version_bytes,
            "plan_restores": plan[0], "plan_hides": plan[1], "other_rows": others, "other_rows_bytes": other_bytes,
            "journal_version_example": sample[0][:400] if sample else None}


def thread_cpu(pid):
    """CPU seconds (user + system) of each thread of process `pid`, by thread id: (name, seconds)."""
    if not pid:
        return {}
    ticks = os.sysconf("SC_CLK_TCK")
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        threads[tid] = (name, (int(fields[11]) + int(fields[12])) / ticks)
    return threads


def cpu_used(before, after):
    """Per thread name, CPU seconds used between two thread_cpu() readings, most first."""
    used = {}
    for tid, (name, seconds) in after.items():
        spent = seconds - before.get(tid, (name, 0.0))[1]
        if spent > 0:
            used[name] = round(used.get(name, 0.0) + spent, 2)
    return dict(sorted(used.items(), key=lambda item: -item[1]))


def snapshot_mtime(data):
    try:
        return os.stat(os.path.join(data, "quotebook.sqlite3-snapshot")).st_mtime
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------


def windows(samples, t0, t1, quiet_start):
    """Per kind: latency in the quiet window before and during the revert (see the module doc)."""
    length = t1 - t0
    quiet_from = max(quiet_start, t0 - length)
    result = {"revert_sent_at": round(t0, 6), "revert_answered_at": round(t1, 6), "quiet_from": round(quiet_from, 6),
              "quiet_window_s": round(t0 - quiet_from, 3), "during_window_s": round(length, 3),
              "quiet_shorter_than_revert": t0 - quiet_from < length - 1e-6}
    for kind in ("view", "save"):
        mine = [s for s in samples if s[0] == kind]
        for label, lo, hi in (("quiet", quiet_from, t0), ("during", t0, t1), ("whole_quiet", quiet_start, t0)):
            chosen = [s for s in mine if lo <= s[2] < hi or (label == "during" and s[2] == hi)]
            result[f"{kind}_{label}"] = {
                "service_ms": summary([s[4] - s[3] for s in chosen]),
                "intended_ms": summary([s[4] - s[2] for s in chosen]),
                "not_ok": sum(1 for s in chosen if s[5] not in (200, 303, 404)),
            }
        overlapping = [s[4] - s[3] for s in mine if s[3] < t1 and s[4] > t0]
        result[f"{kind}_longest_overlapping_ms"] = round(max(overlapping) * 1000, 2) if overlapping else None
    return result


def verify(host, port, cookies, moderator, vandal, originals, own, restored_sample, expected_restores):
    checker = Client(host, port, cookies)
    wrong = []
    for quote in restored_sample:
        form = edit_form(checker, quote)
        if form is None or (form[1], form[2]) != originals[quote]:
            wrong.append(quote)
    shown = [q for q in own if checker.request("GET", f"/quotes/{q}")[0] != 404]
    checker.close()
    mod = Client(host, port, moderator)
    status, _, page = mod.request("GET", "/moderation/log")
    mod.close()
    match = LOG_LINE.search(html.unescape(page.decode()))
    line = match.group(0) if match else None
    log_ok = bool(match) and match.group(1).strip() in (vandal, f"{vandal} ({vandal})") and int(match.group(2)) == expected_restores and int(
        match.group(3)) == len(own)
    return {"checked_restored": len(restored_sample), "restored_wrong": wrong, "own_quotes": len(own),
            "own_still_shown": shown, "log_status": status, "log_line": line, "log_ok": log_ok,
            "ok": not wrong and not shown and log_ok}


def summarize(run):
    """Markdown tables from a run directory's result.json (--summarize RUN)."""
    result = json.load(open(os.path.join(run, "result.json")))
    rounds = result["rounds"]
    ms = lambda w, k: w.get(k) if w.get("count") else None
    fmt = lambda v: "—" if v is None else (f"{v:,.1f}" if v >= 100 else f"{v:.2f}")
    threads = lambda r: "—" if "server_cpu_during_revert_s" not in r else (
        f"{r['server_cpu_during_revert_s']:.2f} (load {r['load_average_before_revert'][0]})")
    lines = ["| round | revert s | server CPU s in it (load average before) | restored / hidden | journal row bytes | journal_version rows / bytes | revert bytes in all |"
             " B-trees grew (all rows in the round) | snapshot written in round | checks |",
             "|---:|---:|---|---:|---:|---:|---:|---:|:---:|:---:|"]
    for r in rounds:
        j = r["journal"]
        lines.append(
            f"| {r['round']} | {r['revert_seconds']:.2f} | {threads(r)} | {j['plan_restores']:,} / {j['plan_hides']:,} | {j['journal_row_bytes']:,} "
            f"| {j['journal_version_rows']:,} / {j['journal_version_bytes']:,} | **{j['revert_bytes']:,}** "
            f"| {r['trees_grew_bytes']:,} ({j['other_rows']:,} other rows, {j['other_rows_bytes']:,} B) "
            f"| {'yes' if r['snapshot_written_in_round'] else 'no'} | {'ok' if r['verify']['ok'] else 'FAILED'} |")
    lines += ["", "Background load, per round: quiet = the same length of time just before the revert was sent,"
              " during = from sending it to its 303. ms, p50 / p99 / max (count); `intended` counts from when the"
              " request was due, `service` from when it was sent.", "",
              "| round | kind | quiet intended | during intended | quiet service | during service | longest overlapping the revert |",
              "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rounds:
        w = r["windows"]
        for kind, label in (("view", "page views"), ("save", "saves")):
            cell = lambda s: f"{fmt(s.get('p50'))} / {fmt(s.get('p99'))} / {fmt(s.get('max'))} ({s['count']})"
            lines.append(
                f"| {r['round']} | {label} | {cell(w[f'{kind}_quiet']['intended_ms'])} | {cell(w[f'{kind}_during']['intended_ms'])} "
                f"| {cell(w[f'{kind}_quiet']['service_ms'])} | {cell(w[f'{kind}_during']['service_ms'])} "
                f"| {fmt(w[f'{kind}_longest_overlapping_ms'])} |")
    if len(rounds) > 1:
        pooled = {}
        for r in rounds:
            w = r["windows"]
            with open(os.path.join(run, f"round{r['round']}-samples.tsv")) as tsv:
                for line in tsv:
                    if line.startswith("#") or line.startswith("kind\t"):
                        continue
                    kind, _, intended, start, end, _ = line.rstrip("\n").split("\t")
                    intended, start, end = float(intended), float(start), float(end)
                    if w["quiet_from"] <= intended < w["revert_sent_at"]:
                        window = "quiet"
                    elif w["revert_sent_at"] <= intended <= w["revert_answered_at"]:
                        window = "during"
                    else:
                        continue
                    pooled.setdefault((kind, window), []).append((end - intended, end - start))
        for kind, label in (("view", "page views"), ("save", "saves")):
            cells = []
            for which in (0, 1):
                for window in ("quiet", "during"):
                    s = summary([v[which] for v in pooled.get((kind, window), [])])
                    cells.append(f"{fmt(s.get('p50'))} / {fmt(s.get('p99'))} / {fmt(s.get('max'))} ({s['count']})")
            lines.append(f"| pooled | {label} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | |")
    short = [r["round"] for r in rounds if r["windows"]["quiet_shorter_than_revert"]]
    if short:
        lines += ["", f"Rounds {short}: the quiet window was shorter than the revert (all the quiet load there was)."]
    lines += ["", "Set-up (the vandals' edits over HTTP):", ""]
    for v in result["setup"]["vandals"]:
        lines.append(f"- {v['name']}: {v['quotes_edited']:,} quotes ({v['of_them_their_own']} their own), {v['saves']:,} saves"
                     f" in {v['seconds']} s ({v['saves_per_second']}/s)")
    lines += ["", "Checks after each revert:", ""]
    for r in rounds:
        v = r["verify"]
        lines.append(f"- round {r['round']}: {v['checked_restored']} restored quotes sampled, {len(v['restored_wrong'])} wrong;"
                     f" {v['own_quotes']} own quotes, {len(v['own_still_shown'])} still shown to others;"
                     f" log: \"{v['log_line']}\"")
    example = rounds[0]["journal"].get("journal_version_example") if rounds else None
    if example:
        lines += ["", "One journal_version row (as stored, first 400 characters):", "", "```", example, "```"]
    return "\n".join(lines)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        print(summarize(sys.argv[2]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=5000)
    parser.add_argument("--own", type=int, default=50)
    parser.add_argument("--deep", type=int, default=10)
    parser.add_argument("--deep-versions", type=int, default=40)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--read-rate", type=float, default=20)
    parser.add_argument("--savers", type=int, default=2)
    parser.add_argument("--save-rate", type=float, default=10)
    parser.add_argument("--quiet", type=float, default=20)
    parser.add_argument("--tail", type=float, default=3)
    parser.add_argument("--verify", type=int, default=300)
    parser.add_argument("--vandal-connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--server-pid", type=int, help="the server's process id, for its CPU time by thread over each revert")
    args = parser.parse_args()
    host, port = args.host, args.port
    os.makedirs(args.out, exist_ok=True)
    log = lambda message: print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    with database(args.data) as db:
        quote_ids = [row[0] for row in db.execute("SELECT DISTINCT quote_id FROM journal WHERE quote_id IS NOT NULL ORDER BY quote_id")]
    rng = random.Random(args.seed)
    shuffled = quote_ids[:]
    rng.shuffle(shuffled)
    per_vandal = args.edits - args.own
    # A few spare ids per vandal stand in for quotes deleted in the book (their edit form is 404).
    spare = per_vandal // 50 + 20
    vandal_targets = [shuffled[r * (per_vandal + spare):(r + 1) * (per_vandal + spare)] for r in range(args.rounds)]
    saver_pool = shuffled[args.rounds * (per_vandal + spare):][:20 * args.savers + 40]

    log("signing in")
    moderator, moderator_token = sign_in(host, port, "mod")
    others = [sign_in(host, port, f"other{i + 1}") for i in range(args.readers + args.savers)]
    vandals = [sign_in(host, port, f"vandal{r + 1}") for r in range(args.rounds)]

    setup = {"book_quote_ids": len(quote_ids), "vandals": []}
    made = []
    for r in range(args.rounds):
        cookies, token = vandals[r]
        candidates = vandal_targets[r]
        # Keep exactly per_vandal live quotes: deleted ids answer 404 and are skipped.
        targets = candidates[:per_vandal]
        rest = candidates[per_vandal:]
        log(f"vandal{r + 1}: {args.own} own quotes and {per_vandal} edits ({args.deep} of them {args.deep_versions} times)")
        result = vandalise(host, port, cookies, token, f"vandal{r + 1}", targets, args.own, args.deep, args.deep_versions,
                           args.vandal_connections)
        while result["skipped"] and rest:
            more, rest = rest[:len(result["skipped"])], rest[len(result["skipped"]):]
            extra = vandalise(host, port, cookies, token, f"vandal{r + 1}", more, 0, 0, 1, args.vandal_connections)
            result["originals"].update(extra["originals"])
            result["saves"] += extra["saves"]
            result["seconds"] += extra["seconds"]
            result["skipped"] = extra["skipped"]
        log(f"vandal{r + 1}: {result['saves']} saves on {len(result['originals']) + len(result['own'])} quotes in {result['seconds']} s")
        made.append(result)
        setup["vandals"].append({"name": f"vandal{r + 1}", "quotes_edited": len(result["originals"]) + len(result["own"]),
                                 "of_them_their_own": len(result["own"]), "saves": result["saves"],
                                 "seconds": round(result["seconds"], 1), "saves_per_second": round(result["saves"] / result["seconds"], 1)})
    json.dump(setup, open(os.path.join(args.out, "setup.json"), "w"), indent=2)

    rounds = []
    longest = 0.0
    for r in range(args.rounds):
        vandal = f"vandal{r + 1}"
        quiet = max(args.quiet, 1.2 * longest + 1)
        before_trees = tree_bytes(args.data)
        before_head = head(args.data)
        snapshot_before = snapshot_mtime(args.data)
        samples, stop = [], threading.Event()
        readers = [Reader(host, port, others[i][0], others[i][1], 1 / args.read_rate, samples=samples, stop=stop,
                          seed=args.seed * 100 + r * 10 + i, quote_ids=quote_ids) for i in range(args.readers)]
        savers = [Saver(host, port, others[args.readers + i][0], others[args.readers + i][1], 1 / args.save_rate,
                        samples=samples, stop=stop, seed=args.seed * 100 + r * 10 + 5 + i,
                        quotes=saver_pool[20 * i:20 * (i + 1)], name=f"other{args.readers + i + 1}") for i in range(args.savers)]
        mod = Client(host, port, moderator, timeout=900)
        mod.token(f"/users/{vandal}")  # the moderator's profile view of the vandal, as before pressing Revert
        load_start = now()
        for person in readers + savers:
            person.start()
        log(f"round {r + 1}: {quiet:.1f} s of load, then the revert of {vandal}")
        time.sleep(quiet)
        cpu_before, load_before = thread_cpu(args.server_pid), open("/proc/loadavg").read().split()[:3]
        t0 = now()
        status, location, _ = mod.request("POST", f"/users/{vandal}/revert",
                                          {"reason": f"Benchmark round {r + 1}: vandalism", "csrf_token": moderator_token})
        t1 = now()
        cpu_after = thread_cpu(args.server_pid)
        mod.close()
        if status != 303 or not (location or "").endswith(f"/users/{vandal}"):
            raise SystemExit(f"the revert answered {status} {location}")
        longest = max(longest, t1 - t0)
        time.sleep(args.tail)
        stop.set()
        for person in readers + savers:
            person.join(timeout=120)
        log(f"round {r + 1}: revert {t1 - t0:.3f} s")
        added = journal_added(args.data, before_head)
        after_trees = tree_bytes(args.data)
        quotes_made = made[r]
        restored = sorted(q for q in quotes_made["originals"])
        sample = random.Random(args.seed + r).sample(restored, min(args.verify, len(restored)))
        checks = verify(host, port, others[0][0], moderator, vandal, quotes_made["originals"], quotes_made["own"], sample,
                        len(restored))
        result = {
            "round": r + 1, "vandal": vandal, "revert_seconds": round(t1 - t0, 3), "status": status,
            "load_seconds_before_revert": round(t0 - load_start, 2), "tail_seconds": args.tail,
            "load_average_before_revert": load_before,
            "server_cpu_during_revert_s": round(sum(cpu_used(cpu_before, cpu_after).values()), 2),
            "server_cpu_during_revert_by_thread_s": cpu_used(cpu_before, cpu_after),
            "windows": windows(samples, t0, t1, load_start + 1.0),
            "journal": added,
            "trees_before": before_trees, "trees_after": after_trees,
            "trees_grew_bytes": after_trees["total"] - before_trees["total"],
            "database_grew_bytes": after_trees["database_bytes"] - before_trees["database_bytes"],
            "snapshot_written_in_round": snapshot_mtime(args.data) != snapshot_before,
            "verify": checks,
            "requests": {kind: sum(1 for s in samples if s[0] == kind) for kind in ("view", "save")},
        }
        with open(os.path.join(args.out, f"round{r + 1}-samples.tsv"), "w") as tsv:
            tsv.write(f"# revert sent at {t0:.6f}, 303 read at {t1:.6f} (seconds, same clock as below)\n")
            tsv.write("kind\ttarget\tintended\tstart\tend\tstatus\n")
            for s in sorted(samples, key=lambda s: s[2]):
                tsv.write(f"{s[0]}\t{s[1]}\t{s[2]:.6f}\t{s[3]:.6f}\t{s[4]:.6f}\t{s[5]}\n")
        json.dump(result, open(os.path.join(args.out, f"round{r + 1}.json"), "w"), indent=2)
        log(f"round {r + 1}: {json.dumps({k: result[k] for k in ('revert_seconds', 'verify')})}")
        rounds.append(result)
    print(json.dumps({"setup": setup, "rounds": rounds}))


if __name__ == "__main__":
    main()
