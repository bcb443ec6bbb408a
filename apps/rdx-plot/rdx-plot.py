#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot: PNG plots from rdx JSON reports (lib/stats/rdx-report.schema.json).

usage: rdx-plot REPORT.json|FLOWS.csv... -o DIR

Writes into DIR, for every series (report, test, mode):
  lat_cdf_<series>.png      latency CDF per size, drawn through the reported
                            percentiles (min, p50, p90, p99, p99.9, p99.99, max),
                            with the tail (1 - fraction) on a log scale beside it
  lat_size_<series>.png     latency percentiles vs message size
  bw_size_<series>.png      bandwidth (MB/s) and Mops vs message size
  mops_qps_<series>.png     Mops vs number of QPs (when rows vary in qps)
  ranks_<series>_<size>.png a report of rdx-perf --pattern (rows with "rank",
                            doc/cluster.md): bandwidth and Mops per rank as
                            bars, and each rank's latency CDF beside the
                            cluster's, merged from the ranks' histograms
An rdx-flows per-window CSV (rdx-flows --window MS --csv FILE) may be given
too: flows_<file>.png, the bandwidth of every flow over time, the common
interval shaded.
Only rows for the total over all lcores (lcore -1) are plotted when a report
has them. Bad input: one line on stderr, exit status 2.
"""

import argparse
import json
import os
import re
import sys

PROG = "rdx-plot"
PCTS = [("min", 0.0), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99),
        ("p999", 0.999), ("p9999", 0.9999), ("max", 1.0)]


class BadInput(Exception):
    pass


def fail(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(2)


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise BadInput("%s: not an rdx report (no \"results\" array)" % path)
    rows = []
    for i, r in enumerate(doc["results"]):
        where = "%s: results[%d]" % (path, i)
        if not isinstance(r, dict):
            raise BadInput("%s: not an object" % where)
        for k in ("test", "mode"):
            if not isinstance(r.get(k), str):
                raise BadInput("%s.%s: missing or not a string" % (where, k))
        for k in ("size", "lcore", "qps"):
            if not isinstance(r.get(k), int) or isinstance(r.get(k), bool):
                raise BadInput("%s.%s: missing or not an integer" % (where, k))
        for k in ("mops", "mbytes_per_s"):
            if r.get(k) is not None and not num(r.get(k)):
                raise BadInput("%s.%s: not a number" % (where, k))
        lat = r.get("lat")
        if r.get("has_lat"):
            if not isinstance(lat, dict) or not all(num(lat.get(k)) or lat.get(k) is None
                                                    for k, _ in PCTS):
                raise BadInput("%s.lat: missing or not an object of numbers" % where)
        rows.append(r)
    totals = [r for r in rows if r["lcore"] == -1]
    title = doc.get("title") if isinstance(doc.get("title"), str) else ""
    return title, (totals if totals else rows)


FLOWS_HEADER = ["window", "start_ms", "end_ms", "common"]


def rank_rows(path):
    """The rows of an rdx-perf --pattern report that carry a rank (the
    cluster total has rank -1); [] for other reports. load_report has
    checked the file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return [r for r in doc["results"] if isinstance(r.get("rank"), int)
            and not isinstance(r.get("rank"), bool)]


def plot_ranks(label, rows, plt, plain_log, save):
    """Per-rank bars and CDFs, one figure per run: rdx-perf writes a run's
    rank rows, then its cluster total (rank -1)."""
    group = []
    for r in rows:
        if r["rank"] >= 0:
            group.append(r)
            continue
        ranks, group = sorted(group, key=lambda x: (x["rank"], x["lcore"])), []
        if ranks:
            plot_one_run(label, ranks, r, plt, plain_log, save)


def plot_one_run(label, ranks, tot, plt, plain_log, save):
    """Bars of bandwidth and Mops per rank; each rank's CDF and the cluster's."""
    test, mode, size = tot["test"], tot["mode"], tot["size"]
    names = ["r%d.%d\n%s" % (r["rank"], r["lcore"], r.get("host", "")) for r in ranks]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    xs = range(len(ranks))
    ax.bar(xs, [r.get("mbytes_per_s") or 0 for r in ranks], color="tab:blue")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, fontsize="small")
    ax.set_ylabel("bandwidth (MB/s)")
    axm = ax.twinx()
    axm.plot(list(xs), [r.get("mops") or 0 for r in ranks], "o", color="tab:orange",
             label="Mops")
    axm.set_ylim(bottom=0)
    axm.set_ylabel("Mops")
    axm.legend(fontsize="small", loc="upper right")
    ax.set_title("%s %s %d B: per rank (cluster %.1f MB/s)"
                 % (test, mode, size, tot.get("mbytes_per_s") or 0))
    ax.grid(True, axis="y", alpha=0.3)
    for r in ranks + [tot]:
        lat = r.get("lat")
        if not r.get("has_lat") or not isinstance(lat, dict) or \
                not all(num(lat.get(k)) for k, _ in PCTS):
            continue
        total = r["rank"] == -1
        ax2.plot([lat[k] / 1e3 for k, _ in PCTS], [p for _, p in PCTS],
                 marker="o", lw=2.5 if total else 1, color="black" if total else None,
                 label="cluster (merged)" if total else "r%d.%d" % (r["rank"], r["lcore"]))
    ax2.set_xscale("log")
    plain_log(ax2.xaxis)
    ax2.set_xlabel("latency (us)")
    ax2.set_ylabel("fraction of operations <= latency")
    ax2.set_title("latency CDF per rank and merged")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize="small")
    fig.tight_layout()
    save(fig, "ranks_%s_%d_q%d.png" % (slug("_".join(x for x in (label, test, mode) if x)),
                                       size, tot["qps"]))


