#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Diff rdx-perf's clusterperf lines against the checked-in format sample.

usage: clusterperf_check.py SAMPLE TEST TRANSPORT OUTPUT [CONC SERVERS]

SAMPLE holds, per "# --test NAME" block, clusterperf's lines of one family
(tests/func/data/clusterperf_format.txt). OUTPUT is rdx-perf's stdout. The
section of OUTPUT headed by TRANSPORT must carry, in order, the same names
and descriptions, in clusterperf's columns (name in 20, "%5.1f", unit, the
same gap before the description); the "concurrentOps N servers S" line
must be there exactly when CONC or SERVERS is not 1. rdx's extra figures
(NAME.9999, NAME.max) may follow a size's lines and are skipped; [SHORT]
and [CUT] marks are dropped. One line per difference; exit 1 on any.
"""
import re
import sys

LINE = re.compile(r"^(\S+) +(\d+\.\d) (ns|us|ms|s |B/s |KB/s|MB/s|GB/s)( +)(.*)$")


def parse(line):
    m = LINE.match(line)
    if m is None:
        return None
    name, _, unit, gap, desc = m.groups()
    # the value is right-aligned in 5 columns after a 20-column name
    col = line.index(m.group(2)) + len(m.group(2))
    return name, unit.strip(), len(gap), desc, col


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit(__doc__.strip().splitlines()[2])
    sample, test, transport, output = sys.argv[1:5]
    conc, servers = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) == 7 else (1, 1)
    want, cur = [], None
    for line in open(sample):
        line = line.rstrip("\n")
        if line.startswith("# --test "):
            cur = line[len("# --test "):]
            continue
        if cur == test and not line.startswith("#"):
            p = parse(line)
            if p is not None:
                want.append(p)
    if not want:
        sys.exit("clusterperf_check: no lines of --test %s in %s" % (test, sample))
    lines = [l.rstrip("\n") for l in open(output)]
    bad = []
    if transport not in lines:
        print("no section header '%s' in %s" % (transport, output))
        sys.exit(1)
    i = lines.index(transport) + 1
    head = "concurrentOps %d servers %d" % (conc, servers)
    if conc != 1 or servers != 1:
        if i >= len(lines) or lines[i] != head:
            bad.append("line after '%s' is %r, want %r" % (transport, lines[i] if i < len(lines) else "", head))
        else:
            i += 1
    got = []
    while i < len(lines) and not lines[i].startswith("status:"):
        line = re.sub(r"( \[SHORT\]| \[CUT\])+$", "", lines[i])
        i += 1
        p = parse(line)
        if p is None:
            if line.startswith("#"):
                continue
            bad.append("not a clusterperf line: %r" % line)
            continue
        if p[0].endswith(".9999") or p[0].endswith(".max"):
            continue
        got.append(p)
    for k in range(max(len(want), len(got))):
        w = want[k] if k < len(want) else None
        g = got[k] if k < len(got) else None
        if w is None:
            bad.append("extra line %s" % (g[0],))
        elif g is None:
            bad.append("missing line %s (%s)" % (w[0], w[3]))
        elif (w[0], w[3]) != (g[0], g[3]):
            bad.append("line %d: %s '%s', want %s '%s'" % (k + 1, g[0], g[3], w[0], w[3]))
        elif w[2] != g[2] or g[4] < 26 or (w[1] in ("us", "ns", "ms", "s")) != (g[1] in ("us", "ns", "ms", "s")):
            bad.append("%s: columns or unit kind differ (%s gap %d col %d, want %s gap %d col 26)"
                       % (g[0], g[1], g[2], g[4], w[1], w[2]))
    for b in bad:
        print(b)
    if bad:
        sys.exit(1)
    print("%d lines of %s match the sample" % (len(got), test))


if __name__ == "__main__":
    main()
