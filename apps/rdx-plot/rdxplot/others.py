# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's figures of -o logs (wrlog-cdf), rdx-flows windows (flows) and
rdx-perf --pattern reports (ranks)."""

import os

from .base import CONTEXT, cdf_points, size_name, slug
from .figure import MARKERS, STYLES
from .reports import GBITS_ON, bandwidth, bw_label, cdf_pick


def draw_wrlogs(cv, logs, want=None):
    """The exact CDF of every log's per-WR latencies, one figure per test and
    mode; of logs of many sizes (rdx-perf -a -o), a handful as lat-cdf."""
    by = {}
    for s in logs:
        by.setdefault((s.test, s.mode), []).append(s)
    for (test, mode), srcs in sorted(by.items()):
        CONTEXT[0] = " ".join(s.path for s in srcs)
        sizes = sorted({int(s.size) for s in srcs if str(s.size).isdigit()})
        picked = cdf_pick(sizes, want) or sizes[:1]
        shown = "" if picked == sizes else "; %d of %d sizes" % (len(picked), len(sizes))
        srcs = sorted((s for s in srcs if not str(s.size).isdigit() or int(s.size) in picked),
                      key=lambda s: int(s.size) if str(s.size).isdigit() else -1)
        fig, (ax, ax2) = cv.plt.subplots(1, 2, figsize=(12, 5))
        for si, s in enumerate(srcs):
            n = len(s.lats)
            xs = [v / 1e3 for v in s.lats]
            ys = [(i + 1) / n for i in range(n)]
            kw = dict(color=cv.colours(si % 10), linestyle=STYLES[(si // 10) % len(STYLES)],
                      drawstyle="steps-post",
                      label="%s (%s, %d WR%s)" % (s.label, size_name(int(s.size)) if
                                                  str(s.size).isdigit() else s.size + " B", n,
                                                  "" if n == 1 else "s"),
                      marker="o" if n == 1 else None)   # one WR: a dot, not a step
            ax.plot(xs, ys, **kw)
            ax2.plot(xs[:-1], [1.0 - y for y in ys[:-1]], **kw)
        kl = {s.lat_kind for s in srcs}
        unit = "latency (us%s)" % (", " + kl.pop() if len(kl) == 1 else "")
        for a in (ax, ax2):
            cv.log_axis(a, "x")
            a.set_xlabel(unit)
            a.grid(True, which="both", alpha=0.3)
        ax.set_ylabel("fraction of WRs <= latency")
        ax.set_title("per-WR latency CDF (every logged WR%s)" % shown, fontsize="small")
        if not cv.log_axis(ax2, "y", labels=False) and all(len(s.lats) == 1 for s in srcs):
            ax2.text(0.5, 0.5, "no tail: one WR per log", transform=ax2.transAxes,
                     ha="center", va="center")
        ax2.set_ylabel("fraction of WRs > latency")
        ax2.set_title("tail", fontsize="small")
        ax.legend(fontsize="x-small")
        cv.save(fig, "wrlog_cdf_%s.png" % slug("%s_%s" % (test, mode)), "wrlog-cdf",
                "rdx-perf -o log %s %s: latency CDF" % (test, mode), srcs,
                {"rdx-cdf-sizes": ",".join(str(z) for z in picked)})


def draw_flows(cv, s):
    """An rdx-flows --window --json file: bandwidth per flow over time."""
    CONTEXT[0] = s.path
    fig, ax = cv.plt.subplots(figsize=(9, 5))
    t = [(d[1] + d[2]) / 2e3 for d in s.data]     # window middle, s
    for j, fname in enumerate(s.flows):
        ax.plot(t, [d[4 + j] for d in s.data], marker=MARKERS[j % len(MARKERS)],
                color=cv.colours(j % 10), label=fname)
    common = [d for d in s.data if d[3] == 1]
    if common:
        ax.axvspan(common[0][1] / 1e3, common[-1][2] / 1e3, color="grey", alpha=0.15,
                   label="common interval")
    ax.set_xlabel("time from the first post (s)")
    ax.set_ylabel("bandwidth (Gb/s, 10^9 bit/s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    cv.save(fig, "flows_%s.png" % slug(s.stem), "flows",
            "%s: bandwidth per flow over time" % os.path.basename(s.path), [s])


def rank_name(x, host=True):
    n = "rank %d, lcore %d" % (x["rank"], x["lcore"])
    return n + ("\n%s" % x["host"] if host and x.get("host") else "")


def draw_ranks(cv, s, gbits):
    """rdx-perf --pattern: a run's rank rows come first, then its cluster
    total (rank -1); one figure per run. Bandwidth in the table's unit."""
    CONTEXT[0] = s.path
    gbits = gbits or s.knobs.get("report_gbits") in GBITS_ON
    unit = "Gb/s" if gbits else "MiB/s"
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
        fig, (ax, ax2) = cv.plt.subplots(1, 2, figsize=(12, 5))
        xs = list(range(len(ranks)))
        ax.bar(xs, [bandwidth(x, gbits) or 0 for x in ranks], color="tab:blue")
        ax.set_xticks(xs)
        ax.set_xticklabels([rank_name(x) for x in ranks], fontsize="x-small")
        ax.set_ylabel(bw_label(gbits))
        axm = ax.twinx()
        axm.plot(xs, [x.get("mops") or 0 for x in ranks], "o", color="tab:orange",
                 label="Mop/s")
        axm.set_ylim(bottom=0)
        axm.set_ylabel("Mop/s")
        axm.legend(fontsize="small", loc="upper right")
        ax.set_title("per rank (cluster %.1f %s)" % (bandwidth(tot, gbits) or 0, unit),
                     fontsize="small")
        ax.grid(True, axis="y", alpha=0.3)
        from_pcts = False
        for i, x in enumerate(ranks + [tot]):
            if not x.get("has_lat") or not isinstance(x.get("lat"), dict):
                continue
            cx, cy, full = cdf_points(x)
            if not cx:
                continue
            from_pcts |= not full
            total = x["rank"] == -1
            name = "cluster (merged)" if total else rank_name(x, host=False)
            ax2.plot(cx, cy, lw=2.5 if total else 1,
                     color="black" if total else cv.colours(i % 10),
                     marker=None if full else MARKERS[i % len(MARKERS)],
                     label=name + ("" if full else " (%d percentiles)" % len(cx)))
        cv.log_axis(ax2, "x")
        ax2.set_xlabel("latency (us)")
        ax2.set_ylabel("fraction of operations <= latency")
        ax2.set_title("latency CDF per rank and merged%s" % (
            ";\nlines through the 7 percentiles only (the report has no histogram)"
            if from_pcts else ""), fontsize="small")
        ax2.grid(True, which="both", alpha=0.3)
        ax2.legend(fontsize="x-small")
        cv.save(fig, "ranks_%s_%d_q%d.png" % (slug("%s_%s" % (test, mode)), size, tot["qps"]),
                "ranks", "rdx-perf %s %s %s: per rank" % (test, mode, size_name(size)), [s])
