#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdx-perf beside perftest and qperf on soft-RoCE, inside ONE guest boot.

Run by tests/softroce/side-by-side.sh inside the qemu guest (RDX_GUEST=1):
servers on rxe1, clients on rxe0, out-of-band exchange over TCP on the
guest's loopback; no address outside the guest is ever used. Prints a
markdown table between "=== TABLE BEGIN" and "=== TABLE END".
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time

SERVER_DEV, CLIENT_DEV, GID_INDEX = "rxe1", "rxe0", "1"
OOB_HOST = "127.0.0.1"
CM_HOST = "10.77.0.2"  # rxe1's address inside the guest (qperf needs rdma_cm)
RUN_TIMEOUT = 240
# Every tool's server on vCPU 1 and client on vCPU 0, as rdx-perf's EAL -l
# does: two busy pollers sharing a vCPU starve each other (ms latencies).
PIN_SERVER = ["taskset", "-c", "1"]
PIN_CLIENT = ["taskset", "-c", "0"]

port_seq = [18600]


def next_port():
    port_seq[0] += 1
    return str(port_seq[0])


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_pair(server_cmd, client_cmd, settle=2.0, ready=None):
    """Start the server, then the client (once the server printed `ready`, else
    after `settle` seconds); return (client rc, client output, server output)."""
    log("  server: " + " ".join(server_cmd))
    log("  client: " + " ".join(client_cmd))
    sfile = tempfile.TemporaryFile(mode="w+")
    srv = subprocess.Popen(server_cmd, stdout=sfile, stderr=subprocess.STDOUT, text=True)
    if ready:
        end = time.time() + 60
        while time.time() < end and srv.poll() is None:
            sfile.seek(0)
            if ready in sfile.read():
                break
            time.sleep(0.1)
    else:
        time.sleep(settle)
    try:
        cli = subprocess.run(client_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=RUN_TIMEOUT)
        crc, cout = cli.returncode, cli.stdout
    except subprocess.TimeoutExpired as e:
        crc, cout = 124, (e.stdout or "") if isinstance(e.stdout, str) else ""
    try:
        srv.wait(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.wait()
    sfile.seek(0)
    sout = sfile.read()
    sfile.close()
    if crc != 0:
        log("  client failed (exit %d):\n%s\n  server:\n%s" % (crc, cout[-2000:], sout[-2000:]))
    return crc, cout, sout


# ------------------------------------------------------------------ perftest
def perftest(tool, size, iters, bw, knobs, ud=False):
    port = next_port()
    base = [tool, "-x", GID_INDEX, "-F", "-p", port, "-s", str(size), "-n", str(iters)]
    if ud:
        # perftest 4.5: -c UD, a message of at most the port's MTU
        base += ["-c", "UD"]
    if tool == "ib_atomic_lat" and knobs.get("atomic") == "cas":
        base += ["-A", "CMP_AND_SWAP"]
    if bw:
        base += ["-t", str(knobs["tx_depth"]), "-Q", str(knobs["cq_mod"]),
                 "-l", str(knobs["post_list"])]
    k0 = ksoftirqd_wait_ns()
    rc, out, _ = run_pair(PIN_SERVER + base + ["-d", SERVER_DEV],
                          PIN_CLIENT + base + ["-d", CLIENT_DEV, OOB_HOST])
    ksirq = (ksoftirqd_wait_ns() - k0) / 1e6
    if rc != 0:
        return None
    rows = [l.split() for l in out.splitlines()]
    for i, r in enumerate(rows):
        if r and r[0] == "#bytes":
            data = rows[i + 1]
            if bw:
                # #bytes #iterations BW-peak BW-average MsgRate[Mpps]
                if float(data[4]) <= 0:
                    log("  %s measured nothing (clock check failure?): run discarded" % tool)
                    return None
                # perftest's "MB/sec" is 2^20 B/s: converted to 10^6 B/s,
                # the unit of every MB/s column in rdx (doc/perf.md)
                return run_log(tool, {"median_us": None, "p99_us": None, "mops": float(data[4]),
                                      "mbs": float(data[3]) * 1.048576, "kind": "-",
                                      "ksirq_ms": ksirq})
            # #bytes #iter t_min t_max t_typical t_avg t_stdev p99 p99.9
            kind = "RTT/2" if tool in ("ib_write_lat", "ib_send_lat") else "RTT"
            if not all(math.isfinite(float(x)) for x in data[2:8]):
                # perftest prints "inf" when its cycle clock check failed
                log("  %s printed a non-finite latency: run discarded" % tool)
                return None
            avg = float(data[5])
            return run_log(tool, {"median_us": float(data[4]), "p99_us": float(data[7]),
                                  "mops": 1.0 / avg if avg > 0 else None, "mbs": None,
                                  "kind": kind, "ksirq_ms": ksirq})
    log("  cannot parse %s output:\n%s" % (tool, out[-1500:]))
    return None


# ------------------------------------------------------------------ rdx-perf
def rdx_perf(exe, test, mode, size, iters, knobs, ud=False, extra=(), eal=()):
    port = next_port()
    tmp = tempfile.mkdtemp(prefix="rdxsbs")
    csv_path = os.path.join(tmp, "client.csv")
    # a generous bootstrap window: under TCG a process may take seconds to start
    common = ["--test", test, "--mode", mode, "-s", str(size), "-n", str(iters),
              "--bootstrap-timeout", "60"]
    if mode == "bw":
        common += ["-t", str(knobs["tx_depth"]), "-Q", str(knobs["cq_mod"]),
                   "-l", str(knobs["post_list"])]
    if ud:
        common += ["--transport", "ud"]
    common += list(extra)
    # EAL -l: each process's poller on its own vCPU, as on two hosts
    # the port: -p for the server, HOST:PORT for the client (rdx-perf refuses both)
    srv = [exe, "-l", "1"] + list(eal) + ["--"] + common + ["--dev", SERVER_DEV, "--server", "-p", port]
    cli = [exe, "-l", "0"] + list(eal) + ["--"] + common + ["--dev", CLIENT_DEV, "--connect", "%s:%s" % (OOB_HOST, port),
                                  "--csv", csv_path]
    k0 = ksoftirqd_wait_ns()
    rc, out, _ = run_pair(srv, cli, ready="waiting for a client")
    ksirq = (ksoftirqd_wait_ns() - k0) / 1e6
    for line in out.splitlines():
        if line.startswith("rdx-perf: UD "):
            log("  " + line)  # datagrams sent / arrived / re-sent
    if rc != 0 or not os.path.exists(csv_path):
        return None
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    pick = [r for r in rows if r.get("lcore") == "total"] or rows
    if not pick:
        return None
    r = pick[-1]

    def num(key, scale=1.0):
        v = r.get(key, "")
        return float(v) * scale if v not in ("", None) else None

    res = {"median_us": num("lat_p50_ns", 1e-3), "p99_us": num("lat_p99_ns", 1e-3),
           "mops": num("mops"), "mbs": num("mbytes_per_s"), "kind": r.get("lat_kind") or "-",
           "ksirq_ms": ksirq}
    if mode == "bw":
        res["median_us"] = res["p99_us"] = None
    return run_log(" ".join([os.path.basename(exe)] + list(eal) + list(extra)), res)


def ksoftirqd_wait_ns():
    """Sum over the ksoftirqd threads of the time they waited runnable on a
    run queue (/proc/PID/schedstat, 2nd field, ns): how long deferred softirq
    work (rxe's tasklets among it) sat behind a busy poller. 0 if unknown."""
    tot = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                if not f.read().startswith("ksoftirqd/"):
                    continue
            with open("/proc/%s/schedstat" % pid) as f:
                tot += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return tot


def run_log(tool, res):
    """One line per run in the log: what each round measured."""
    log("  run: %s median %s us p99 %s us rate %s Mop/s ksoftirqd waited %.2f ms" % (
        tool, fmt(res["median_us"]), fmt(res["p99_us"]), fmt(res["mops"], 4),
        res.get("ksirq_ms") or 0.0))
    return res


# ------------------------------------------------------------------ qperf
UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "sec": 1e6, "s": 1e6}
RATE = {"": 1e-6, "K/sec": 1e-3, "M/sec": 1.0, "G/sec": 1e3, "/sec": 1e-6}


