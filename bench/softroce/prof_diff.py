#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where two tools' write-lat round trips differ, symbol by symbol.

Reads what bench/softroce/prof_probe.sh leaves in RDX_PROF_OUT: per tool
and round, KIND.I.txt (perf report --sort cpu,comm,sym -t '|': share of
the window's samples over both vCPUs) and KIND.I.median (the run's median
half round trip, us). Both vCPUs are busy for the whole window (each
tool's client and server spin), so a symbol's share s of the samples is
s * 2 * window of CPU time, and the window holds window / (2 * median)
round trips: per round trip it costs s * 4 * median us.

Prints, per tool, the mean over its rounds of the kernel time, the tool's
own user time and other threads' time per round trip, then the symbols
whose cost per round trip differs most between the two tools.

usage: prof_diff.py DIR [TOP]   (TOP symbols per table, default 25)
Exit 2 on bad arguments, 1 when a tool has no round with a median.
"""
import collections
import glob
import os
import re
import sys

TOOLS = ("perftest", "rdx-perf")
COMMS = {"ib_write_lat", "rdx-perf"}


def load(path, median):
    """{(class, name): us per round trip} of one round."""
    cost = collections.Counter()
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.rstrip("\n").split("|")]
            if len(parts) < 4 or not parts[0].endswith("%"):
                continue
            try:
                share = float(parts[0].rstrip("%")) / 100.0
            except ValueError:
                continue
            comm, sym = parts[2], parts[3]
            us = share * 4.0 * median
            if comm in COMMS:
                m = re.match(r"\[(k|\.)\]\s+(.*)", sym)
                kind = "kernel" if m and m.group(1) == "k" else "user"
                cost[(kind, m.group(2) if m else sym)] += us
            elif comm == "swapper":
                cost[("idle", "swapper")] += us
            else:
                cost[("other", comm)] += us
    return cost


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: prof_diff.py DIR [TOP]", file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    if not os.path.isdir(d):
        print("prof_diff.py: no directory %s" % d, file=sys.stderr)
        sys.exit(2)
    top = sys.argv[2] if len(sys.argv) == 3 else "25"
    if not top.isdigit() or int(top) == 0:
        print("prof_diff.py: TOP is a positive number, not '%s'" % top, file=sys.stderr)
        sys.exit(2)
    top = int(top)
    per = {}
    for tool in TOOLS:
        rounds = []
        for med_path in sorted(glob.glob(os.path.join(d, tool + ".*.median"))):
            txt = med_path[:-len(".median")] + ".txt"
            try:
                median = float(open(med_path).read().split()[0])
            except (ValueError, IndexError):
                continue
            if not os.path.exists(txt) or median != median or median in (float("inf"), 0.0):
                continue
            rounds.append((median, load(txt, median)))
        if not rounds:
            print("prof_diff.py: no usable round of %s in %s" % (tool, d), file=sys.stderr)
            sys.exit(1)
        mean = collections.Counter()
        for _, c in rounds:
            for k, v in c.items():
                mean[k] += v / len(rounds)
        per[tool] = (rounds, mean)
    print("per round trip (us), mean over rounds; a round trip is 2 x the median")
    for tool in TOOLS:
        rounds, mean = per[tool]
        by = collections.Counter()
        for (kind, _), v in mean.items():
            by[kind] += v
        meds = " ".join("%.2f" % m for m, _ in rounds)
        print("  %-9s rounds %d (medians %s): kernel %6.2f  user %6.2f  other threads %5.2f  idle %5.2f"
              % (tool, len(rounds), meds, by["kernel"], by["user"], by["other"], by["idle"]))
        for m, c in rounds:
            k = sum(v for (kind, _), v in c.items() if kind == "kernel")
            print("    median %6.2f: kernel %6.2f per round trip" % (m, k))
    a, b = per[TOOLS[0]][1], per[TOOLS[1]][1]
    keys = [k for k in set(a) | set(b) if k[0] in ("kernel", "other")]
    keys.sort(key=lambda k: -abs(b[k] - a[k]))
    print("kernel symbols and other threads by difference (%s - %s, us per round trip)" % (TOOLS[1], TOOLS[0]))
    for k in keys[:top]:
        print("  %-7s %-40s %7.3f %7.3f  %+7.3f" % (k[0], k[1][:40], a[k], b[k], b[k] - a[k]))
    # The same as a share of each tool's kernel time: what the kernel does
    # per round trip apart from how fast the guest ran that round (the
    # medians, and with them every figure above, move by +-10% from run to
    # run for either tool).
    ka = sum(v for k, v in a.items() if k[0] == "kernel")
    kb = sum(v for k, v in b.items() if k[0] == "kernel")
    keys = [k for k in set(a) | set(b) if k[0] == "kernel"]
    keys.sort(key=lambda k: -abs(100 * b[k] / kb - 100 * a[k] / ka))
    print("kernel symbols by difference in their share of the tool's kernel time (%s - %s, %%)"
          % (TOOLS[1], TOOLS[0]))
    for k in keys[:top]:
        print("  %-40s %6.2f%% %6.2f%%  %+6.2f" % (k[1][:40], 100 * a[k] / ka, 100 * b[k] / kb,
                                                  100 * b[k] / kb - 100 * a[k] / ka))


if __name__ == "__main__":
    main()
