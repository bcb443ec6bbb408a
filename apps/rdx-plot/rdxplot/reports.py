# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's figures of rdx-perf reports, one per test and mode: lat-cdf,
lat-size, bw-size, mops-qps, latency-vs-load."""

from .base import CDF_MAX_SIZES, CONTEXT, KNEE_FACTOR, PCTS, cdf_points, knee, num, size_name, slug
from .figure import MARKERS, STYLES

GBITS_ON = ("on", "1", "yes", "true")


def bandwidth(r, gbits):
    """A row's bandwidth in the table's unit: MiB/s (2^20 B/s), or Gb/s
    (10^9 bit/s) with --report_gbits; None when it has none."""
    if gbits:
        if num(r.get("gbits_per_s")):
            return r["gbits_per_s"]
        return r["mbytes_per_s"] * 8e-3 if num(r.get("mbytes_per_s")) else None
    if num(r.get("bytes_per_s")):
        return r["bytes_per_s"] / 2 ** 20
    return r["mbytes_per_s"] * 1e6 / 2 ** 20 if num(r.get("mbytes_per_s")) else None


def bw_label(gbits):
    return ("bandwidth (Gb/s, 10^9 bit/s: the table with --report_gbits)" if gbits else
            "bandwidth (MiB/s, 2^20 B/s: as rdx-perf's table)")


def cdf_pick(sizes, want):
    """The sizes lat-cdf draws: those asked for (--cdf-sizes), else all when
    they are few, else CDF_MAX_SIZES spread evenly (log) from the smallest
    to the largest."""
    if want:
        return [s for s in sizes if s in want]
    if len(sizes) <= CDF_MAX_SIZES:
        return list(sizes)
    idx = sorted({int(i * (len(sizes) - 1) / (CDF_MAX_SIZES - 1) + 0.5)
                  for i in range(CDF_MAX_SIZES)})
    return [sizes[i] for i in idx]


def draw_reports(cv, reports, kinds, opts, knees):
    """Every figure of the reports' rows, grouped by (test, mode)."""
    plt = cv.plt
    gbits = opts.report_gbits or any(s.knobs.get("report_gbits") in GBITS_ON for s in reports)
    groups = {}      # (test, mode) -> [(source, rows)]
    for s in reports:
        by = {}
        for r in s.rows:
            by.setdefault((r["test"], r["mode"]), []).append(r)
        for key, rows in by.items():
            groups.setdefault(key, []).append((s, rows))

    for (test, mode), members in sorted(groups.items()):
        CONTEXT[0] = " ".join(s.path for s, _ in members)
        name = slug("%s_%s" % (test, mode))
        title = "rdx-perf %s %s" % (test, mode)
        multi = False

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
            lat_cdf(cv, lat_of, lbl, lat_unit, name, title, opts)

        if "lat-size" in kinds and lat_of:
            fig, ax = plt.subplots(figsize=(8, 5))
            shorts = False
            for si, (s, rows) in enumerate(lat_of):
                qset = sorted({r["qps"] for r in rows})
                for q in qset:
                    sel = sorted((r for r in rows if r["qps"] == q), key=lambda r: r["size"])
                    qn = " %d QPs" % q if len(qset) > 1 else ""
                    for k, m in (("p50", "o"), ("p99", "s")):
                        xs = [r["size"] for r in sel]
                        ys = [r["lat"][k] / 1e3 for r in sel]
                        ln, = ax.plot(xs, ys, marker=m, linestyle=STYLES[si % len(STYLES)],
                                      label=lbl(s, k + qn))
                        shorts |= cv.mark_short(ax, ln, sel, xs, ys)
            if shorts:
                cv.short_legend(ax)
            cv.size_axis(ax, [r["size"] for _, rows in lat_of for r in rows])
            cv.log_axis(ax, "y")
            ax.set_xlabel("message size")
            ax.set_ylabel(lat_unit)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small")
            cv.save(fig, "lat_size_%s.png" % name, "lat-size", title + ": latency vs size",
                    [s for s, _ in lat_of])

        bw_of = [(s, [r for r in rows if bandwidth(r, gbits) is not None and num(r.get("mops"))
                      and not num(r.get("offered_ops_per_s"))]) for s, rows in members]
        bw_of = [(s, rows) for s, rows in bw_of if rows]
        multi = len(bw_of) > 1
        if "bw-size" in kinds and bw_of:
            fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
            shorts = False
            for si, (s, rows) in enumerate(bw_of):
                qset = sorted({r["qps"] for r in rows})
                for qi, q in enumerate(qset):
                    sel = sorted((r for r in rows if r["qps"] == q), key=lambda r: r["size"])
                    kw = dict(marker=MARKERS[qi % len(MARKERS)],
                              linestyle=STYLES[si % len(STYLES)],
                              label=lbl(s, "%d QP%s" % (q, "s" if q != 1 else "")))
                    xs = [r["size"] for r in sel]
                    for a, ys in ((ax, [bandwidth(r, gbits) for r in sel]),
                                  (ax2, [r["mops"] for r in sel])):
                        ln, = a.plot(xs, ys, **kw)
                        shorts |= cv.mark_short(a, ln, sel, xs, ys)
            for a, yl, f in ((ax, bw_label(gbits), lambda r: bandwidth(r, gbits)),
                             (ax2, "Mop/s (10^6 operations/s)", lambda r: r["mops"])):
                if shorts:
                    cv.short_legend(a)
                cv.size_axis(a, [r["size"] for _, rows in bw_of for r in rows])
                cv.auto_log_y(a, [f(r) for _, rows in bw_of for r in rows])
                a.set_xlabel("message size")
                a.set_ylabel(yl)
                a.grid(True, which="both", alpha=0.3)
                a.legend(fontsize="x-small")
            ax.set_title("bandwidth vs size", fontsize="small")
            ax2.set_title("Mop/s vs size", fontsize="small")
            cv.save(fig, "bw_size_%s.png" % name, "bw-size", title + ": bandwidth vs size",
                    [s for s, _ in bw_of], {"rdx-bw-unit": "Gb/s" if gbits else "MiB/s"})

        qp_of = [(s, rows) for s, rows in bw_of if len({r["qps"] for r in rows}) > 1]
        multi = len(qp_of) > 1
        if "mops-qps" in kinds and qp_of:
            fig, ax = plt.subplots(figsize=(8, 5))
            shorts = False
            for si, (s, rows) in enumerate(qp_of):
                for zi, size in enumerate(sorted({r["size"] for r in rows})):
                    sel = sorted((r for r in rows if r["size"] == size), key=lambda r: r["qps"])
                    if len({r["qps"] for r in sel}) < 2:
                        continue
                    xs = [r["qps"] for r in sel]
                    ys = [r["mops"] for r in sel]
                    ln, = ax.plot(xs, ys, marker=MARKERS[zi % len(MARKERS)],
                                  linestyle=STYLES[si % len(STYLES)], label=lbl(s, size_name(size)))
                    shorts |= cv.mark_short(ax, ln, sel, xs, ys)
            if shorts:
                cv.short_legend(ax)
            cv.count_axis(ax, [r["qps"] for _, rows in qp_of for r in rows])
            cv.auto_log_y(ax, [r["mops"] for _, rows in qp_of for r in rows])
            ax.set_xlabel("QPs")
            ax.set_ylabel("Mop/s")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small")
            cv.save(fig, "mops_qps_%s.png" % name, "mops-qps", title + ": Mop/s vs QPs",
                    [s for s, _ in qp_of])

        load_of = [(s, [r for r in rows if num(r.get("offered_ops_per_s"))])
                   for s, rows in members]
        load_of = [(s, rows) for s, rows in load_of if rows]
        multi = len(load_of) > 1
        if "latency-vs-load" in kinds and load_of:
            latency_vs_load(cv, load_of, lbl, lat_unit if lat_of else "latency (us)", name,
                            title, test, mode, knees)