def is_flows_csv(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith(",".join(FLOWS_HEADER) + ",")
    except (OSError, UnicodeDecodeError):
        return False


def load_flows_csv(path):
    """rdx-flows --window --csv: window,start_ms,end_ms,common,<flow>_gbps...,total_gbps"""
    import csv
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    if len(head) < 6 or head[-1] != "total_gbps":
        raise BadInput("%s: not an rdx-flows window table (header)" % path)
    flows = [h[:-5] if h.endswith("_gbps") else h for h in head[4:-1]]
    data = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(head):
            raise BadInput("%s:%d: %d fields, the header has %d" % (path, i, len(r), len(head)))
        try:
            data.append([float(x) for x in r])
        except ValueError:
            raise BadInput("%s:%d: not a number" % (path, i))
    if not data:
        raise BadInput("%s: no windows" % path)
    return flows, data


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "report"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail("%s (see %s --help)" % (message, PROG))


def main(argv):
    ap = Parser(prog=PROG, description="PNG plots from rdx JSON reports.")
    ap.add_argument("reports", nargs="+", metavar="REPORT.json")
    ap.add_argument("-o", "--outdir", required=True, metavar="DIR")
    args = ap.parse_args(argv)

    series = {}   # (label, test, mode) -> rows
    flow_tables = []
    try:
        loaded = []
        for p in args.reports:
            if is_flows_csv(p):
                flow_tables.append((p,) + load_flows_csv(p))
            else:
                loaded.append((p,) + load_report(p))
    except BadInput as e:
        fail(str(e))
    stems = [os.path.splitext(os.path.basename(p))[0] for p, _, _ in loaded]
    if len(set(stems)) < len(stems):      # same file names in different folders
        stems = ["%d_%s" % (i + 1, s) for i, s in enumerate(stems)]
    for (path, _title, rows), stem in zip(loaded, stems):
        label = stem if len(loaded) > 1 else ""
        for r in rows:
            series.setdefault((label, r["test"], r["mode"]), []).append(r)
    if not series and not flow_tables:
        fail("no result rows to plot in %s" % " ".join(args.reports))
    try:   # after the input checks: bad input fails fast
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        fail("matplotlib is missing (Debian: apt-get install python3-matplotlib)")

    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as e:
        fail("%s: cannot create: %s" % (args.outdir, e.strerror))

    written = []
    plain = FuncFormatter(lambda v, _: "%g" % v)

    def plain_log(axis):
        """A log axis labelled 2, 3, 4 rather than 2x10^0 (minor ticks too)."""
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(FuncFormatter(
            lambda v, _: "%g" % v if ("%.0e" % v)[0] in "25" else ""))

    def log2_axis(ax, values):
        """Log-2 x axis with a tick at every value, printed plainly (64, 4096)."""
        ax.set_xscale("log", base=2)
        ticks = sorted(set(values))
        if ticks and len(ticks) <= 16:
            ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))

    def save(fig, name):
        path = os.path.join(args.outdir, name)
        try:
            fig.savefig(path, dpi=100)
        except OSError as e:
            fail("%s: cannot write: %s" % (path, e.strerror))
        plt.close(fig)
        written.append(path)

    for (label, test, mode), rows in sorted(series.items()):
        name = slug("_".join(x for x in (label, test, mode) if x))
        title = " ".join(x for x in (label, test, mode) if x)
        qps_set = sorted({r["qps"] for r in rows})
        multi_qps = len(qps_set) > 1
        lat_rows = [r for r in rows if r.get("has_lat") and isinstance(r.get("lat"), dict)
                    and all(num(r["lat"].get(k)) for k, _ in PCTS)]

        if lat_rows:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
            for r in sorted(lat_rows, key=lambda r: (r["size"], r["qps"])):
                xs = [r["lat"][k] / 1e3 for k, _ in PCTS]
                ys = [p for _, p in PCTS]
                lbl = "%d B" % r["size"] + (", %d QPs" % r["qps"] if multi_qps else "")
                ax.plot(xs, ys, marker="o", label=lbl)
                ax2.plot(xs[:-1], [1.0 - p for p in ys[:-1]], marker="o", label=lbl)
            ax.set_xscale("log")
            plain_log(ax.xaxis)
            ax.set_xlabel("latency (us)")
            ax.set_ylabel("fraction of operations <= latency")
            ax.set_title("%s: latency CDF" % title)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="small")
            ax2.set_xscale("log")
            plain_log(ax2.xaxis)
            ax2.set_yscale("log")
            ax2.set_xlabel("latency (us)")
            ax2.set_ylabel("fraction of operations > latency")
            ax2.set_title("tail")
            ax2.grid(True, which="both", alpha=0.3)
            fig.tight_layout()
            save(fig, "lat_cdf_%s.png" % name)

            fig, ax = plt.subplots(figsize=(7, 4.5))
            for q in qps_set:
                sel = sorted((r for r in lat_rows if r["qps"] == q), key=lambda r: r["size"])
                if not sel:
                    continue
                for k, lname in (("p50", "p50"), ("p90", "p90"), ("p99", "p99"),
                                 ("p999", "p99.9")):
                    ax.plot([r["size"] for r in sel], [r["lat"][k] / 1e3 for r in sel],
                            marker="o", label=lname + (" (%d QPs)" % q if multi_qps else ""))
            log2_axis(ax, [r["size"] for r in lat_rows])
            ax.set_yscale("log")
            plain_log(ax.yaxis)
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel("latency (us)")
            ax.set_title("%s: latency percentiles vs size" % title)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="small")
            fig.tight_layout()
            save(fig, "lat_size_%s.png" % name)

        bw_rows = [r for r in rows if num(r.get("mbytes_per_s")) and num(r.get("mops"))]
        if bw_rows:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
            for q in qps_set:
                sel = sorted((r for r in bw_rows if r["qps"] == q), key=lambda r: r["size"])
                if not sel:
                    continue
                lbl = "%d QPs" % q
                ax.plot([r["size"] for r in sel], [r["mbytes_per_s"] for r in sel],
                        marker="o", label=lbl)
                ax2.plot([r["size"] for r in sel], [r["mops"] for r in sel],
                         marker="o", label=lbl)
            for a, yl in ((ax, "bandwidth (MB/s)"), (ax2, "Mops")):
                log2_axis(a, [r["size"] for r in bw_rows])
                a.set_xlabel("message size (bytes)")
                a.set_ylabel(yl)
                a.grid(True, which="both", alpha=0.3)
                a.legend(fontsize="small")
            ax.set_title("%s: bandwidth vs size" % title)
            ax2.set_title("%s: Mops vs size" % title)
            fig.tight_layout()
            save(fig, "bw_size_%s.png" % name)

            if multi_qps:
                fig, ax = plt.subplots(figsize=(7, 4.5))
                for size in sorted({r["size"] for r in bw_rows}):
                    sel = sorted((r for r in bw_rows if r["size"] == size),
                                 key=lambda r: r["qps"])
                    if len({r["qps"] for r in sel}) < 2:
                        continue
                    ax.plot([r["qps"] for r in sel], [r["mops"] for r in sel], marker="o",
                            label="%d B" % size)
                log2_axis(ax, qps_set)
                ax.set_xlabel("QPs")
                ax.set_ylabel("Mops")
                ax.set_title("%s: Mops vs QPs" % title)
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize="small")
                fig.tight_layout()
                save(fig, "mops_qps_%s.png" % name)

    for (path, _title, _rows), stem in zip(loaded, stems):
        rr = rank_rows(path)
        if rr:
            plot_ranks(stem if len(loaded) > 1 else "", rr, plt, plain_log, save)

    for path, flows, data in flow_tables:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        t = [(d[1] + d[2]) / 2e3 for d in data]     # window middle, s
        for j, name in enumerate(flows):
            ax.plot(t, [d[4 + j] for d in data], marker=".", label=name)
        common = [d for d in data if d[3] == 1]
        if common:
            ax.axvspan(common[0][1] / 1e3, common[-1][2] / 1e3, color="grey", alpha=0.15,
                       label="common interval")
        ax.set_xlabel("time from the first post (s)")
        ax.set_ylabel("bandwidth (Gb/s)")
        ax.set_title("%s: bandwidth per flow over time" % os.path.basename(path))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        save(fig, "flows_%s.png" % slug(os.path.splitext(os.path.basename(path))[0]))

    if not written:
        fail("nothing to plot: no latency or bandwidth figures in %s" % " ".join(args.reports))
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
