#!/usr/bin/env python3
"""The visitor of Benchmarks/pages.sh, and the exact bytes that visitor gets, for nginx to serve.

  pages_visitor.py cookie --port PORT --visitor signed-in|pre-session|signed-out [--username U]
      Prints the Cookie header value a browser would send afterwards (nothing when signed out):
      signed-in signs up through the app's real form as a browser does — GET /signup keeps the
      pre-session cookie and reads the form's csrf_token, POST /signup (username, display_name,
      password, password_confirmation, csrf_token) must answer 303 with a session cookie — and
      keeps every cookie set on the way (a cookie set empty or with Max-Age=0 is dropped);
      pre-session keeps the cookie GET /login sets.

  pages_visitor.py fetch --port PORT --cookie C --root DIR --list FILE
      FILE has one "URL FILE" a line; each URL is fetched with that Cookie header and its body
      written to DIR/FILE. Every answer must be 200 text/html; charset=utf-8.

  pages_visitor.py check --port PORT [--cookie C] --root DIR --list FILE
      Fails unless the server on PORT serves each URL with exactly the bytes of DIR/FILE (nginx;
      or Quotebook again, to be sure the pages carry no clock).
"""
import argparse
import http.client
import os
import re
import sys
import urllib.parse

CSRF = re.compile(rb'name="csrf_token" value="([^"]+)"')


def connect(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def get(conn, path, cookie=""):
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    return response, response.read()


def keep_cookies(jar, response):
    for header, value in response.getheaders():
        if header.lower() != "set-cookie":
            continue
        pair, _, attributes = value.partition(";")
        name, _, content = pair.strip().partition("=")
        if content == "" or re.search(r"(?i)max-age=0\b", attributes):
            jar.pop(name, None)
        else:
            jar[name] = content


def cookie_header(jar):
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def cookie(args):
    jar = {}
    if args.visitor == "signed-out":
        return ""
    conn = connect(args.port)
    if args.visitor == "pre-session":
        response, _ = get(conn, "/login")
        keep_cookies(jar, response)
        if response.status != 200 or not any("presession" in name for name in jar):
            sys.exit(f"GET /login: {response.status}, no pre-session cookie")
        return cookie_header(jar)
    response, page = get(conn, "/signup")
    keep_cookies(jar, response)
    token = CSRF.search(page)
    if response.status != 200 or token is None:
        sys.exit(f"GET /signup: {response.status}")
    body = urllib.parse.urlencode({
        "username": args.username, "display_name": args.username.capitalize(),
        "password": args.password, "password_confirmation": args.password,
        "csrf_token": token.group(1).decode(),
    })
    conn.request("POST", "/signup", body=body, headers={
        "Cookie": cookie_header(jar), "Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    response.read()
    keep_cookies(jar, response)
    if response.status != 303 or not any("session" in name and "presession" not in name for name in jar):
        sys.exit(f"POST /signup as {args.username}: {response.status}, cookies {sorted(jar)}")
    # The session is real: the home page now says who is signed in.
    response, page = get(conn, "/", cookie_header(jar))
    if response.status != 200 or args.username.capitalize().encode() not in page:
        sys.exit(f"GET / after sign-up: {response.status}, not signed in as {args.username}")
    return cookie_header(jar)


def entries(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def fetch(args):
    conn = connect(args.port)
    for url, name in entries(args.list):
        response, body = get(conn, url, args.cookie)
        kind = response.getheader("Content-Type")
        if response.status != 200 or kind != "text/html; charset=utf-8":
            sys.exit(f"GET {url}: {response.status} {kind}")
        target = os.path.join(args.root, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(body)


def check(args):
    conn = connect(args.port)
    for url, name in entries(args.list):
        response, body = get(conn, url, args.cookie)
        with open(os.path.join(args.root, name), "rb") as f:
            if response.status != 200 or body != f.read():
                sys.exit(f"port {args.port} does not serve the bytes of {url} ({name}): {response.status}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cookie")
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--visitor", choices=["signed-in", "pre-session", "signed-out"], required=True)
    c.add_argument("--username", default="visitor")
    c.add_argument("--password", default="bench-visitor-password")
    f = sub.add_parser("fetch")
    f.add_argument("--port", type=int, required=True)
    f.add_argument("--cookie", default="")
    f.add_argument("--root", required=True)
    f.add_argument("--list", required=True)
    k = sub.add_parser("check")
    k.add_argument("--port", type=int, required=True)
    k.add_argument("--cookie", default="")
    k.add_argument("--root", required=True)
    k.add_argument("--list", required=True)
    args = parser.parse_args()
    if args.command == "cookie":
        print(cookie(args))
    elif args.command == "fetch":
        fetch(args)
    else:
        check(args)


if __name__ == "__main__":
    main()
