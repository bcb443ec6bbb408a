#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot: PNG plots from rdx-perf JSON reports, rdx-perf -o logs and
rdx-flows JSON files. The figures are drawn by the modules of rdxplot/
(beside this file in the source and build trees, installed under
<datadir>/rdx/python).

usage: rdx-plot [--kind K[,K...]] [--label L]... [--report_gbits]
                [--cdf-sizes A,B,..] -o DIR INPUT...

INPUT is an rdx-perf JSON report (--json, lib/stats/rdx-report.schema.json),
an rdx-perf per-WR log (-o FILE, "# rdx-wrlog v1", read by rdx-flows
--parse-only --json: the one parser of the format) or an rdx-flows JSON
(rdx-flows --window MS --json FILE). Every input given is drawn into
the same figures, one line (or set of lines) per input: several reports
(e.g. the software device and soft-RoCE) overlay. Figures, one per test and
mode, written as DIR/<kind>_<test>_<mode>.png:

  lat-cdf          latency CDF from the full histogram (lat.buckets), the
                   tail (1 - fraction, log) beside it, of at most 5 sizes
                   spread over the run's (--cdf-sizes to choose); reports
                   without buckets: through their 7 percentiles, and say so
  lat-size         p50 and p99 latency against message size
  bw-size          bandwidth (MiB/s as rdx-perf's table, Gb/s with
                   --report_gbits) and Mop/s against message size
  mops-qps         Mop/s against the number of QPs (rows that vary in qps)
  latency-vs-load  p50 and p99 latency and the achieved rate against the
                   offered rate (rows with "offered_ops_per_s", ops/s); the knee
                   (the last offered rate before p99 passes twice its value
                   at the lowest load) is marked and printed
  wrlog-cdf        exact CDF of the per-WR latencies of -o logs
                   (DIR/wrlog_cdf_<test>_<mode>.png)
  flows            rdx-flows --window --json: bandwidth per flow over time
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
runs not run. SHORT rows (short_run) are drawn hollow. Message sizes are
printed in B/KiB/MiB. Only the rows of the total over all lcores (lcore -1) are drawn
when a report has them. Bad input: one line on stderr, exit status 2; a
PNG or stdout that cannot be written: one line, exit status 1. Never a
traceback: an unexpected failure is one line naming the input(s), exit 2.
"""

import argparse
import os
import sys
import warnings


def _package_dir():
    """rdxplot/ beside this script (the source and build trees), else where
    meson installed it."""
    here = os.path.dirname(os.path.realpath(__file__))
    for d in (here, "@RDX_PLOT_PYDIR@"):
        if os.path.isfile(os.path.join(d, "rdxplot", "__init__.py")):
            return d
    return here


sys.path.insert(0, _package_dir())
from rdxplot.base import (CDF_MAX_SIZES, CONTEXT, EXIT_IO, KINDS, PROG, BadInput,  # noqa: E402
                          fail, one_line, stdout_gone)
from rdxplot.figure import Canvas  # noqa: E402
from rdxplot.inputs import load  # noqa: E402
from rdxplot.others import draw_flows, draw_ranks, draw_wrlogs  # noqa: E402
from rdxplot.reports import draw_reports  # noqa: E402


def parse_size(t):
    """8, 4K, 1M, 1G (powers of 1024), as rdx-perf's -s."""
    t = t.strip()
    f = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:].upper(), 1)
    v = int(t[:-1] if f > 1 else t)
    if v <= 0:
        raise ValueError(t)
    return v * f


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail("%s (see %s --help)" % (message, PROG))


def main(argv):
    ap = Parser(prog=PROG, description="PNG plots from rdx-perf JSON reports, rdx-perf -o logs "
                "and rdx-flows JSON files; several inputs overlay in one figure.",
                epilog="kinds: " + ", ".join(KINDS))
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="REPORT.json, an rdx-perf -o log or an rdx-flows --window --json file")
    ap.add_argument("-o", "--outdir", required=True, metavar="DIR")
    ap.add_argument("-k", "--kind", default="all", metavar="K[,K...]",
                    help="plot kinds to draw (default all that the inputs allow)")
    ap.add_argument("-L", "--label", action="append", default=[], metavar="NAME",
                    help="legend name of each input in order (default: the report's "
                    "--label, else the file name)")
    ap.add_argument("--report_gbits", action="store_true",
                    help="bandwidth in Gb/s (10^9 bit/s), as rdx-perf's table with "
                    "--report_gbits (default MiB/s, 2^20 B/s, as its table)")
    ap.add_argument("--cdf-sizes", metavar="A,B,..", default=None,
                    help="lat-cdf: the message sizes to draw (default: at most %d, spread "
                    "over the run's)" % CDF_MAX_SIZES)
    args = ap.parse_args(argv)
    if args.cdf_sizes is not None:
        try:
            args.cdf_sizes = {parse_size(t) for t in args.cdf_sizes.split(",")}
        except ValueError:
            fail("--cdf-sizes: expected sizes such as 8,4K,1M (got '%s')" % args.cdf_sizes)

    kinds = KINDS if args.kind == "all" else args.kind.split(",")
    for k in kinds:
        if k not in KINDS:
            fail("unknown plot kind '%s' (kinds: %s)" % (k, ", ".join(KINDS)))
    if len(args.label) > len(args.inputs):
        fail("%d --label given for %d inputs" % (len(args.label), len(args.inputs)))

    sources = []
    for p in args.inputs:
        CONTEXT[0] = p
        sources.append(load(p))
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
        import matplotlib  # noqa: F401
    except ImportError:
        fail("matplotlib is missing (Debian: apt-get install python3-matplotlib)")
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as e:
        fail("%s: cannot create: %s" % (args.outdir, e.strerror))
    if not os.path.isdir(args.outdir):
        fail("%s: not a directory" % args.outdir)

    cv = Canvas(args.outdir)
    written = cv.written
    knees = []
    draw_reports(cv, reports, kinds, args, knees)
    logs = [s for s in sources if s.kind == "wrlog"]
    if "wrlog-cdf" in kinds and logs:
        draw_wrlogs(cv, logs, args.cdf_sizes)
    if "flows" in kinds:
        for s in (x for x in sources if x.kind == "flows"):
            draw_flows(cv, s)
    if "ranks" in kinds:
        for s in (x for x in reports if x.rank_rows):
            draw_ranks(cv, s, args.report_gbits)

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
