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
    if bw:
        base += ["-t", str(knobs["tx_depth"]), "-Q", str(knobs["cq_mod"]),
                 "-l", str(knobs["post_list"])]
    rc, out, _ = run_pair(PIN_SERVER + base + ["-d", SERVER_DEV],
                          PIN_CLIENT + base + ["-d", CLIENT_DEV, OOB_HOST])
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
                return {"median_us": None, "p99_us": None, "mops": float(data[4]),
                        "mbs": float(data[3]) * 1.048576, "kind": "-"}
            # #bytes #iter t_min t_max t_typical t_avg t_stdev p99 p99.9
            kind = "RTT/2" if tool in ("ib_write_lat", "ib_send_lat") else "RTT"
            avg = float(data[5])
            return {"median_us": float(data[4]), "p99_us": float(data[7]),
                    "mops": 1.0 / avg if avg > 0 else None, "mbs": None, "kind": kind}
    log("  cannot parse %s output:\n%s" % (tool, out[-1500:]))
    return None


# ------------------------------------------------------------------ rdx-perf
def rdx_perf(exe, test, mode, size, iters, knobs, ud=False):
    port = next_port()
    tmp = tempfile.mkdtemp(prefix="rdxsbs")
    csv_path = os.path.join(tmp, "client.csv")
    # a generous bootstrap window: under TCG a process may take seconds to start
    common = ["--test", test, "--mode", mode, "-s", str(size), "-n", str(iters), "-p", port,
              "--bootstrap-timeout", "60"]
    if mode == "bw":
        common += ["-t", str(knobs["tx_depth"]), "-Q", str(knobs["cq_mod"]),
                   "-l", str(knobs["post_list"])]
    if ud:
        common += ["--transport", "ud"]
    # EAL -l: each process's poller on its own vCPU, as on two hosts
    srv = [exe, "-l", "1", "--"] + common + ["--dev", SERVER_DEV, "--server"]
    cli = [exe, "-l", "0", "--"] + common + ["--dev", CLIENT_DEV, "--connect", "%s:%s" % (OOB_HOST, port),
                                  "--csv", csv_path]
    rc, out, _ = run_pair(srv, cli, ready="waiting for a client")
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
           "mops": num("mops"), "mbs": num("mbytes_per_s"), "kind": r.get("lat_kind") or "-"}
    if mode == "bw":
        res["median_us"] = res["p99_us"] = None
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


