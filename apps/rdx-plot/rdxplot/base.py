# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's common part: constants, the one-line failures, number checks,
names of sizes and devices, one input (Source), CDF points and the knee."""

import math
import os
import re
import sys

PROG = "rdx-plot"
PCTS = [("min", 0.0), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99),
        ("p999", 0.999), ("p9999", 0.9999), ("max", 1.0)]
KINDS = ["lat-cdf", "lat-size", "bw-size", "mops-qps", "latency-vs-load", "wrlog-cdf", "flows",
         "ranks"]
WRLOG_MAGIC = "# rdx-wrlog v1"
KNEE_FACTOR = 2.0
CDF_MAX_SIZES = 5   # lat-cdf: sizes drawn by default (lat-size has them all)
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
        self.knobs = {}


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