def qperf(test, size, secs):
    port = next_port()
    srv = PIN_SERVER + ["qperf", "-lp", port]
    cli = PIN_CLIENT + ["qperf", "-lp", port, "-v", "-cm1", "-cp1", CM_HOST, "-m", str(size), "-t", str(secs), test]
    # which rxe devices carry the qperf QPs (rdma_cm may keep both ends on one)
    rc, out, _ = run_pair(srv, cli, settle=1.0)
    if rc != 0:
        return None
    lat = re.search(r"latency\s*=\s*([\d.,]+)\s*(\w+)", out)
    rate = re.search(r"msg_rate\s*=\s*([\d.,]+)\s*([KMG]?/sec)", out)
    bw = re.search(r"\bbw\s*=\s*([\d.,]+)\s*([KMG]B)/sec", out)
    res = {"median_us": None, "p99_us": None, "mops": None, "mbs": None, "kind": "-"}
    if lat:
        res["median_us"] = float(lat.group(1).replace(",", "")) * UNITS.get(lat.group(2), 1.0)
        res["kind"] = "mean " + ("RTT/2" if test in ("rc_lat", "rc_rdma_write_lat") else "RTT")
    if rate:
        res["mops"] = float(rate.group(1).replace(",", "")) * RATE.get(rate.group(2), 1e-6)
    if bw:
        res["mbs"] = float(bw.group(1).replace(",", "")) * {"KB": 1e-3, "MB": 1.0, "GB": 1e3}[bw.group(2)]
    return res