def median_run(fn, reps, key):
    """Run fn() reps times; return the run whose `key` is the median of the
    successful ones (the whole row of one run, not a mix), or None."""
    runs = [r for r in (fn() for _ in range(reps)) if r is not None and r.get(key) is not None]
    if not runs:
        return None
    runs.sort(key=lambda r: r[key])
    best = dict(runs[(len(runs) - 1) // 2])
    best["runs"] = "%d/%d" % (len(runs), reps)
    return best


def fmt(v, digits=2):
    return "-" if v is None else ("%.*f" % (digits, v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdx-perf", default="", help="path of the rdx-perf binary ('' = skip)")
    ap.add_argument("-n", "--iters", type=int, default=1000, help="latency iterations")
    ap.add_argument("--bw-iters", type=int, default=3000, help="bandwidth iterations")
    ap.add_argument("-s", "--size", type=int, default=8, help="latency message size")
    ap.add_argument("--bw-size", type=int, default=4096, help="bandwidth message size")
    ap.add_argument("--qperf-secs", type=int, default=3)
    ap.add_argument("--ud-size", type=int, default=1024,
                    help="UD bandwidth message size (<= the MTU: 1024 on rxe over a 1500 B veth)")
    ap.add_argument("--only", choices=("all", "rc", "ud"), default="all",
                    help="rows to run: RC (and qperf), UD, or both")
    ap.add_argument("-r", "--repeat", type=int, default=3,
                    help="runs per perftest/rdx-perf row (the median run is shown)")
    a = ap.parse_args()
    if os.environ.get("RDX_GUEST") != "1":
        print("side_by_side.py runs inside the soft-RoCE guest: use tests/softroce/side-by-side.sh",
              file=sys.stderr)
        return 2
    knobs = {"tx_depth": 128, "cq_mod": 100, "post_list": 1}
    rdx = a.rdx_perf if a.rdx_perf and os.access(a.rdx_perf, os.X_OK) else ""
    # (label, perftest tool, rdx-perf test, mode, size, iters, UD)
    plan = []
    if a.only in ("all", "rc"):
        plan += [
            ("write lat", "ib_write_lat", "write", "lat", a.size, a.iters, False),
            ("read lat", "ib_read_lat", "read", "lat", a.size, a.iters, False),
            ("send lat", "ib_send_lat", "send", "lat", a.size, a.iters, False),
            ("atomic (FAA) lat", "ib_atomic_lat", "faa", "lat", 8, a.iters, False),
            ("write bw", "ib_write_bw", "write", "bw", a.bw_size, a.bw_iters, False),
            ("read bw", "ib_read_bw", "read", "bw", a.bw_size, a.bw_iters, False),
        ]
    if a.only in ("all", "ud"):
        # echo over UD has no perftest counterpart: rdx-perf alone (tool None)
        plan += [
            ("send lat UD", "ib_send_lat", "send", "lat", a.size, a.iters, True),
            ("send bw UD", "ib_send_bw", "send", "bw", a.ud_size, a.bw_iters, True),
            ("echo lat UD", None, "echo", "lat", a.size, a.iters, True),
        ]
    rows = []
    for label, tool, test, mode, size, iters, ud in plan:
        log("== %s (%d B, %d iterations)" % (label, size, iters))
        key = "median_us" if mode == "lat" else "mops"
        pt = None
        if tool is not None:
            pt = median_run(lambda: perftest(tool, size, iters, mode == "bw", knobs, ud), a.repeat,
                            key)
            rows.append((label, tool + (" -c UD" if ud else ""), size, pt, None))
        if rdx:
            rp = median_run(lambda: rdx_perf(rdx, test, mode, size, iters, knobs, ud), a.repeat,
                            key)
            ratio = None
            if rp and pt:
                if mode == "lat" and rp["median_us"] and pt["median_us"]:
                    ratio = rp["median_us"] / pt["median_us"]
                elif mode == "bw" and rp["mops"] and pt["mops"]:
                    ratio = rp["mops"] / pt["mops"]
            rows.append((label, "rdx-perf --test %s --mode %s%s" % (
                test, mode, " --transport ud" if ud else ""), size, rp, ratio))
    for test, size in [] if a.only == "ud" else (("rc_rdma_write_lat", a.size), ("rc_rdma_read_lat", a.size),
                       ("rc_lat", a.size), ("rc_bw", a.bw_size)):
        log("== qperf %s (%d B)" % (test, size))
        r = qperf(test, size, a.qperf_secs)
        if r is not None:
            r["runs"] = "1/1"
        rows.append(("qperf", test, size, r, None))

    print("=== TABLE BEGIN")
    print("| test | tool | size B | median us | p99 us | kind | rate Mops/s | MB/s (10^6 B/s) | rdx/perftest | runs ok |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for label, tool, size, r, ratio in rows:
        if r is None:
            print("| %s | %s | %d | failed | | | | | | 0 |" % (label, tool, size))
            continue
        ratio_s = "-" if ratio is None else "%.2f (%s)" % (ratio, "median" if r["median_us"] else "rate")
        print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            label, tool, size, fmt(r["median_us"]), fmt(r["p99_us"]), r["kind"],
            fmt(r["mops"], 4), fmt(r["mbs"]), ratio_s, r.get("runs", "")))
    print("=== TABLE END")
    print("knobs: lat -s %d -n %d; bw -s %d -n %d -t %d -Q %d -l %d; %d runs per row; qperf -t %d; %s" % (
        a.size, a.iters, a.bw_size, a.bw_iters, knobs["tx_depth"], knobs["cq_mod"], knobs["post_list"],
        a.repeat, a.qperf_secs, " ".join(os.uname()[2:3])))
    if not rdx:
        print("(rdx-perf not found: only perftest and qperf were run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
