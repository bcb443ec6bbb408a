#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The timing layer's validation figures (bench/timing/validate.sh).

usage: plot.py DATA.tsv PROFILE.conf OUTDIR

DATA.tsv, one line per point, tab-separated:
  study  x  host_mops  model_mops  [size_bytes]
studies: size (x: message bytes), qps (x: QP count), keys (x: FAA keys),
mtu (x: path MTU; size_bytes: the WRITE's), share (x: flow 1, 2; host_mops:
its MiB/s; model_mops: the link's goodput, MiB/s, of the profile named by a
line "#share-profile<TAB>NAME"; "#share-jain<TAB>J": Jain's index over the
flows' common interval, else the averages'). host_mops is what this host ran, model_mops the modelled NIC's
ceiling for the same WQEs (rdx-perf's footer line of the row). Writes
timing_<study>.png; every figure says it is modelled.
"""
import os
import sys


def profile(path):
    keys = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "=" in line:
                k, v = line.split("=", 1)
                keys[k.strip()] = int(v.strip())
    return keys


def goodput_mibs(p, size, mtu=None):
    """Payload MiB/s of size-byte WRITEs back to back on the link."""
    mtu = min(mtu or p["mtu"], p["mtu"])
    pk = max(1, -(-size // mtu))
    wire = size + pk * p["pkt_hdr"] + p["reth"]
    return p["link_mbps"] * 1e6 / 8 * size / wire / 2**20


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    data, conf, out = argv[1:]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = profile(conf)
    name = os.path.basename(conf).rsplit(".", 1)[0]
    label = "software device, timing %s (modelled)" % name
    rows = {}
    share_name = name
    share_jain = None
    with open(data) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "#share-profile" and len(c) > 1:
                share_name = c[1]
            if c[0] == "#share-jain" and len(c) > 1:
                share_jain = float(c[1])
            if len(c) < 4 or line.startswith("#"):
                continue
            rows.setdefault(c[0], []).append(
                (float(c[1]), float(c[2]), float(c[3]), int(c[4]) if len(c) > 4 and c[4] else 0))
    os.makedirs(out, exist_ok=True)
    written = []

    def save(fig, ax, study, title, lab=label):
        ax.set_title(title + "\n" + lab, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out, "timing_%s.png" % study)
        fig.savefig(path, dpi=100, metadata={"Description": label})
        plt.close(fig)
        written.append(path)

    if "size" in rows:
        r = sorted(rows["size"])
        xs = [x for x, _, _, _ in r]
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot(xs, [m * 1e6 * x / 2**20 for x, _, m, _ in r], "o-",
                label="modelled NIC (ceiling of the row's WQEs)")
        ax.plot(xs, [h * 1e6 * x / 2**20 for x, h, _, _ in r], "s--",
                label="this host running the model")
        fine = [2**k for k in range(2, 24)]
        fine = [s for s in fine if xs[0] <= s <= xs[-1]]
        ax.plot(fine, [goodput_mibs(p, s) for s in fine], ":", color="k",
                label="link goodput (payload / wire bytes)")
        # half-bandwidth size of the modelled curve
        top = goodput_mibs(p, int(xs[-1]))
        mod = [(x, m * 1e6 * x / 2**20) for x, _, m, _ in r]
        for (x0, y0), (x1, y1) in zip(mod, mod[1:]):
            if y0 < top / 2 <= y1:
                half = x0 + (top / 2 - y0) * (x1 - x0) / (y1 - y0)
                ax.axvline(half, color="grey", lw=0.8)
                ax.annotate("half bandwidth ~%d B" % half, (half, top / 2), fontsize=8,
                            xytext=(5, -15), textcoords="offset points")
                break
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("WRITE bandwidth (MiB/s)")
        save(fig, ax, "size", "write bw vs message size, 1 QP")
    if "qps" in rows:
        r = sorted(rows["qps"])
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot([x for x, *_ in r], [m for _, _, m, _ in r], "o-",
                label="modelled NIC (ceiling of the row's WQEs)")
        ax.plot([x for x, *_ in r], [h for _, h, _, _ in r], "s--",
                label="this host running the model")
        ax.axvline(p["qpc_entries"], color="grey", lw=0.8)
        ax.annotate("QP-context cache: %d entries" % p["qpc_entries"],
                    (p["qpc_entries"], r[0][2] / 2), fontsize=8, xytext=(5, 0),
                    textcoords="offset points")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("QPs (64-B WRITEs, round robin)")
        ax.set_ylabel("message rate (Mop/s)")
        save(fig, ax, "qps", "QP-scaling: write bw 64 B")
    for study, xl, title in (("keys", "FAA keys (8-B addresses)", "FAA 8 B: one key vs many"),
                             ("mtu", "path MTU (bytes)", "write bw 64 KiB vs MTU")):
        if study not in rows:
            continue
        r = sorted(rows[study])
        fig, ax = plt.subplots(figsize=(7, 4.5))
        pos = list(range(len(r)))
        if study == "mtu":
            conv = [x[3] * 8e6 / 1e9 for x in r]   # Mop/s -> Gb/s of payload
            unit = "payload Gb/s"
        else:
            conv = [1.0] * len(r)
            unit = "Mop/s"
        ax.bar([i - 0.2 for i in pos], [m * c for (_, _, m, _), c in zip(r, conv)], 0.4,
               label="modelled NIC (ceiling)")
        ax.bar([i + 0.2 for i in pos], [h * c for (_, h, _, _), c in zip(r, conv)], 0.4,
               label="this host running the model")
        if study == "mtu":
            for i, (x, _, _, sz) in enumerate(r):
                g = goodput_mibs(p, sz, int(x)) * 2**20 * 8 / 1e9
                ax.plot([i - 0.45, i + 0.45], [g, g], "k:", label="link goodput" if i == 0 else None)
        ax.set_xticks(pos)
        ax.set_xticklabels(["%d" % x for x, *_ in r])
        ax.set_xlabel(xl)
        ax.set_ylabel(unit)
        if study == "keys":
            ax.set_yscale("log")
        save(fig, ax, study, title)
    if "share" in rows:
        r = sorted(rows["share"])
        a = [h for _, h, _, _ in r]
        jain = sum(a) ** 2 / (len(a) * sum(v * v for v in a)) if a else 0
        how = "of the averages"
        if share_jain is not None:
            jain, how = share_jain, "over the common interval"
        fig, ax = plt.subplots(figsize=(7, 4.5))
        names = ["flow %d" % x for x, *_ in r] + ["together"]
        ax.bar(range(len(names)), a + [sum(a)], 0.5, label="measured (modelled link)")
        g = r[0][2]   # the share profile's goodput, MiB/s
        ax.axhline(g, color="k", ls=":", label="link goodput %.1f MiB/s" % g)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names)
        ax.set_ylabel("write bw 64 KiB (MiB/s)")
        save(fig, ax, "share", "two rdx-perf processes, one port: Jain index %.4f %s" % (jain, how),
             "software device, timing %s (modelled)" % share_name)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