def median_of(runs, key):
    """The run whose `key` is the median of the successful runs (the whole
    row of one run, not a mix), with "runs" = successes/attempts; or None."""
    ok = [r for r in runs if r is not None and r.get(key) is not None]
    if not ok:
        return None
    ok.sort(key=lambda r: r[key])
    best = dict(ok[(len(ok) - 1) // 2])
    best["runs"] = "%d/%d" % (len(ok), len(runs))
    return best


def fmt(v, digits=2):
    return "-" if v is None else ("%.*f" % (digits, v))


# (key, label, perftest tool, rdx-perf test, mode, UD)
ROWS = [
    ("write-lat", "write lat", "ib_write_lat", "write", "lat", False),
    ("read-lat", "read lat", "ib_read_lat", "read", "lat", False),
    ("send-lat", "send lat", "ib_send_lat", "send", "lat", False),
    ("faa-lat", "atomic (FAA) lat", "ib_atomic_lat", "faa", "lat", False),
    ("cas-lat", "atomic (CAS) lat", "ib_atomic_lat", "cas", "lat", False),
    ("write-bw", "write bw", "ib_write_bw", "write", "bw", False),
    ("read-bw", "read bw", "ib_read_bw", "read", "bw", False),
    ("send-bw", "send bw", "ib_send_bw", "send", "bw", False),
    ("send-lat-ud", "send lat UD", "ib_send_lat", "send", "lat", True),
    ("send-bw-ud", "send bw UD", "ib_send_bw", "send", "bw", True),
    # echo over UD has no perftest counterpart: rdx-perf alone
    ("echo-lat-ud", "echo lat UD", None, "echo", "lat", True),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdx-perf", default="", help="path of the rdx-perf binary ('' = skip)")
    ap.add_argument("--rdx-perf-alt", default="",
                    help="a second rdx-perf binary run in the same rounds (A/B in one boot)")
    ap.add_argument("--alt-args", default="",
                    help="extra rdx-perf options of the alt binary's runs (e.g. '-e'); with "
                    "--rdx-perf-alt same as --rdx-perf this is an A/B of an option")
    ap.add_argument("--eal-args", default="",
                    help="EAL options (before rdx-perf's '--') of the main binary's runs, "
                    "e.g. '--no-telemetry'; -l stays as the pinning says")
    ap.add_argument("--alt-eal-args", default="",
                    help="EAL options of the alt binary's runs (an A/B of an EAL flag)")
    ap.add_argument("-n", "--iters", type=int, default=1000, help="latency iterations")
    ap.add_argument("--bw-iters", type=int, default=3000, help="bandwidth iterations")
    ap.add_argument("-s", "--size", type=int, default=8, help="latency message size")
    ap.add_argument("--bw-size", type=int, default=4096, help="bandwidth message size")
    ap.add_argument("--qperf-secs", type=int, default=3)
    ap.add_argument("--no-qperf", action="store_true", help="skip the qperf rows")
    ap.add_argument("--ud-size", type=int, default=1024,
                    help="UD bandwidth message size (<= the MTU: 1024 on rxe over a 1500 B veth)")
    ap.add_argument("--only", choices=("all", "rc", "ud"), default="all",
                    help="rows to run: RC (and qperf), UD, or both")
    ap.add_argument("--rows", default="",
                    help="comma list of row keys (overrides --only): " +
                    ",".join(r[0] for r in ROWS))
    ap.add_argument("-r", "--rounds", "--repeat", dest="rounds", type=int, default=5,
                    help="rounds: every row runs once per tool per round, the tools "
                    "interleaved (order alternating between rounds); the median round is shown")
    a = ap.parse_args()
    if os.environ.get("RDX_GUEST") != "1":
        print("side_by_side.py runs inside the soft-RoCE guest: use tests/softroce/side-by-side.sh",
              file=sys.stderr)
        return 2
    if a.rounds < 1:
        print("side_by_side.py: --rounds must be >= 1", file=sys.stderr)
        return 2
    knobs = {"tx_depth": 128, "cq_mod": 100, "post_list": 1}
    tools = []  # (name shown, exe, extra options, EAL options)
    alt_tag = " [alt%s]" % "".join(" " + x for x in (a.alt_eal_args, a.alt_args) if x)
    main_tag = " [%s]" % a.eal_args if a.eal_args else ""
    for path, tag, extra, eal in ((a.rdx_perf, main_tag, (), a.eal_args.split()),
                                  (a.rdx_perf_alt, alt_tag, a.alt_args.split(),
                                   a.alt_eal_args.split())):
        if path and os.access(path, os.X_OK):
            tools.append((tag, path, extra, eal))
    if a.rows:
        keys = a.rows.split(",")
        bad = [k for k in keys if k not in [r[0] for r in ROWS]]
        if bad:
            print("side_by_side.py: unknown row(s) %s" % ",".join(bad), file=sys.stderr)
            return 2
        plan = [r for r in ROWS if r[0] in keys]
    else:
        plan = [r for r in ROWS if a.only == "all" or (a.only == "ud") == r[5]]
    if a.only == "ud" or a.rows:
        a.no_qperf = True

    def row_args(key, mode, ud):
        if mode == "bw":
            size = a.ud_size if ud else a.bw_size
        else:
            size = 8 if key in ("faa-lat", "cas-lat") else a.size  # atomics: 8 B
        iters = a.bw_iters if mode == "bw" else a.iters
        k = dict(knobs)
        k["atomic"] = "cas" if key == "cas-lat" else "faa"
        return size, iters, k

    # runs[(row key, tool index)] = [result per round]; tool index -1 = perftest
    runs = {}
    for rnd in range(a.rounds):
        for key, label, tool, test, mode, ud in plan:
            size, iters, k = row_args(key, mode, ud)
            log("== round %d/%d: %s (%d B, %d iterations)" % (rnd + 1, a.rounds, label, size, iters))
            order = ([-1] if tool else []) + list(range(len(tools)))
            if rnd % 2 == 1:
                order.reverse()  # alternate who goes first: slow drift hits both alike
            for t in order:
                if t < 0:
                    r = perftest(tool, size, iters, mode == "bw", k, ud)
                else:
                    r = rdx_perf(tools[t][1], test, mode, size, iters, k, ud, tools[t][2], tools[t][3])
                runs.setdefault((key, t), []).append(r)

    rows = []
    for key, label, tool, test, mode, ud in plan:
        size, _, _ = row_args(key, mode, ud)
        mkey = "median_us" if mode == "lat" else "mops"
        pt_runs = runs.get((key, -1), [])
        pt = median_of(pt_runs, mkey) if tool else None
        if tool:
            rows.append((label, tool + (" -c UD" if ud else "") +
                         (" -A CMP_AND_SWAP" if key == "cas-lat" else ""), size, pt, None, ""))
        for t, (tag, _, _, _) in enumerate(tools):
            rr = runs.get((key, t), [])
            rp = median_of(rr, mkey)
            ratio, spread = None, ""
            if rp and pt:
                ratio = rp[mkey] / pt[mkey] if pt[mkey] else None
                per = [x[mkey] / y[mkey] for x, y in zip(rr, pt_runs)
                       if x and y and x.get(mkey) and y.get(mkey)]
                if per:
                    better = sum(1 for v in per if (v <= 1.0 if mode == "lat" else v >= 1.0))
                    spread = "%.2f-%.2f; rdx %s in %d/%d" % (
                        min(per), max(per), "<=" if mode == "lat" else ">=", better, len(per))
            rows.append((label, "rdx-perf%s --test %s --mode %s%s" % (
                tag, test, mode, " --transport ud" if ud else ""), size, rp, ratio, spread))
    if not a.no_qperf:
        for test, size in (("rc_rdma_write_lat", a.size), ("rc_rdma_read_lat", a.size),
                           ("rc_lat", a.size), ("rc_bw", a.bw_size)):
            log("== qperf %s (%d B)" % (test, size))
            r = qperf(test, size, a.qperf_secs)
            if r is not None:
                r["runs"] = "1/1"
            rows.append(("qperf", test, size, r, None, ""))

    print("=== TABLE BEGIN")
    print("| test | tool | size B | median us | p99 us | kind | rate Mop/s | MB/s (10^6 B/s) "
          "| rdx/perftest | per round (min-max) | runs ok |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|")
    for label, tool, size, r, ratio, spread in rows:
        if r is None:
            print("| %s | %s | %d | failed | | | | | | | 0 |" % (label, tool, size))
            continue
        ratio_s = "-" if ratio is None else "%.2f (%s)" % (ratio, "median" if r["median_us"] else "rate")
        print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, tool, size, fmt(r["median_us"]), fmt(r["p99_us"]), r["kind"],
            fmt(r["mops"], 4), fmt(r["mbs"]), ratio_s, spread or "-", r.get("runs", "")))
    print("=== TABLE END")
    print("knobs: lat -s %d -n %d; bw -s %d (UD %d) -n %d -t %d -Q %d -l %d; %d interleaved rounds; "
          "qperf %s; %s" % (
              a.size, a.iters, a.bw_size, a.ud_size, a.bw_iters, knobs["tx_depth"], knobs["cq_mod"],
              knobs["post_list"], a.rounds, "off" if a.no_qperf else "-t %d" % a.qperf_secs,
              " ".join(os.uname()[2:3])))
    if not tools:
        print("(rdx-perf not found: only perftest and qperf were run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
