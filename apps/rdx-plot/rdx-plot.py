#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot: PNG plots from rdx-perf JSON reports, rdx-perf -o logs and
rdx-flows window tables.

usage: rdx-plot [--kind K[,K...]] [--label L]... -o DIR INPUT...

INPUT is an rdx-perf JSON report (--json, lib/stats/rdx-report.schema.json),
an rdx-perf per-WR log (-o FILE, "# rdx-wrlog v1") or an rdx-flows window
table (rdx-flows --window MS --csv FILE). Every input given is drawn into
the same figures, one line (or set of lines) per input: several reports
(e.g. the software device and soft-RoCE) overlay. Figures, one per test and
mode, written as DIR/<kind>_<test>_<mode>.png:

  lat-cdf          latency CDF of every size from the full histogram
                   (lat.buckets), the tail (1 - fraction, log) beside it;
                   reports without buckets: through their percentiles
  lat-size         p50 and p99 latency against message size
  bw-size          bandwidth (MB/s) and Mop/s against message size
  mops-qps         Mop/s against the number of QPs (rows that vary in qps)
  latency-vs-load  p50 and p99 latency and the achieved rate against the
                   offered rate (rows with "offered_ops_per_s", ops/s); the knee
                   (the last offered rate before p99 passes twice its value
                   at the lowest load) is marked and printed
  wrlog-cdf        exact CDF of the per-WR latencies of -o logs
                   (DIR/wrlog_cdf_<test>_<mode>.png)
  flows            rdx-flows window table: bandwidth per flow over time
                   (DIR/flows_<file>.png)
  ranks            a report of rdx-perf --pattern under MPI (rows with
                   "rank", doc/cluster.md): bandwidth and Mop/s per rank as
                   bars, and each rank's latency CDF beside the cluster's,
                   merged exactly from the ranks' histograms
                   (DIR/ranks_<test>_<mode>_<size>_q<qps>.png)

Every figure names the device(s) and their kind ("software device" or the
NIC) in its title and in the PNG's text metadata (keys "Title",
"rdx-kind", "rdx-devices", "rdx-inputs"). A report of a run that did not
complete ("status" interrupted or failed) gets a note under the figure and
in the key "rdx-notes": the status, its reason, the rows cut short and the
runs not run. Message sizes are printed in
B/KiB/MiB. Only the rows of the total over all lcores (lcore -1) are drawn
when a report has them. Bad input: one line on stderr, exit status 2; a
PNG or stdout that cannot be written: one line, exit status 1. Never a
traceback: an unexpected failure is one line naming the input(s), exit 2.

A -o log's key=value line is read as rdx-flows reads it: flow= (the
--label) runs to the blank before the last " dev=", every other field is
one key=value word, each key once; its WR lines are 5 unsigned decimal
integers (qp and bytes below 2^32, the others below 2^64), ops increasing
and post_ns not decreasing.
"""

import argparse
import json
import math
import os
import re
import sys
import warnings

PROG = "rdx-plot"
PCTS = [("min", 0.0), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99),
        ("p999", 0.999), ("p9999", 0.9999), ("max", 1.0)]
KINDS = ["lat-cdf", "lat-size", "bw-size", "mops-qps", "latency-vs-load", "wrlog-cdf", "flows",
         "ranks"]
WRLOG_MAGIC = "# rdx-wrlog v1"
WRLOG_COLS = "# op qp post_ns complete_ns bytes"
FLOWS_HEADER = ["window", "start_ms", "end_ms", "common"]
KNEE_FACTOR = 2.0
U32 = 1 << 32
U64 = 1 << 64
EXIT_BAD = 2        # bad input
EXIT_IO = 1         # a PNG or stdout that cannot be written

# what is being read or drawn, for the one line of an unexpected failure
CONTEXT = ["(arguments)"]


class BadInput(Exception):
    pass


def one_line(msg):
    """msg on one line (a message that quotes input may hold line ends)."""
    msg = " ".join(str(msg).split())
    return msg if len(msg) <= 400 else msg[:397] + "..."


def fail(msg, code=EXIT_BAD):
    print("%s: %s" % (PROG, one_line(msg)), file=sys.stderr)
    sys.exit(code)


def stdout_gone():
    """stdout failed: point it at /dev/null so that the interpreter's own
    flush at exit does not print a second message."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass


def num(v):
    """A finite number below 2^64 in size (a larger int is not a float)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v) and abs(v) < U64
    except OverflowError:
        return False


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def short(v):
    """A number for a message: a huge one by its number of digits."""
    t = str(v)
    return t if len(t) <= 24 else "of %d digits" % len(t)


def int_in(v, lo, hi):
    """An integer in [lo, hi)."""
    return is_int(v) and lo <= v < hi


def size_name(v):
    """8 B, 4 KiB, 1.5 KiB, 1 MiB."""
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= f:
            return "%g %s" % (round(v / f, 2), unit)
    return "%g B" % v


def device_label(knobs):
    """'software device (sw)', 'software RDMA device rxe0 (verbs)' or 'NIC
    mlx5_0 (mlx5)' from a report's knobs."""
    dev = knobs.get("dev") or knobs.get("device") or "?"
    kind = (knobs.get("device_kind") or "").replace("_", " ")
    drv = knobs.get("driver")
    if kind == "software device":
        return "software device (%s)" % dev
    if kind.lower() == "software rdma device":  # rdma_rxe, siw: the kernel's, not a NIC
        return "software RDMA device %s%s" % (dev, " (%s)" % drv if drv else "")
    if kind:
        return "NIC %s%s" % (dev, " (%s)" % drv if drv else "")
    return "device %s (kind not recorded)" % dev


class Source:
    """One input: its label, device, and rows or log entries."""

    def __init__(self, path, kind):
        self.path = path
        self.kind = kind            # "report", "wrlog", "flows"
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.label = self.stem
        self.device = "device not recorded"
        self.rows = []
        self.rank_rows = []         # rdx-perf --pattern: every row with a rank, in order
        self.notes = []


def load_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    except RecursionError:
        raise BadInput("%s: not an rdx report (JSON nested too deeply)" % path)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise BadInput("%s: not an rdx report (no \"results\" array)" % path)
    knobs = doc.get("knobs") if isinstance(doc.get("knobs"), dict) else {}
    for k in ("dev", "device", "device_kind", "driver", "label"):
        if knobs.get(k) is not None and not isinstance(knobs[k], str):
            raise BadInput("%s: knobs.%s: not a string" % (path, k))
    src = Source(path, "report")
    src.device = device_label(knobs)
    if isinstance(knobs.get("label"), str) and knobs["label"]:
        src.label = knobs["label"]
    rows = []
    for i, r in enumerate(doc["results"]):
        where = "%s: results[%d]" % (path, i)
        if not isinstance(r, dict):
            raise BadInput("%s: not an object" % where)
        for k in ("test", "mode"):
            if not isinstance(r.get(k), str):
                raise BadInput("%s.%s: missing or not a string" % (where, k))
        for k in ("lat_kind", "host"):
            if r.get(k) is not None and not isinstance(r[k], str):
                raise BadInput("%s.%s: not a string" % (where, k))
        # the ranges of lib/stats/rdx-report.schema.json
        for k, lo, hi in (("size", 0, U64), ("lcore", -1, U32), ("qps", 0, U32)):
            if not is_int(r.get(k)):
                raise BadInput("%s.%s: missing or not an integer" % (where, k))
            if not int_in(r[k], lo, hi):
                raise BadInput("%s.%s: %s out of range (%d .. %d)"
                               % (where, k, short(r[k]), lo, hi - 1))
        if r.get("rank") is not None and not int_in(r["rank"], -1, U32):
            raise BadInput("%s.rank: not an integer in -1 .. %d" % (where, U32 - 1))
        for k in ("mops", "mbytes_per_s", "offered_ops_per_s"):
            if r.get(k) is not None and not num(r.get(k)):
                raise BadInput("%s.%s: not a number (or over 2^64)" % (where, k))
        lat = r.get("lat")
        if r.get("has_lat"):
            if not isinstance(lat, dict):
                raise BadInput("%s.lat: missing or not an object" % where)
            for k, _ in PCTS:
                v = lat.get(k)
                if v is not None and not (num(v) and v >= 0):
                    raise BadInput("%s.lat.%s: not a latency (a number of ns, 0 .. 2^64)"
                                   % (where, k))
            b = lat.get("buckets")
            if b is not None:
                if not isinstance(b, list) or not all(
                        isinstance(e, list) and len(e) == 3 and num(e[0]) and num(e[1])
                        and 0 <= e[0] <= e[1] and int_in(e[2], 0, U64) for e in b):
                    raise BadInput("%s.lat.buckets: not a list of [lo_ns, hi_ns, count] "
                                   "(0 <= lo_ns <= hi_ns, count 0 .. 2^64-1)" % where)
                if b and sum(e[2] for e in b) == 0:
                    raise BadInput("%s.lat.buckets: every count is 0 (no latency to draw)"
                                   % where)
        rows.append(r)
    totals = [r for r in rows if r["lcore"] == -1]
    src.rows = totals if totals else rows
    src.rank_rows = [r for r in rows if is_int(r.get("rank"))]
    # a run that did not complete: its figures say so (rows cut short by
    # the interrupt or the failure, runs never started)
    status = doc.get("status", "completed")
    if status not in ("completed", "interrupted", "failed"):
        raise BadInput("%s: status: not one of completed, interrupted, failed" % path)
    if status != "completed":
        why = doc.get("status_reason")
        not_run = doc.get("not_run") if isinstance(doc.get("not_run"), list) else []
        src.notes.append("%s%s: %d row(s) cut short, %d run(s) not run" % (
            status, " (%s)" % why if isinstance(why, str) and why else "",
            sum(1 for r in src.rows if r.get("cut_short") is True), len(not_run)))
    return src


def wrlog_header(path, s):
    """The fields of a -o log's key=value line (s: after "# "), as rdx-flows
    reads them: flow= (rdx-perf's --label, the one free-text value) runs from
    "flow=" to the blank before the last " dev=" after it (rdx-perf writes
    flow= before dev= and from dev= on only single words), else it is one
    word; every other field is a key=value word, each key once."""
    bad = re.search(r"[\x00-\x08\x0a-\x1f\x7f]", s)
    if bad:
        raise BadInput("%s:2: control character 0x%02x in the header" % (path, ord(bad.group())))
    kv = {}
    m = re.search(r"(?:^|(?<=[ \t]))flow=", s)
    rest = s
    if m:
        v0 = m.end()
        ends = [d.start() for d in re.finditer(r"(?<=[ \t])dev=", s) if d.start() > v0]
        v1 = ends[-1] - 1 if ends else v0 + len(re.match(r"[^ \t]*", s[v0:]).group())
        kv["flow"] = s[v0:v1]
        rest = s[:m.start()] + " " + s[v1:]
    for t in re.split(r"[ \t]+", rest):
        if not t:
            continue
        k, eq, v = t.partition("=")
        if not eq or not k:
            raise BadInput("%s:2: '%s' in the header is not key=value" % (path, t))
        if k in kv:
            raise BadInput("%s:2: %s= is given twice in the header" % (path, k))
        kv[k] = v
    return kv


def header_count(path, kv, key, default):
    v = kv.get(key)
    if v is None:
        return default
    if not re.fullmatch(r"[0-9]+", v) or int(v) >= U64:
        raise BadInput("%s:2: bad value '%s' for %s (expected a count)" % (path, v, key))
    return int(v)


WR_FIELD = re.compile(r"[0-9]+")


def load_wrlog(path):
    """An rdx-perf -o log: per-WR latencies (complete - post) / report_div, ns."""
    src = Source(path, "wrlog")
    try:
        # lines end at "\n" only (a "\r" inside the header is refused, not a line end)
        with open(path, encoding="utf-8", newline="\n") as f:
            if f.readline().rstrip("\r\n") != WRLOG_MAGIC:
                raise BadInput("%s:1: not an rdx-perf log (expected \"%s\")" % (path, WRLOG_MAGIC))
            head = f.readline()
            head = head[:-1] if head.endswith("\n") else head
            head = head[:-1] if head.endswith("\r") else head
            if not head.startswith("# ") or "=" not in head:
                raise BadInput("%s:2: expected the \"# key=value ...\" line" % path)
            kv = wrlog_header(path, head[2:])
            if f.readline().rstrip("\r\n") != WRLOG_COLS:
                raise BadInput("%s:3: expected \"%s\"" % (path, WRLOG_COLS))
            div = kv.get("report_div", "1")
            if div not in ("1", "2"):
                raise BadInput("%s:2: bad value '%s' for report_div (expected 1 or 2)"
                               % (path, div))
            div = int(div)
            unlogged = header_count(path, kv, "unlogged", 0)
            capacity = header_count(path, kv, "capacity", None)
            if capacity == 0:
                raise BadInput("%s:2: bad value '0' for capacity (expected a count > 0)" % path)
            if capacity is not None and "unlogged" not in kv:
                raise BadInput("%s:2: capacity= without unlogged=" % path)
            lats = []
            incomplete = 0
            nb = 0
            prev_op = prev_post = None
            for lineno, line in enumerate(f, start=4):
                if line.startswith("#") or not line.strip(" \t\r\n"):
                    continue
                p = [t for t in re.split(r"[ \t]+", line.rstrip("\r\n")) if t]
                if len(p) != 5 or not all(WR_FIELD.fullmatch(t) for t in p):
                    raise BadInput("%s:%d: expected 5 unsigned integers: op qp post_ns "
                                   "complete_ns bytes" % (path, lineno))
                op, qp, post, done, nbytes = (int(t) for t in p)
                for name, v, lim, bits in (("op", op, U64, 64), ("qp", qp, U32, 32),
                                           ("post_ns", post, U64, 64),
                                           ("complete_ns", done, U64, 64),
                                           ("bytes", nbytes, U32, 32)):
                    if v >= lim:
                        raise BadInput("%s:%d: %s %s is over 2^%d-1"
                                       % (path, lineno, name, short(v), bits))
                if prev_op is not None and op <= prev_op:
                    raise BadInput("%s:%d: op %d after op %d: ops must be in post order"
                                   % (path, lineno, op, prev_op))
                if prev_post is not None and post < prev_post:
                    raise BadInput("%s:%d: post_ns goes back in time: ops must be in post order"
                                   % (path, lineno))
                prev_op, prev_post = op, post
                nb += 1
                if done == 0:
                    incomplete += 1
                elif done < post:
                    raise BadInput("%s:%d: complete_ns is before post_ns" % (path, lineno))
                else:
                    lats.append((done - post) / div)
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        raise BadInput("%s: not text" % path)
    if capacity is not None and nb > capacity:
        raise BadInput("%s: %d work requests in a log of capacity %d" % (path, nb, capacity))
    if not lats:
        raise BadInput("%s: no completed work requests in the log" % path)
    knobs = {"dev": kv.get("dev"), "device_kind": kv.get("device_kind")}
    if knobs["device_kind"] is None and (kv.get("dev") or "").startswith("sw"):
        knobs["device_kind"] = "software device"
    src.device = device_label(knobs)
    if kv.get("flow") not in (None, "", "-"):
        src.label = kv["flow"]
    src.test = kv.get("test", "?")
    src.mode = kv.get("mode", "?")
    src.size = kv.get("size", "?")
    src.lat_kind = kv.get("lat_kind", "?").replace("_", " ")
    src.lats = sorted(lats)
    if unlogged > 0:
        src.notes.append("log cut: %d WRs not logged" % unlogged)
    if incomplete:
        src.notes.append("%d WRs never completed" % incomplete)
    return src


def is_flows_csv(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith(",".join(FLOWS_HEADER) + ",")
    except (OSError, UnicodeDecodeError):
        return False


def is_wrlog(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().rstrip("\r\n") == WRLOG_MAGIC
    except (OSError, UnicodeDecodeError):
        return False


def load_flows_csv(path):
    """rdx-flows --window --csv: window,start_ms,end_ms,common,<flow>_gbps...,total_gbps"""
    import csv
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        raise BadInput("%s: not text" % path)
    except csv.Error as e:
        raise BadInput("%s: not an rdx-flows window table: %s" % (path, e))
    if not rows:
        raise BadInput("%s: not an rdx-flows window table (empty)" % path)
    head = rows[0]
    if len(head) < 6 or head[-1] != "total_gbps":
        raise BadInput("%s: not an rdx-flows window table (header)" % path)
    flows = [h[:-5] if h.endswith("_gbps") else h for h in head[4:-1]]
    data = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(head):
            raise BadInput("%s:%d: %d fields, the header has %d" % (path, i, len(r), len(head)))
        try:
            vals = [float(x) for x in r]
        except ValueError:
            vals = None
        if vals is None or not all(num(v) for v in vals):
            raise BadInput("%s:%d: not a number (or not finite)" % (path, i))
        data.append(vals)
    if not data:
        raise BadInput("%s: no windows" % path)
    src = Source(path, "flows")
    src.flows = flows
    src.data = data
    src.device = "the devices of the flows' logs (not in the table)"
    return src


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "plot"


def cdf_points(row):
    """(latency_us list, fraction list) of a row: its buckets as steps, else its percentiles."""
    lat = row["lat"]
    b = lat.get("buckets")
    total = sum(e[2] for e in b) if b else 0
    if total > 0:      # (load_report refuses buckets that are all 0)
        total = float(total)
        xs, ys, cum = [], [], 0
        for lo, hi, c in b:
            xs.append(lo / 1e3)
            ys.append(cum / total)
            cum += c
            xs.append(hi / 1e3)
            ys.append(cum / total)
        return xs, ys, True
    pts = [(lat[k] / 1e3, p) for k, p in PCTS if num(lat.get(k))]
    return [x for x, _ in pts], [y for _, y in pts], False


def knee(points):
    """points: [(offered, p99)] sorted by offered. The last offered rate before
    p99 first exceeds KNEE_FACTOR x its value at the lowest offered rate; None
    when it never does or there are fewer than 3 points."""
    pts = [(o, p) for o, p in points if num(p)]
    if len(pts) < 3:
        return None
    base = pts[0][1]
    for i in range(1, len(pts)):
        if pts[i][1] > KNEE_FACTOR * base:
            return pts[i - 1]
    return None


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail("%s (see %s --help)" % (message, PROG))


def main(argv):
    ap = Parser(prog=PROG, description="PNG plots from rdx-perf JSON reports, rdx-perf -o logs "
                "and rdx-flows window tables; several inputs overlay in one figure.",
                epilog="kinds: " + ", ".join(KINDS))
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="REPORT.json, an rdx-perf -o log or an rdx-flows --window CSV")
    ap.add_argument("-o", "--outdir", required=True, metavar="DIR")
    ap.add_argument("-k", "--kind", default="all", metavar="K[,K...]",
                    help="plot kinds to draw (default all that the inputs allow)")
    ap.add_argument("-L", "--label", action="append", default=[], metavar="NAME",
                    help="legend name of each input in order (default: the report's "
                    "--label, else the file name)")
    args = ap.parse_args(argv)

    kinds = KINDS if args.kind == "all" else args.kind.split(",")
    for k in kinds:
        if k not in KINDS:
            fail("unknown plot kind '%s' (kinds: %s)" % (k, ", ".join(KINDS)))
    if len(args.label) > len(args.inputs):
        fail("%d --label given for %d inputs" % (len(args.label), len(args.inputs)))

    sources = []
    try:
        for p in args.inputs:
            CONTEXT[0] = p
            if is_flows_csv(p):
                sources.append(load_flows_csv(p))
            elif is_wrlog(p):
                sources.append(load_wrlog(p))
            else:
                sources.append(load_report(p))
    except BadInput as e:
        fail(str(e))
    CONTEXT[0] = " ".join(args.inputs)
    for s, lbl in zip(sources, args.label):
        s.label = lbl
    def groups_of(s):
        if s.kind == "report":
            return {(r["test"], r["mode"]) for r in s.rows}
        if s.kind == "wrlog":
            return {(s.test, s.mode)}
        return {("flows", s.path)}
    # the same name for two inputs that share a figure: number those
    clash = set()
    for i, a in enumerate(sources):
        for j, b in enumerate(sources[:i]):
            if a.label == b.label and a.kind == b.kind and groups_of(a) & groups_of(b):
                clash.update((i, j))
    for i in sorted(clash):
        sources[i].label = "%d: %s" % (i + 1, sources[i].label)
    reports = [s for s in sources if s.kind == "report"]
    if reports and not any(s.rows for s in reports) and len(reports) == len(sources):
        fail("no result rows to plot in %s" % " ".join(args.inputs))
    try:   # after the input checks: bad input fails fast
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        fail("matplotlib is missing (Debian: apt-get install python3-matplotlib)")
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as e:
        fail("%s: cannot create: %s" % (args.outdir, e.strerror))
    if not os.path.isdir(args.outdir):
        fail("%s: not a directory" % args.outdir)

    written = []
    plain = FuncFormatter(lambda v, _: "%g" % v)

    def plain_log(axis):
        """A log axis labelled 2, 3, 4 rather than 2x10^0; minor ticks 2 and 5
        labelled too when the axis spans at most two decades (else they collide)."""
        def minor(v, _):
            lo, hi = sorted(axis.get_view_interval())
            if lo <= 0 or hi / lo > 150:
                return ""
            return "%g" % v if ("%.0e" % v)[0] in "25" else ""
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(FuncFormatter(minor))

    def positive(v):
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            return False
        return math.isfinite(f) and f > 0

    def log_axis(ax, axis, base=10, labels=True):
        """A log x or y axis when some value drawn on it is positive: matplotlib
        cannot log-scale an axis without one (a one-WR log's empty tail, latencies
        of 0 ns); such an axis stays linear. True when it is log."""
        if not any(positive(v) for ln in ax.get_lines()
                   for v in (ln.get_xdata() if axis == "x" else ln.get_ydata())):
            return False
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
        if labels:
            plain_log(ax.xaxis if axis == "x" else ax.yaxis)
        return True

    def size_axis(ax, values, axis="x"):
        """Log-2 size axis in B/KiB/MiB: a tick per size when there are few,
        else at powers of 4; labels slanted so they never collide."""
        a = ax.xaxis if axis == "x" else ax.yaxis
        vals = sorted(set(v for v in values if v > 0))
        if vals:       # (message sizes of 0 alone: a linear axis)
            (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
        if vals and len(vals) <= 10:
            ticks = vals
        elif vals:
            lo = int(math.floor(math.log2(vals[0])))
            hi = int(math.ceil(math.log2(vals[-1])))
            step = max(1, (hi - lo + 9) // 10)
            ticks = [2 ** e for e in range(lo, hi + 1, step)]
        else:
            ticks = sorted(set(values))
        (ax.set_xticks if axis == "x" else ax.set_yticks)(ticks)
        a.set_major_formatter(FuncFormatter(lambda v, _: size_name(v)))
        a.set_minor_formatter(NullFormatter())
        if axis == "x":
            for t in ax.get_xticklabels():
                t.set_rotation(30)
                t.set_horizontalalignment("right")

    def auto_log_y(ax, values):
        """A log y axis when the values span more than 50x (overlays of a NIC
        and the software device), so the smaller series is not a flat line."""
        pos = [v for v in values if num(v) and v > 0]
        if pos and max(pos) / min(pos) > 50:
            ax.set_yscale("log")
            plain_log(ax.yaxis)

    def count_axis(ax, values):
        if any(v > 0 for v in values):
            ax.set_xscale("log", base=2)
        vals = sorted(set(values))
        if len(vals) <= 12:
            ax.set_xticks(vals)
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(NullFormatter())

    def devices_of(srcs):
        devs = []
        for s in srcs:
            if s.device not in devs:
                devs.append(s.device)
        return devs

    def save(fig, name, kind, title, srcs):
        devs = devices_of(srcs)
        head = "%s\n%s: %s" % (title, "device" if len(devs) == 1 else "devices", "; ".join(devs))
        fig.suptitle(head, fontsize="medium")
        notes = ["%s: %s" % (s.label, n) for s in srcs for n in s.notes]
        if notes:
            fig.text(0.01, 0.005, "; ".join(notes), fontsize="x-small", color="darkred")
        fig.tight_layout(rect=(0, 0.02 if notes else 0, 1, 1))
        path = os.path.join(args.outdir, name)
        meta = {"Title": head.replace("\n", " | "), "Software": PROG, "rdx-kind": kind,
                "rdx-devices": "; ".join(devs),
                "rdx-inputs": "; ".join("%s=%s" % (s.label, os.path.basename(s.path))
                                        for s in srcs)}
        if notes:
            meta["rdx-notes"] = "; ".join(notes)
        try:
            fig.savefig(path, dpi=100, metadata=meta)
        except OSError as e:     # an I/O failure (disk full), not bad input
            fail("%s: cannot write: %s" % (path, e.strerror or e), EXIT_IO)
        plt.close(fig)
        written.append(path)

    styles = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "D", "v", "P"]

    # (test, mode) -> [(source, rows)]
    groups = {}
    for s in reports:
        by = {}
        for r in s.rows:
            by.setdefault((r["test"], r["mode"]), []).append(r)
        for key, rows in by.items():
            groups.setdefault(key, []).append((s, rows))
    knees = []

    for (test, mode), members in sorted(groups.items()):
        CONTEXT[0] = " ".join(s.path for s, _ in members)
        name = slug("%s_%s" % (test, mode))
        title = "rdx-perf %s %s" % (test, mode)

        def lbl(s, extra):
            return "%s, %s" % (s.label, extra) if multi else extra

        lat_of = [(s, [r for r in rows if r.get("has_lat") and isinstance(r.get("lat"), dict)
                       and all(num(r["lat"].get(k)) for k, _ in PCTS)
                       and not num(r.get("offered_ops_per_s"))]) for s, rows in members]
        lat_of = [(s, rows) for s, rows in lat_of if rows]
        multi = len(lat_of) > 1
        kinds_lat = [k for k in (r.get("lat_kind") for _, rows in lat_of for r in rows) if k]
        lat_unit = "latency (us%s)" % (", " + kinds_lat[0] if len(set(kinds_lat)) == 1 else "")

        if "lat-cdf" in kinds and lat_of:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            cmap = plt.get_cmap("tab10")
            sizes = sorted({(r["size"], r["qps"]) for _, rows in lat_of for r in rows})
            multi_qps = len({q for _, q in sizes}) > 1
            from_pcts = False
            for si, (s, rows) in enumerate(lat_of):
                for r in sorted(rows, key=lambda r: (r["size"], r["qps"])):
                    xs, ys, full = cdf_points(r)
                    from_pcts |= not full
                    c = cmap(sizes.index((r["size"], r["qps"])) % 10)
                    extra = size_name(r["size"]) + (", %d QPs" % r["qps"] if multi_qps else "")
                    kw = dict(color=c, linestyle=styles[si % len(styles)],
                              label=lbl(s, extra), marker=None if full else "o")
                    ax.plot(xs, ys, **kw)
                    tail = [(x, 1.0 - y) for x, y in zip(xs, ys) if y < 1.0]
                    if tail:
                        ax2.plot([x for x, _ in tail], [y for _, y in tail], **kw)
            for a in (ax, ax2):
                log_axis(a, "x")
                a.set_xlabel(lat_unit)
                a.grid(True, which="both", alpha=0.3)
            ax.set_ylabel("fraction of operations <= latency")
            ax.set_title("latency CDF%s" % (" (dots: through the percentiles only)"
                                            if from_pcts else " (full histogram)"),
                         fontsize="small")
            log_axis(ax2, "y", labels=False)
            ax2.set_ylabel("fraction of operations > latency")
            ax2.set_title("tail", fontsize="small")
            ax.legend(fontsize="x-small")
            save(fig, "lat_cdf_%s.png" % name, "lat-cdf", title + ": latency CDF",
                 [s for s, _ in lat_of])

        if "lat-size" in kinds and lat_of:
            fig, ax = plt.subplots(figsize=(8, 5))
            for si, (s, rows) in enumerate(lat_of):
                for q in sorted({r["qps"] for r in rows}):
                    sel = sorted((r for r in rows if r["qps"] == q), key=lambda r: r["size"])
                    qn = " %d QPs" % q if len({r["qps"] for r in rows}) > 1 else ""
                    for k, m in (("p50", "o"), ("p99", "s")):
                        ax.plot([r["size"] for r in sel], [r["lat"][k] / 1e3 for r in sel],
                                marker=m, linestyle=styles[si % len(styles)],
                                label=lbl(s, k + qn))
            size_axis(ax, [r["size"] for _, rows in lat_of for r in rows])
            log_axis(ax, "y")
            ax.set_xlabel("message size")
            ax.set_ylabel(lat_unit)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small")
            save(fig, "lat_size_%s.png" % name, "lat-size", title + ": latency vs size",
                 [s for s, _ in lat_of])

        bw_of = [(s, [r for r in rows if num(r.get("mbytes_per_s")) and num(r.get("mops"))
                      and not num(r.get("offered_ops_per_s"))]) for s, rows in members]
        bw_of = [(s, rows) for s, rows in bw_of if rows]
        multi = len(bw_of) > 1
        if "bw-size" in kinds and bw_of:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            for si, (s, rows) in enumerate(bw_of):
                qset = sorted({r["qps"] for r in rows})
                for qi, q in enumerate(qset):
                    sel = sorted((r for r in rows if r["qps"] == q), key=lambda r: r["size"])
                    kw = dict(marker=markers[qi % len(markers)],
                              linestyle=styles[si % len(styles)],
                              label=lbl(s, "%d QP%s" % (q, "s" if q != 1 else "")))
                    ax.plot([r["size"] for r in sel], [r["mbytes_per_s"] for r in sel], **kw)
                    ax2.plot([r["size"] for r in sel], [r["mops"] for r in sel], **kw)
            for a, yl, k in ((ax, "bandwidth (MB/s, 10^6 B/s)", "mbytes_per_s"),
                             (ax2, "Mop/s", "mops")):
                size_axis(a, [r["size"] for _, rows in bw_of for r in rows])
                auto_log_y(a, [r[k] for _, rows in bw_of for r in rows])
                a.set_xlabel("message size")
                a.set_ylabel(yl)
                a.grid(True, which="both", alpha=0.3)
                a.legend(fontsize="x-small")
            ax.set_title("bandwidth vs size", fontsize="small")
            ax2.set_title("Mop/s vs size", fontsize="small")
            save(fig, "bw_size_%s.png" % name, "bw-size", title + ": bandwidth vs size",
                 [s for s, _ in bw_of])

        qp_of = [(s, rows) for s, rows in bw_of if len({r["qps"] for r in rows}) > 1]
        multi = len(qp_of) > 1
        if "mops-qps" in kinds and qp_of:
            fig, ax = plt.subplots(figsize=(8, 5))
            for si, (s, rows) in enumerate(qp_of):
                for size in sorted({r["size"] for r in rows}):
                    sel = sorted((r for r in rows if r["size"] == size), key=lambda r: r["qps"])
                    if len({r["qps"] for r in sel}) < 2:
                        continue
                    ax.plot([r["qps"] for r in sel], [r["mops"] for r in sel], marker="o",
                            linestyle=styles[si % len(styles)], label=lbl(s, size_name(size)))
            count_axis(ax, [r["qps"] for _, rows in qp_of for r in rows])
            auto_log_y(ax, [r["mops"] for _, rows in qp_of for r in rows])
            ax.set_xlabel("QPs")
            ax.set_ylabel("Mop/s")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small")
            save(fig, "mops_qps_%s.png" % name, "mops-qps", title + ": Mop/s vs QPs",
                 [s for s, _ in qp_of])

        load_of = [(s, [r for r in rows if num(r.get("offered_ops_per_s"))]) for s, rows in members]
        load_of = [(s, rows) for s, rows in load_of if rows]
        multi = len(load_of) > 1
        if "latency-vs-load" in kinds and load_of:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            for si, (s, rows) in enumerate(load_of):
                for size in sorted({r["size"] for r in rows}):
                    sel = sorted((r for r in rows if r["size"] == size),
                                 key=lambda r: r["offered_ops_per_s"])
                    off = [r["offered_ops_per_s"] / 1e6 for r in sel]
                    ls = styles[si % len(styles)]
                    sn = size_name(size)
                    p50 = [r["lat"]["p50"] / 1e3 if r.get("has_lat") and
                           isinstance(r.get("lat"), dict) and num(r["lat"].get("p50")) else
                           float("nan") for r in sel]
                    p99 = [r["lat"]["p99"] / 1e3 if r.get("has_lat") and
                           isinstance(r.get("lat"), dict) and num(r["lat"].get("p99")) else
                           float("nan") for r in sel]
                    ax.plot(off, p50, marker="o", linestyle=ls, label=lbl(s, "p50 " + sn))
                    ax.plot(off, p99, marker="s", linestyle=ls, label=lbl(s, "p99 " + sn))
                    k = knee(list(zip(off, p99)))
                    if k is not None:
                        ax.axvline(k[0], color="red", alpha=0.4, linestyle=ls)
                        ax.annotate("knee %.3g Mop/s" % k[0], xy=k, xytext=(5, 10),
                                    textcoords="offset points", color="red",
                                    fontsize="x-small")
                        knees.append("%s %s %s %s: knee at %.6g Mop/s offered (p99 %.3f us)"
                                     % (s.label, test, mode, sn, k[0], k[1]))
                    else:
                        knees.append("%s %s %s %s: no knee (p99 stays within %gx of its value "
                                     "at the lowest load)" % (s.label, test, mode, sn,
                                                             KNEE_FACTOR))
                    ach = [r["mops"] if num(r.get("mops")) else float("nan") for r in sel]
                    ax2.plot(off, ach, marker="o", linestyle=ls, label=lbl(s, sn))
            hi = max(r["offered_ops_per_s"] / 1e6 for _, rows in load_of for r in rows)
            ax2.plot([0, hi], [0, hi], color="grey", alpha=0.5, label="achieved = offered")
            # (mops may be missing from a row: drawn as a gap)
            auto_log_y(ax2, [r.get("mops") for _, rows in load_of for r in rows])
            log_axis(ax, "y")
            ax.set_xlabel("offered load (Mop/s)")
            ax.set_ylabel(lat_unit if lat_of else "latency (us)")
            ax.set_title("latency vs offered load (knee: p99 above %gx its lowest-load value)"
                         % KNEE_FACTOR, fontsize="small")
            ax2.set_xlabel("offered load (Mop/s)")
            ax2.set_ylabel("achieved Mop/s")
            ax2.set_title("achieved vs offered", fontsize="small")
            for a in (ax, ax2):
                a.grid(True, which="both", alpha=0.3)
                a.legend(fontsize="x-small")
            save(fig, "latency_vs_load_%s.png" % name, "latency-vs-load",
                 title + ": latency vs offered load", [s for s, _ in load_of])

    logs = [s for s in sources if s.kind == "wrlog"]
    if "wrlog-cdf" in kinds and logs:
        by = {}
        for s in logs:
            by.setdefault((s.test, s.mode), []).append(s)
        for (test, mode), srcs in sorted(by.items()):
            CONTEXT[0] = " ".join(s.path for s in srcs)
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            for si, s in enumerate(srcs):
                n = len(s.lats)
                xs = [v / 1e3 for v in s.lats]
                ys = [(i + 1) / n for i in range(n)]
                kw = dict(linestyle=styles[(si // 10) % len(styles)], drawstyle="steps-post",
                          label="%s (%s B, %d WR%s)" % (s.label, s.size, n,
                                                        "" if n == 1 else "s"),
                          marker="o" if n == 1 else None)   # one WR: a dot, not a step
                ax.plot(xs, ys, **kw)
                ax2.plot(xs[:-1], [1.0 - y for y in ys[:-1]], **kw)
            kl = {s.lat_kind for s in srcs}
            unit = "latency (us%s)" % (", " + kl.pop() if len(kl) == 1 else "")
            for a in (ax, ax2):
                log_axis(a, "x")
                a.set_xlabel(unit)
                a.grid(True, which="both", alpha=0.3)
            ax.set_ylabel("fraction of WRs <= latency")
            ax.set_title("per-WR latency CDF (every logged WR)", fontsize="small")
            if not log_axis(ax2, "y", labels=False) and all(len(s.lats) == 1 for s in srcs):
                ax2.text(0.5, 0.5, "no tail: one WR per log", transform=ax2.transAxes,
                         ha="center", va="center")
            ax2.set_ylabel("fraction of WRs > latency")
            ax2.set_title("tail", fontsize="small")
            ax.legend(fontsize="x-small")
            save(fig, "wrlog_cdf_%s.png" % slug("%s_%s" % (test, mode)), "wrlog-cdf",
                 "rdx-perf -o log %s %s: latency CDF" % (test, mode), srcs)

    for s in (x for x in sources if x.kind == "flows"):
        if "flows" not in kinds:
            break
        CONTEXT[0] = s.path
        fig, ax = plt.subplots(figsize=(9, 5))
        t = [(d[1] + d[2]) / 2e3 for d in s.data]     # window middle, s
        for j, fname in enumerate(s.flows):
            ax.plot(t, [d[4 + j] for d in s.data], marker=".", label=fname)
        common = [d for d in s.data if d[3] == 1]
        if common:
            ax.axvspan(common[0][1] / 1e3, common[-1][2] / 1e3, color="grey", alpha=0.15,
                       label="common interval")
        ax.set_xlabel("time from the first post (s)")
        ax.set_ylabel("bandwidth (Gb/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        save(fig, "flows_%s.png" % slug(s.stem), "flows",
             "%s: bandwidth per flow over time" % os.path.basename(s.path), [s])

    # rdx-perf --pattern: a run's rank rows come first, then its cluster
    # total (rank -1); one figure per run
    for s in (x for x in reports if x.rank_rows):
        if "ranks" not in kinds:
            break
        CONTEXT[0] = s.path
        group = []
        for r in s.rank_rows:
            if r["rank"] >= 0:
                group.append(r)
                continue
            ranks, group = sorted(group, key=lambda x: (x["rank"], x["lcore"])), []
            if not ranks:
                continue
            tot = r
            test, mode, size = tot["test"], tot["mode"], tot["size"]
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            xs = list(range(len(ranks)))
            ax.bar(xs, [x.get("mbytes_per_s") or 0 for x in ranks], color="tab:blue")
            ax.set_xticks(xs)
            ax.set_xticklabels(["r%d.%d\n%s" % (x["rank"], x["lcore"], x.get("host", ""))
                                for x in ranks], fontsize="small")
            ax.set_ylabel("bandwidth (MB/s)")
            axm = ax.twinx()
            axm.plot(xs, [x.get("mops") or 0 for x in ranks], "o", color="tab:orange",
                     label="Mop/s")
            axm.set_ylim(bottom=0)
            axm.set_ylabel("Mop/s")
            axm.legend(fontsize="small", loc="upper right")
            ax.set_title("per rank (cluster %.1f MB/s)" % (tot.get("mbytes_per_s") or 0),
                         fontsize="small")
            ax.grid(True, axis="y", alpha=0.3)
            for x in ranks + [tot]:
                if not x.get("has_lat") or not isinstance(x.get("lat"), dict):
                    continue
                cx, cy, _ = cdf_points(x)
                if not cx:
                    continue
                total = x["rank"] == -1
                ax2.plot(cx, cy, lw=2.5 if total else 1, color="black" if total else None,
                         label="cluster (merged)" if total else "r%d.%d" % (x["rank"], x["lcore"]))
            log_axis(ax2, "x")
            ax2.set_xlabel("latency (us)")
            ax2.set_ylabel("fraction of operations <= latency")
            ax2.set_title("latency CDF per rank and merged", fontsize="small")
            ax2.grid(True, which="both", alpha=0.3)
            ax2.legend(fontsize="x-small")
            save(fig, "ranks_%s_%d_q%d.png" % (slug("%s_%s" % (test, mode)), size, tot["qps"]),
                 "ranks", "rdx-perf %s %s %s: per rank" % (test, mode, size_name(size)), [s])

    if not written:
        fail("nothing to plot (kinds %s) in %s" % (",".join(kinds), " ".join(args.inputs)))
    if sys.stdout is None:
        fail("stdout: cannot write: it is closed (the PNG files are written)", EXIT_IO)
    try:
        for k in knees:
            print(k)
        for p in written:
            print(p)
        sys.stdout.flush()
    except OSError as e:       # > /dev/full, a closed pipe: the list is lost
        stdout_gone()
        fail("stdout: cannot write: %s (the PNG files are written)" % (e.strerror or e), EXIT_IO)
    return 0


def one_line_warning(message, category, filename, lineno, file=None, line=None):
    """A library's warning on one line, not two with a source line."""
    try:
        print("%s: warning: %s" % (PROG, one_line(message)), file=sys.stderr)
    except OSError:
        pass


def run(argv):
    """main, with every failure one line on stderr: bad input exit 2, an I/O
    failure exit 1; never a traceback."""
    warnings.showwarning = one_line_warning
    try:
        return main(argv)
    except BadInput as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except MemoryError:
        fail("%s: out of memory" % CONTEXT[0], EXIT_IO)
    except OSError as e:
        if e.filename is None and CONTEXT[0] == "(arguments)":   # --help > /dev/full
            stdout_gone()
            fail("stdout: cannot write: %s" % (e.strerror or e), EXIT_IO)
        fail("%s: %s" % (e.filename or CONTEXT[0], e.strerror or e), EXIT_IO)
    except Exception as e:     # a case the checks above missed: still one line
        fail("%s: cannot plot: %s: %s" % (CONTEXT[0], type(e).__name__, e))


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