def lat_cdf(cv, lat_of, lbl, lat_unit, name, title, opts):
    """The latency CDF of a handful of sizes (every size: lat-size), one
    colour and marker per size, one line style per input."""
    fig, (ax, ax2) = cv.plt.subplots(1, 2, figsize=(12, 5))
    sizes = sorted({r["size"] for _, rows in lat_of for r in rows})
    picked = cdf_pick(sizes, opts.cdf_sizes)
    if not picked:
        picked = sizes[:1]
    multi_qps = len({r["qps"] for _, rows in lat_of for r in rows}) > 1
    from_pcts = False
    for si, (s, rows) in enumerate(lat_of):
        for r in sorted(rows, key=lambda r: (r["size"], r["qps"])):
            if r["size"] not in picked:
                continue
            zi = picked.index(r["size"])
            xs, ys, full = cdf_points(r)
            from_pcts |= not full
            extra = size_name(r["size"]) + (", %d QPs" % r["qps"] if multi_qps else "")
            extra += "" if full else " (%d percentiles)" % len(xs)
            extra += " SHORT" if r.get("short_run") is True else ""
            kw = dict(color=cv.colours(zi % 10), linestyle=STYLES[si % len(STYLES)],
                      marker=MARKERS[zi % len(MARKERS)], label=lbl(s, extra),
                      markevery=1 if not full else max(1, len(xs) // 6))
            ax.plot(xs, ys, **kw)
            tail = [(x, 1.0 - y) for x, y in zip(xs, ys) if y < 1.0]
            if tail:
                kw["markevery"] = 1 if not full else max(1, len(tail) // 6)
                ax2.plot([x for x, _ in tail], [y for _, y in tail], **kw)
    for a in (ax, ax2):
        cv.log_axis(a, "x")
        a.set_xlabel(lat_unit)
        a.grid(True, which="both", alpha=0.3)
    ax.set_ylabel("fraction of operations <= latency")
    shown = ("%d of %d sizes (every size: lat-size)" % (len(picked), len(sizes))
             if len(picked) < len(sizes) else "%d size%s" % (len(sizes), "s" * (len(sizes) > 1)))
    ax.set_title("latency CDF, %s%s" % (shown, ", from the full histogram" if not from_pcts else
                 ";\nlines through the 7 percentiles only (the report has no histogram)"),
                 fontsize="small")
    cv.log_axis(ax2, "y", labels=False)
    ax2.set_ylabel("fraction of operations > latency")
    ax2.set_title("tail", fontsize="small")
    ax.legend(fontsize="x-small")
    cv.save(fig, "lat_cdf_%s.png" % name, "lat-cdf", title + ": latency CDF",
            [s for s, _ in lat_of], {"rdx-cdf-sizes": ",".join(str(z) for z in picked),
                                     "rdx-cdf-from": "percentiles" if from_pcts else "histogram"})


def latency_vs_load(cv, load_of, lbl, lat_unit, name, title, test, mode, knees):
    fig, (ax, ax2) = cv.plt.subplots(1, 2, figsize=(12, 5))
    for si, (s, rows) in enumerate(load_of):
        for zi, size in enumerate(sorted({r["size"] for r in rows})):
            sel = sorted((r for r in rows if r["size"] == size),
                         key=lambda r: r["offered_ops_per_s"])
            off = [r["offered_ops_per_s"] / 1e6 for r in sel]
            ls = STYLES[si % len(STYLES)]
            sn = size_name(size)

            def pct(r, k):
                ok = r.get("has_lat") and isinstance(r.get("lat"), dict) and num(r["lat"].get(k))
                return r["lat"][k] / 1e3 if ok else float("nan")
            ax.plot(off, [pct(r, "p50") for r in sel], marker="o", linestyle=ls,
                    label=lbl(s, "p50 " + sn))
            p99 = [pct(r, "p99") for r in sel]
            ax.plot(off, p99, marker="s", linestyle=ls, label=lbl(s, "p99 " + sn))
            k = knee(list(zip(off, p99)))
            if k is not None:
                ax.axvline(k[0], color="red", alpha=0.4, linestyle=ls)
                ax.annotate("knee %.3g Mop/s" % k[0], xy=k, xytext=(5, 10),
                            textcoords="offset points", color="red", fontsize="x-small")
                knees.append("%s %s %s %s: knee at %.6g Mop/s offered (p99 %.3f us)"
                             % (s.label, test, mode, sn, k[0], k[1]))
            else:
                knees.append("%s %s %s %s: no knee (p99 stays within %gx of its value "
                             "at the lowest load)" % (s.label, test, mode, sn, KNEE_FACTOR))
            ach = [r["mops"] if num(r.get("mops")) else float("nan") for r in sel]
            ax2.plot(off, ach, marker=MARKERS[zi % len(MARKERS)], linestyle=ls, label=lbl(s, sn))
    offs = [r["offered_ops_per_s"] / 1e6 for _, rows in load_of for r in rows]
    achs = [r.get("mops") for _, rows in load_of for r in rows]
    # (mops may be missing from a row: drawn as a gap)
    ylog = cv.auto_log_y(ax2, achs + offs)
    if ylog:
        ax2.set_xscale("log")
        cv.plain_log(ax2.xaxis)
    # achieved = offered: y = x sampled over the offered range (geometric
    # steps on log axes), so it is the diagonal on either scale
    lo, hi = min(o for o in offs if o > 0) if any(o > 0 for o in offs) else 0.0, max(offs)
    n = 64
    if ylog and lo > 0:
        ref = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
    else:
        ref = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    ax2.plot(ref, ref, color="grey", alpha=0.6, linestyle="--", label="achieved = offered")
    cv.log_axis(ax, "y")
    ax.set_xlabel("offered load (Mop/s)")
    ax.set_ylabel(lat_unit)
    ax.set_title("latency vs offered load (knee: p99 above %gx its lowest-load value)"
                 % KNEE_FACTOR, fontsize="small")
    ax2.set_xlabel("offered load (Mop/s)")
    ax2.set_ylabel("achieved Mop/s")
    ax2.set_title("achieved vs offered", fontsize="small")
    for a in (ax, ax2):
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize="x-small")
    cv.save(fig, "latency_vs_load_%s.png" % name, "latency-vs-load",
            title + ": latency vs offered load", [s for s, _ in load_of])
