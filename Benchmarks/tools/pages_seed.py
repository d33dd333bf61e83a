#!/usr/bin/env python3
"""Fills a running Quotebook with a realistic book for Benchmarks/pages.sh, over HTTP.

Each user signs in (GET /login for the pre-session cookie and CSRF token, POST /login), takes
the CSRF token from GET /quotes/new, then the users take turns adding quotes (POST /quotes,
expects 303). Texts are 8 to 30 words drawn with a fixed seed, so every run builds the same
book; about one quote in six contains the word "river" (the search page's word). Then the
last quote is edited EDITS times by the users in turn (GET /quotes/{id}/edit for its version,
POST /quotes/{id}), so its history page has EDITS + 1 versions.

With --queries FILE it writes up to --max-queries searches (one a line, words joined by "+", as
they go in `?q=`) that each find at least one quote of this book: every word of the texts and
authors, then pairs, then triples of words that occur together in some quote, in a fixed order.
More searches than the app keeps results for (QuoteSearchResults, 512) make a rotation over them
search for real rather than hit that cache.

usage: pages_seed.py --port PORT [--host 127.0.0.1] --users a,b,c --password PW [--quotes 200]
                     [--edits 10] [--queries FILE] [--max-queries 1024]
Prints the id of the last quote added (the path /quotes/ID is then a real quote page).
"""
import itertools
import argparse
import http.client
import random
import re
import sys
import urllib.parse

CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')
VERSION = re.compile(rb'name="version" value="([0-9]+)"')
WORDS = (
    "time light memory silence courage wonder patience truth doubt freedom garden morning winter "
    "stone letter window music ocean story friend stranger promise mountain question answer "
    "road fire shadow kindness reason habit dream harbour lantern bridge"
).split()
AUTHORS = ["Ada Lovelace", "Marcus Aurelius", "Mary Shelley", "Seneca", "Toni Morrison", "Italo Calvino",
           "Wisława Szymborska", "Anonymous"]


def cookie_from(response, name):
    for header, value in response.getheaders():
        if header.lower() == "set-cookie" and value.startswith(name + "="):
            return value.split(";", 1)[0]
    return None


def request(conn, method, path, body=None, cookie=None):
    headers = {}
    if cookie:
        headers["Cookie"] = cookie
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        body = urllib.parse.urlencode(body)
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response, response.read()


def sign_in(conn, username, password):
    response, page = request(conn, "GET", "/login")
    presession = cookie_from(response, "quotebook_presession")
    token = CSRF.search(page)
    if response.status != 200 or presession is None or token is None:
        sys.exit(f"GET /login: {response.status}")
    response, _ = request(conn, "POST", "/login", {
        "username": username, "password": password, "return_to": "/", "csrf_token": token.group(1).decode(),
    }, cookie=presession)
    session = cookie_from(response, "quotebook_session")
    if response.status != 303 or session is None:
        sys.exit(f"POST /login as {username}: {response.status}")
    response, page = request(conn, "GET", "/quotes/new", cookie=session)
    token = CSRF.search(page)
    if response.status != 200 or token is None:
        sys.exit(f"GET /quotes/new: {response.status}")
    return session, token.group(1).decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--quotes", type=int, default=200)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--queries")
    parser.add_argument("--max-queries", type=int, default=1024)
    args = parser.parse_args()
    conn = http.client.HTTPConnection(args.host, args.port, timeout=30)
    signed_in = [sign_in(conn, name, args.password) for name in args.users.split(",")]
    rng = random.Random(9)
    last = None
    quotes = []
    for n in range(args.quotes):
        words = rng.choices(WORDS, k=rng.randint(8, 30))
        if n % 6 == 0:
            words[rng.randrange(len(words))] = "river"
        text = " ".join(words).capitalize() + "."
        session, token = signed_in[n % len(signed_in)]
        author = rng.choice(AUTHORS)
        quotes.append(f"{text} {author}")
        response, _ = request(conn, "POST", "/quotes", {
            "text": text, "author": author, "csrf_token": token,
        }, cookie=session)
        location = response.getheader("Location") or ""
        if response.status != 303 or not location.startswith("/quotes/"):
            sys.exit(f"POST /quotes #{n}: {response.status} {location}")
        last = location.rsplit("/", 1)[1]
    for n in range(args.edits):
        session, token = signed_in[n % len(signed_in)]
        response, page = request(conn, "GET", f"/quotes/{last}/edit", cookie=session)
        version = VERSION.search(page)
        if response.status != 200 or version is None:
            sys.exit(f"GET /quotes/{last}/edit: {response.status}")
        words = rng.choices(WORDS, k=rng.randint(8, 30))
        text, author = " ".join(words).capitalize() + ".", rng.choice(AUTHORS)
        quotes[-1] = f"{text} {author}"
        response, _ = request(conn, "POST", f"/quotes/{last}", {
            "text": text, "author": author,
            "version": version.group(1).decode(), "csrf_token": token,
        }, cookie=session)
        if response.status != 303:
            sys.exit(f"POST /quotes/{last} (edit {n + 1}): {response.status}")
    if args.queries:
        write_queries(args.queries, quotes, args.max_queries)
    print(last)


def write_queries(path, quotes, limit):
    """Searches that find something: single words, then pairs, then triples seen together."""
    texts = [set(re.findall(r"[a-z]+", q.lower())) for q in quotes]
    words = sorted(set().union(*texts))
    found = [w for w in words if len(w) > 2]
    seen = set()
    for size in (2, 3):
        for text in texts:
            for combo in itertools.combinations(sorted(w for w in text if len(w) > 2), size):
                if len(found) >= limit:
                    break
                if combo not in seen:
                    seen.add(combo)
                    found.append("+".join(combo))
    with open(path, "w") as out:
        out.write("\n".join(found[:limit]) + "\n")


if __name__ == "__main__":
    main()
