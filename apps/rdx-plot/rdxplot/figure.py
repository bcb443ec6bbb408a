# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's figures: matplotlib, the axes (log, sizes in B/KiB/MiB,
counts), SHORT rows, and writing a PNG with its text metadata."""

import math
import os

from .base import EXIT_IO, PROG, fail, num, size_name

STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
SHORT_NOTE = "hollow: SHORT row (< 0.1 s or < 1000 ops: unstable)"


class Canvas:
    """Where the PNGs go, and the ones written."""

    def __init__(self, outdir):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
        self.plt = plt
        self.FuncFormatter = FuncFormatter
        self.NullFormatter = NullFormatter
        self.plain = FuncFormatter(lambda v, _: "%g" % v)
        self.outdir = outdir
        self.written = []
        self.colours = plt.get_cmap("tab10")

    def plain_log(self, axis):
        """A log axis labelled 2, 3, 4 rather than 2x10^0; minor ticks 2 and 5
        labelled too when the axis spans at most two decades (else they collide)."""
        def minor(v, _):
            lo, hi = sorted(axis.get_view_interval())
            if lo <= 0 or hi / lo > 150:
                return ""
            return "%g" % v if ("%.0e" % v)[0] in "25" else ""
        axis.set_major_formatter(self.plain)
        axis.set_minor_formatter(self.FuncFormatter(minor))

    @staticmethod
    def positive(v):
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            return False
        return math.isfinite(f) and f > 0

    def log_axis(self, ax, axis, base=10, labels=True):
        """A log x or y axis when some value drawn on it is positive: matplotlib
        cannot log-scale an axis without one (a one-WR log's empty tail, latencies
        of 0 ns); such an axis stays linear. True when it is log."""
        if not any(self.positive(v) for ln in ax.get_lines()
                   for v in (ln.get_xdata() if axis == "x" else ln.get_ydata())):
            return False
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
        if labels:
            self.plain_log(ax.xaxis if axis == "x" else ax.yaxis)
        return True

    def size_axis(self, ax, values, axis="x"):
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
        a.set_major_formatter(self.FuncFormatter(lambda v, _: size_name(v)))
        a.set_minor_formatter(self.NullFormatter())
        if axis == "x":
            for t in ax.get_xticklabels():
                t.set_rotation(30)
                t.set_horizontalalignment("right")

    def auto_log_y(self, ax, values):
        """A log y axis when the values span more than 50x (overlays of a NIC
        and the software device), so the smaller series is not a flat line.
        True when it is log."""
        pos = [v for v in values if num(v) and v > 0]
        if pos and max(pos) / min(pos) > 50:
            ax.set_yscale("log")
            self.plain_log(ax.yaxis)
            return True
        return False

    def count_axis(self, ax, values):
        if any(v > 0 for v in values):
            ax.set_xscale("log", base=2)
        vals = sorted(set(values))
        if len(vals) <= 12:
            ax.set_xticks(vals)
        ax.xaxis.set_major_formatter(self.plain)
        ax.xaxis.set_minor_formatter(self.NullFormatter())

    @staticmethod
    def mark_short(ax, line, rows, xs, ys):
        """SHORT rows (short_run) of a drawn line: hollow markers over its own.
        True when there was one."""
        pts = [(x, y) for r, x, y in zip(rows, xs, ys) if r.get("short_run") is True and num(y)]
        if not pts:
            return False
        ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle="none",
                marker=line.get_marker() if line.get_marker() not in (None, "None", "") else "o",
                markersize=9, markerfacecolor="white", markeredgecolor=line.get_color(),
                markeredgewidth=1.5, zorder=line.get_zorder() + 1)
        return True

    @staticmethod
    def short_legend(ax):
        """One legend entry that says what the hollow markers are."""
        ax.plot([], [], linestyle="none", marker="o", markersize=8, markerfacecolor="white",
                markeredgecolor="black", label=SHORT_NOTE)

    @staticmethod
    def devices_of(srcs):
        devs = []
        for s in srcs:
            if s.device not in devs:
                devs.append(s.device)
        return devs

    def save(self, fig, name, kind, title, srcs, meta_extra=None):
        devs = self.devices_of(srcs)
        head = "%s\n%s: %s" % (title, "device" if len(devs) == 1 else "devices", "; ".join(devs))
        fig.suptitle(head, fontsize="medium")
        notes = ["%s: %s" % (s.label, n) for s in srcs for n in s.notes]
        if notes:
            # bottom-aligned: an "_" (dev_id=) below the baseline stays inside
            fig.text(0.01, 0.005, "; ".join(notes), fontsize="x-small", color="darkred",
                     wrap=True, va="bottom")
        fig.tight_layout(rect=(0, 0.03 if notes else 0, 1, 1))
        path = os.path.join(self.outdir, name)
        meta = {"Title": head.replace("\n", " | "), "Software": PROG, "rdx-kind": kind,
                "rdx-devices": "; ".join(devs),
                "rdx-inputs": "; ".join("%s=%s" % (s.label, os.path.basename(s.path))
                                        for s in srcs)}
        if notes:
            meta["rdx-notes"] = "; ".join(notes)
        meta.update(meta_extra or {})
        try:
            fig.savefig(path, dpi=100, metadata=meta)
        except OSError as e:     # an I/O failure (disk full), not bad input
            fail("%s: cannot write: %s" % (path, e.strerror or e), EXIT_IO)
        self.plt.close(fig)
        self.written.append(path)
