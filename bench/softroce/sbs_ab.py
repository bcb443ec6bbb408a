#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Paired statistics of a side-by-side log (a measurement aid, not a test).

    tests/softroce/side-by-side.sh ... > LOG; python3 bench/softroce/sbs_ab.py LOG

tests/softroce/side_by_side.py runs the tools of a row one after the other in each round
(perftest, rdx-perf, the --rdx-perf-alt binary; the order reversed every
other round). Its table gives each tool's median over the rounds. This
prints, per row:

- per tool: the median, min and max of its runs (latency: each run's median
  in us; rate rows: Mop/s);
- per pair of tools: the median of the per-round ratios, the median
  per-round difference, and in how many rounds the first was lower;
- per tool: its runs split by what ran just before it in the log, whatever
  the row: an rdx-perf binary, or another tool (perftest, qperf). A run
  that follows an rdx-perf run can be slower than one that follows perftest
  (doc/perf.md, soft-RoCE, "What the write-lat gap is not"), so a pair
  compared across different predecessors mixes that effect in;
- per tool: its runs split by their place in the round (first, second,
  ...), and per pair the ratio of their medians at each place both took.
  The first run of a round can be faster than the second for every tool
  (doc/perf.md, "Where the write-lat round trip goes, per tool"); this
  ratio compares the tools with that taken out.
"""
import re
import signal
import statistics as st
import sys

ROUND = re.compile(r"^== round (\d+)/\d+: (.+?) \(")
RUN = re.compile(r"^\s+run: (.+?) median (\S+) us p99 \S+ us rate (\S+) Mop/s")


def parse(path):
    """[(row label, round, tool, value or None)] in log order."""
    out, row, rnd = [], None, 0
    with open(path, errors="replace") as f:
        for line in f:
            m = ROUND.match(line)
            if m:
                rnd, row = int(m.group(1)), m.group(2)
                continue
            m = RUN.match(line)
            if m and row is not None:
                # latency rows: the run's median; rate rows: Mop/s
                v = m.group(2) if "lat" in row else m.group(3)
                try:
                    val = float(v)
                except ValueError:
                    val = None  # "-": it ran but measured nothing
                out.append((row, rnd, m.group(1), val))

    return out


def main(argv):
    if len(argv) != 2:
        print("usage: sbs_ab.py SIDE_BY_SIDE_LOG", file=sys.stderr)
        return 2
    try:
        runs = parse(argv[1])
    except OSError as e:
        print("sbs_ab.py: %s" % e, file=sys.stderr)
        return 2
    if not any(r[3] is not None for r in runs):
        print("sbs_ab.py: no 'run:' lines under '== round' headers in %s" % argv[1],
              file=sys.stderr)
        return 1
    rows = []
    for r in runs:
        if r[0] not in rows:
            rows.append(r[0])
    for row in rows:
        seq = [r for r in runs if r[0] == row and r[3] is not None]
        if not seq:
            continue
        tools = []
        for r in seq:
            if r[2] not in tools:
                tools.append(r[2])
        unit = "us" if "lat" in row else "Mop/s"
        f = "%8.3f" if unit == "us" else "%8.4f"
        print("%s (%s; %d runs)" % (row, unit, len(seq)))
        for t in tools:
            v = [r[3] for r in seq if r[2] == t]
            print(("  %-40s n=%-3d median " + f + "  min " + f + "  max " + f) %
                  (t, len(v), st.median(v), min(v), max(v)))
        by_round = {}
        for _, rnd, t, v in seq:
            by_round.setdefault(rnd, {})[t] = v
        for i, a in enumerate(tools):
            for b in tools[i + 1:]:
                pairs = [(x[a], x[b]) for x in by_round.values() if a in x and b in x]
                if not pairs:
                    continue
                ratio = st.median([p / q for p, q in pairs])
                diff = st.median([p - q for p, q in pairs])
                lower = sum(p < q for p, q in pairs)
                print(("  %s / %s: per-round ratio median %.3f, difference median %+" + f[2:] +
                       " %s, first lower in %d/%d rounds") % (a, b, ratio, diff, unit, lower,
                                                              len(pairs)))
        split = {}
        for k, (r, _, t, v) in enumerate(runs):
            if k == 0 or r != row or v is None:
                continue
            # the run just before in time, whatever its row
            prev = "rdx-perf" if runs[k - 1][2].startswith("rdx-perf") else "other"
            split.setdefault((t, prev), []).append(v)
        for (t, prev), v in sorted(split.items()):
            print(("  %-40s after %-8s n=%-3d median " + f) % (t, prev, len(v), st.median(v)))
        # place in the round: every run of the row counts (one that
        # measured nothing still ran), only measured ones give values
        order, place = {}, {}
        for r, rnd, t, v in runs:
            if r != row:
                continue
            order.setdefault(rnd, []).append(t)
            if v is not None:
                place.setdefault((t, len(order[rnd])), []).append(v)
        for (t, k), v in sorted(place.items()):
            print(("  %-40s run %d of its round n=%-3d median " + f) % (t, k, len(v), st.median(v)))
        for i, a in enumerate(tools):
            for b in tools[i + 1:]:
                at = ["run %d: %.3f (n=%d/%d)" % (k, st.median(place[(a, k)]) /
                                                  st.median(place[(b, k)]),
                                                  len(place[(a, k)]), len(place[(b, k)]))
                      for k in sorted({k for (_, k) in place})
                      if (a, k) in place and (b, k) in place]
                if at:
                    print("  %s / %s at the same place in the round: %s" % (a, b, ", ".join(at)))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head: no traceback
    sys.exit(main(sys.argv))
