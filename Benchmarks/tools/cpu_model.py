#!/usr/bin/env python3
"""What the pages table would say on another machine, from runs on this one (issue 32).

pages.sh splits each server's CPU per request into user space and kernel. Suppose another
machine runs user-space code `a` times as long as this one and kernel code `b` times as long
(one factor each, the same for both servers: they run on the same CPU and kernel). Then, for a
page, that machine's figures are

    Quotebook = a * Quotebook_user + b * Quotebook_kernel
    nginx     = a * nginx_user     + b * nginx_kernel

Given one build's figures measured on both machines, each page gives two equations in the two
unknowns: a fit (a, b) per page. If the six pages' fits agree, the model holds for these pages,
and a build measured only here can be priced there: its ratio to nginx with the fitted factors.

The reference: fea711c on the Intel Xeon where issue 32 was written, its table (Quotebook and
nginx µs per request, signed in). Run fea711c here with pages.sh, and pass its runs TSV first.

usage: cpu_model.py REFERENCE_RUNS.tsv[,MORE.tsv] [LABEL=RUNS.tsv[,MORE.tsv] ...]
       medians over every run of the given files
"""
import csv
import statistics
import sys

# issue 32's table: fea711c, pages.sh 2 rounds, signed in, access lines on, 2 vCPUs, Intel Xeon
REFERENCE = {
    "home": (20.9, 10.8),
    "list": (24.8, 11.5),
    "quote": (18.6, 11.6),
    "search": (30.9, 12.6),
    "user": (20.6, 12.6),
    "history": (26.1, 12.4),
}
SERVERS = ("quotebook", "nginx")
PARTS = ("user_us_per_req", "sys_us_per_req")


def medians(paths):
    rows = [row for path in paths.split(",") for row in csv.DictReader(open(path), delimiter="\t")]
    if rows and "user_us_per_req" not in rows[0]:
        sys.exit(f"{paths}: no user and kernel columns (a pages.sh from before they were split)")
    figures = {}
    for page in REFERENCE:
        for server in SERVERS:
            for part in PARTS:
                values = [float(row[part]) for row in rows if row["page"] == page and row["server"] == server]
                if not values:
                    sys.exit(f"{paths}: no {server} runs of {page}")
                figures[page, server, part] = statistics.median(values)
    return figures


def ratio(figures, page, a, b):
    def cost(server):
        return a * figures[page, server, "user_us_per_req"] + b * figures[page, server, "sys_us_per_req"]
    return cost("quotebook") / cost("nginx")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reference = medians(sys.argv[1])
    fits = {}
    print("| page | a: user space there / here | b: kernel there / here |")
    print("|---|---|---|")
    for page, (quotebook, nginx) in REFERENCE.items():
        qu, qs = reference[page, "quotebook", "user_us_per_req"], reference[page, "quotebook", "sys_us_per_req"]
        nu, ns = reference[page, "nginx", "user_us_per_req"], reference[page, "nginx", "sys_us_per_req"]
        determinant = qu * ns - qs * nu
        a = (quotebook * ns - qs * nginx) / determinant
        b = (qu * nginx - nu * quotebook) / determinant
        fits[page] = (a, b)
        print(f"| {page} | {a:.2f} | {b:.2f} |")
    a = statistics.median(fit[0] for fit in fits.values())
    b = statistics.median(fit[1] for fit in fits.values())
    print(f"\nMedians: a = {a:.2f}, b = {b:.2f}.")
    for argument in sys.argv[2:]:
        label, paths = argument.split("=", 1)
        figures = medians(paths)
        print(f"\n{label} there, priced from its runs here (Quotebook / nginx):\n")
        print("| page | here | there, the page's own fit | there, the median fit |")
        print("|---|---|---|---|")
        for page in REFERENCE:
            print(f"| {page} | {ratio(figures, page, 1, 1):.2f}× | {ratio(figures, page, *fits[page]):.2f}× "
                  f"| {ratio(figures, page, a, b):.2f}× |")


main()
