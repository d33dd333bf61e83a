#!/usr/bin/env python3
"""Sorts the reference-counting calls a `perf script` of refcounts.sh's address probes lists by
the object each one touched, and prints, tab-separated and per request: calls on no object (a
small string, nil, a payload in spare bits), on static objects (in the binary's or a library's
mappings: immortal, their counts never written), on heap objects one thread touched, and on
heap objects more than one thread touched, the event loops above all. The last are the calls
that can bounce a cache line between cores: a retain there is an atomic write to a line the
other core may hold.

An upper bound: an address freed by one thread and reused by another counts as shared.

Last, the owner changes: calls on a heap object whose call before came from another thread, the
ones that may each move the object's cache line between cores (an upper bound too: a probe slows
each call so much that the loops take turns more often than they do untraced, where each serves
a batch of connections per wake-up).

usage: perf script -F tid,event,trace | refcount_objects.py MAPS REQUESTS
"""
import bisect
import collections
import re
import sys

maps_path, requests = sys.argv[1], int(sys.argv[2])
starts, regions = [], []
for line in open(maps_path):
    fields = line.split()
    low, high = (int(part, 16) for part in fields[0].split("-"))
    name = fields[5] if len(fields) > 5 else ""
    starts.append(low)
    regions.append((low, high, name))


def region(address):
    """The mapping holding `address`: None when none does, '' for an anonymous one."""
    index = bisect.bisect_right(starts, address) - 1
    if index < 0 or address >= regions[index][1]:
        return None
    return regions[index][2]


record = re.compile(r"\s*(\d+)\s+\S+:(\w+):.*obj=(\S+)")
threads = collections.defaultdict(set)
calls = collections.Counter()
last_thread = {}
no_object = static = owner_changes = 0
for line in sys.stdin:
    match = record.match(line)
    if not match:
        continue
    thread, event, value = match.group(1), match.group(2), int(match.group(3), 0)
    if "bridge" in event:
        value &= 0x00FFFFFFFFFFFFFF  # a bridge object's flags live in its top byte
    place = region(value) if 0 < value < (1 << 47) else None
    if place is None:
        no_object += 1
    elif place not in ("", "[heap]"):
        static += 1
    else:
        threads[value].add(thread)
        calls[value] += 1
        if last_thread.get(value, thread) != thread:
            owner_changes += 1
        last_thread[value] = thread
one = sum(count for address, count in calls.items() if len(threads[address]) == 1)
several = sum(calls.values()) - one
print("\t".join(f"{count / requests:.1f}" for count in (no_object, static, one, several, owner_changes)))
