#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx on DPDK telemetry, end to end: rdx-perf runs a 4-second loopback
# WRITE test on the software device in the background; a small python
# client (AF_UNIX SOCK_SEQPACKET, as dpdk-telemetry.py) queries its socket
# /var/run/dpdk/rdx-<pid>/dpdk_telemetry.v2: /rdx/info, /rdx/devs,
# /rdx/dev_list, /rdx/dev_info and /rdx/dev_xstats by name and by numeric
# id, /rdx/lcores and /rdx/lcore (rdx-perf's lcore, with its counters),
# /rdx_perf/progress, /rdx_perf/qps (per-QP counters), /rdx/qp_list and
# /rdx/qp_xstats (the library's per-QP counters) and bad parameters,
# checks the keys, that wqes and ops grow between two queries a second
# apart, and that /rdx/qp_list names the lcore that posts to each QP (lcore
# 0); then rdx-perf must exit 0 and remove its runtime directory. A second,
# 2-second run with --loopback-lcores split (the client on worker lcore 1,
# the server ends on the main lcore 0) checks /rdx/qp_list's lcores again;
# a third with 100 QPs per side (200 QPs, more than one 16-KiB reply holds)
# reads /rdx/qp_list page by page through "next": every QP once, in order.
# Never hangs: every wait is bounded, the background process is killed on
# exit.
source "$(dirname "$0")/lib.sh"

PID=
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -KILL "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

VERSION=$(sed -n 's/^#define RDX_VERSION_STR "\(.*\)"/\1/p' "$SRC/config/rdx_config.h")

# telq_common.py: what both query scripts share (imported from their
# directory): the ok/FAIL check lines, the connection, q() and the bounded
# wait for an lcore's measured phase
cat >"$TMP/telq_common.py" <<'PY'
import json, socket, sys, time

fails = 0
s = None

def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1

def connect(path):
    """Connects to the telemetry socket; returns the greeting."""
    global s
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(path)
    return json.loads(s.recv(16384).decode())

def q(cmd):
    s.send(cmd.encode())
    reply = json.loads(s.recv(65536).decode())
    return reply.get(cmd.split(",")[0], "missing")

def measuring(p, lcore):
    return isinstance(p, dict) and p.get(lcore, {}).get("measuring") == 1

def wait_measuring(lcore):
    """Waits (bounded) for the measured phase on lcore ("lcore_N");
    returns the last /rdx_perf/progress."""
    deadline = time.monotonic() + 30
    p = q("/rdx_perf/progress")
    while time.monotonic() < deadline and not measuring(p, lcore):
        time.sleep(0.1)
        p = q("/rdx_perf/progress")
    return p

def done():
    s.close()
    sys.exit(1 if fails else 0)
PY

cat >"$TMP/telq.py" <<'PY'
# usage: telq.py SOCKET PID VERSION: checks, one "ok"/"FAIL" line each
import sys, time
from telq_common import check, connect, q, measuring, wait_measuring, done

path, pid, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]

greeting = connect(path)
check(greeting.get("pid") == pid, "greeting names the rdx-perf pid")

# wait (bounded) for the measured phase of the run
p = wait_measuring("lcore_0")
check(measuring(p, "lcore_0"), "/rdx_perf/progress: the measured phase runs")

info = q("/rdx/info")
check(isinstance(info, dict) and info.get("version") == version and
      info.get("pid") == pid and info.get("tsc_hz", 0) > 0 and
      info.get("main_lcore") == 0 and info.get("worker_lcores") == [] and
      "tsc_cost_cycles" in info and info.get("devs_open") == 1,
      "/rdx/info: version %s, pid, tsc_hz, main_lcore 0, no workers: %s" % (version, info))
devs = q("/rdx/devs")
check(devs == ["sw"], "/rdx/devs: %s" % devs)
di = q("/rdx/dev_info,sw")
check(isinstance(di, dict) and di.get("software") == 1 and
      di.get("results") == "software device" and di.get("driver") == "sw",
      "/rdx/dev_info,sw: software device")
x1 = q("/rdx/dev_xstats,sw")
want = ["sw_doorbells", "sw_wqes", "sw_cqes", "dp_qp_doorbells", "dp_qp_wqes",
        "dp_cq_cqes", "qps_open", "cqs_open"]
check(isinstance(x1, dict) and all(isinstance(x1.get(k), int) for k in want),
      "/rdx/dev_xstats,sw: %s" % ", ".join(want))
p1 = q("/rdx_perf/progress")
keys = ["state", "test", "mode", "size", "qps_per_lcore", "device", "software",
        "ops", "bytes", "verify_errors", "lcore_0"]
check(isinstance(p1, dict) and all(k in p1 for k in keys) and
      p1["test"] == "write" and p1["device"] == "sw" and p1["software"] == 1 and
      p1["size"] == 8 and p1["qps_per_lcore"] == 1 and
      all(k in p1["lcore_0"] for k in ("ops", "bytes", "verify_errors", "error")),
      "/rdx_perf/progress: %s" % ", ".join(keys))
dl = q("/rdx/dev_list")
check(dl == [0], "/rdx/dev_list: %s" % dl)
check(q("/rdx/dev_info,0") == di, "/rdx/dev_info,0 is /rdx/dev_info,sw")
x0 = q("/rdx/dev_xstats,0")
check(isinstance(x0, dict) and all(isinstance(x0.get(k), int) for k in want) and
      x0.get("qps_open") == x1.get("qps_open"),
      "/rdx/dev_xstats,0 (numeric id, as /ethdev/xstats,0): the same counters")
lc = q("/rdx/lcores")
l0 = lc.get("0", {}) if isinstance(lc, dict) else {}
check(l0.get("app") == "rdx-perf" and l0.get("role") == "main" and l0.get("ops", 0) > 0 and
      l0.get("polls", 0) > 0 and l0.get("client_qps") == 1 and l0.get("server_qps") == 1,
      "/rdx/lcores under rdx-perf: lcore 0 with its ops, polls, QPs: %s" % lc)
one = q("/rdx/lcore,0")
check(isinstance(one, dict) and one.get("lcore") == 0 and one.get("app") == "rdx-perf",
      "/rdx/lcore,0: %s" % one)
qps = q("/rdx_perf/qps")
c0, s0 = (qps.get("qp0", {}), qps.get("srv0", {})) if isinstance(qps, dict) else ({}, {})
check(c0.get("role") == "client" and c0.get("posted", 0) > 0 and
      c0.get("completed", 0) > 0 and c0.get("posted", 0) >= c0.get("completed", 0) and
      c0.get("qp_num", 0) > 0 and c0.get("lcore") == 0 and s0.get("role") == "server",
      "/rdx_perf/qps: qp0 posted and completed, srv0: %s" % qps)
check(c0.get("wr_counts") == "library" and c0.get("sends", 0) > 0 and
      c0.get("send_doorbells", 0) > 0 and c0.get("wrs_error") == 0,
      "/rdx_perf/qps: WR counts from the library")
ql = q("/rdx/qp_list")
ents = list(ql.values()) if isinstance(ql, dict) else []
check(len(ents) == 2 and all(e.get("dev") == 0 and e.get("dev_name") == "sw" and
                             e.get("type") == "RC" and e.get("state") == "rts" and
                             "%d/%d" % (e["dev"], e["qp_num"]) in ql for e in ents) and
      c0.get("qp_num") in [e.get("qp_num") for e in ents],
      "/rdx/qp_list: the run's two RC QPs, connected: %s" % ql)
# rdx-perf names the lcore that posts to each QP (rdx_qp_conf.post_lcore):
# the client's, lcore 0, for both ends of the loopback pair (not -1, "none")
by_num = dict((e.get("qp_num"), e) for e in ents)
check(c0.get("lcore") == 0 and s0.get("lcore") == 0 and
      by_num.get(c0.get("qp_num"), {}).get("lcore") == c0.get("lcore") and
      by_num.get(s0.get("qp_num"), {}).get("lcore") == s0.get("lcore"),
      "/rdx/qp_list: qp0 and srv0 on lcore 0, as /rdx_perf/qps: %s" %
      ["%s: lcore %s" % (k, e.get("lcore")) for k, e in sorted(ql.items())]
      if isinstance(ql, dict) else ql)
qx1 = q("/rdx/qp_xstats,0,%d" % c0.get("qp_num", -1))
check(isinstance(qx1, dict) and qx1.get("send_wrs_posted", 0) > 0 and
      qx1.get("send_wrs_posted", 0) >= qx1.get("send_wrs_completed", -1) and
      qx1.get("send_wrs_error") == 0 and "send_bf_copies" in qx1,
      "/rdx/qp_xstats,0,<qp0>: %s" % qx1)
check(q("/rdx/qp_xstats,sw,%d" % c0.get("qp_num", -1)) is not None,
      "/rdx/qp_xstats,sw,<qp0>: by device name too")
# pages: from an index on (",<start>" for every device, "<dev>,<start>"),
# the end of a list is an empty page; both lists fit here: no "more"/"next"
keys = list(ql.keys()) if isinstance(ql, dict) else []
q1 = q("/rdx/qp_list,,1")
check(isinstance(q1, dict) and list(q1.keys()) == keys[1:2] and
      q("/rdx/qp_list,0,0") == q("/rdx/qp_list") and q("/rdx/qp_list,sw,2") == {},
      "/rdx/qp_list,,1: the second QP only (%s); ,0,0 is the whole list; ,sw,2 empty" % q1)
lp = q("/rdx/lcores,0")
check(isinstance(lp, dict) and list(lp.keys()) == ["0"] and q("/rdx/lcores,1") == {},
      "/rdx/lcores,0: lcore 0, no \"next\"; /rdx/lcores,1: empty: %s" % lp)
for bad in ("/rdx/dev_xstats,nodev", "/rdx/dev_info,nodev", "/rdx/dev_xstats",
            "/rdx/dev_xstats,1", "/rdx/dev_info,99999999", "/rdx/dev_xstats,-1",
            "/rdx/lcore,abc", "/rdx/lcore,5", "/rdx/qp_xstats", "/rdx/qp_xstats,0",
            "/rdx/qp_xstats,0,abc", "/rdx/qp_xstats,1,%d" % c0.get("qp_num", 0),
            "/rdx/qp_xstats,0,16777216", "/rdx/qp_list,3", "/rdx/qp_list,,3",
            "/rdx/qp_list,,x", "/rdx/qp_list,0,-1", "/rdx/lcores,2", "/rdx/lcores,1x"):
    r = q(bad)
    check(r is None, "%s: null (%s)" % (bad, r))

time.sleep(1)
x2 = q("/rdx/dev_xstats,sw")
p2 = q("/rdx_perf/progress")
for k in ("sw_wqes", "sw_doorbells", "dp_qp_wqes", "dp_cq_cqes"):
    check(isinstance(x2, dict) and x2.get(k, 0) > x1.get(k, 0),
          "%s grows: %s -> %s" % (k, x1.get(k), x2.get(k) if isinstance(x2, dict) else x2))
check(isinstance(p2, dict) and p2.get("ops", 0) > p1.get("ops", 0) and
      p2["lcore_0"]["bytes"] > p1["lcore_0"]["bytes"],
      "ops grow: %s -> %s" % (p1.get("ops"), p2.get("ops") if isinstance(p2, dict) else p2))
qx2 = q("/rdx/qp_xstats,0,%d" % c0.get("qp_num", -1))
for k in ("send_wrs_posted", "send_wrs_completed", "send_doorbells"):
    check(isinstance(qx2, dict) and isinstance(qx1, dict) and qx2.get(k, 0) > qx1.get(k, 0),
          "/rdx/qp_xstats %s grows: %s -> %s" % (k, qx1.get(k) if isinstance(qx1, dict) else qx1,
                                                 qx2.get(k) if isinstance(qx2, dict) else qx2))
qps2 = q("/rdx_perf/qps")
check(isinstance(qps2, dict) and qps2.get("qp0", {}).get("completed", 0) > c0.get("completed", 0),
      "/rdx_perf/qps: qp0's completions grow")
done()
PY

cat >"$TMP/telq_split.py" <<'PY'
# usage: telq_split.py SOCKET PID VERSION: --loopback-lcores split, the
# client on worker lcore 1, the server ends on the main lcore 0
import sys
from telq_common import check, connect, q, measuring, wait_measuring, done

connect(sys.argv[1])
p = wait_measuring("lcore_1")
check(measuring(p, "lcore_1"), "/rdx_perf/progress: lcore 1 measures")
qps = q("/rdx_perf/qps")
c0 = qps.get("qp0", {}) if isinstance(qps, dict) else {}
check(c0.get("role") == "client" and c0.get("lcore") == 1,
      "/rdx_perf/qps: qp0 is the client's, on lcore 1: %s" % c0)
ql = q("/rdx/qp_list")
ents = list(ql.values()) if isinstance(ql, dict) else []
cl = [e for e in ents if e.get("qp_num") == c0.get("qp_num")]
sv = [e for e in ents if e.get("qp_num") != c0.get("qp_num")]
check(len(ents) == 2 and len(cl) == 1 and cl[0].get("lcore") == 1 and
      sv[0].get("lcore") == 0,
      "/rdx/qp_list: the client's QP on lcore 1, the server end on the main lcore 0: %s" %
      ["%s: lcore %s" % (k, e.get("lcore")) for k, e in sorted(ql.items())]
      if isinstance(ql, dict) else ql)
done()
PY

cat >"$TMP/telq_many.py" <<'PY'
# usage: telq_many.py SOCKET PID VERSION: 100 QPs per side, 200 in all
import sys
from telq_common import check, connect, q, measuring, wait_measuring, done

connect(sys.argv[1])
p = wait_measuring("lcore_0")
check(measuring(p, "lcore_0"), "/rdx_perf/progress: the measured phase runs")
pages, listed, start = [], [], 0
while len(pages) < 10:
    r = q("/rdx/qp_list,,%d" % start if pages else "/rdx/qp_list")
    if not isinstance(r, dict):
        check(False, "/rdx/qp_list page %d: %s" % (len(pages), r))
        break
    ents = [k for k, v in r.items() if isinstance(v, dict)]
    pages.append((len(ents), r.get("more"), r.get("next")))
    listed += ents
    if "next" not in r:
        break
    check(r.get("next") == start + len(ents) and r.get("more", 0) > 0,
          "/rdx/qp_list from %d: %d QPs, \"more\": %s, \"next\": %s" %
          (start, len(ents), r.get("more"), r.get("next")))
    start = r["next"]
nums = [int(k.split("/")[1]) for k in listed]
check(len(pages) >= 2 and len(listed) == 200 and len(set(listed)) == 200 and
      nums == sorted(nums),
      "/rdx/qp_list through \"next\": %d pages %s, 200 QPs once each, in order" %
      (len(pages), pages))
done()
PY

# tel_run NAME SCRIPT RDX_PERF_ARGS...: rdx-perf in the background, SCRIPT
# queries its telemetry socket; then rdx-perf must end on its own (bounded
# wait) with exit 0 and remove its runtime directory
tel_run() {
    local name=$1 script=$2 _ rc rundir sock
    shift 2
    # exec: the background pid is rdx-perf's own, which names its EAL prefix
    ( exec "$PERF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ) &
    PID=$!
    rundir=/var/run/dpdk/rdx-$PID
    sock=$rundir/dpdk_telemetry.v2
    for _ in $(seq 300); do
        [ -S "$sock" ] && break
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -S "$sock" ]; then
        pass "$name: telemetry socket $sock"
        if timeout -k 5 60 python3 "$TMP/$script" "$sock" "$PID" "$VERSION" \
            >"$TMP/$name.q" 2>&1; then
            sed 's/^/  /' "$TMP/$name.q" | cut -c1-160
            pass "$name: telemetry queries"
        else
            sed 's/^/  /' "$TMP/$name.q"
            fail "$name: telemetry queries"
        fi
    else
        fail "$name: no telemetry socket $sock: $(tail -n 2 "$TMP/$name.err")"
    fi
    for _ in $(seq 600); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        fail "$name: rdx-perf still running after 60 s: killed"
        return
    fi
    wait "$PID"
    rc=$?
    PID=
    if [ "$rc" -eq 0 ]; then pass "$name: rdx-perf exit 0"
    else fail "$name: rdx-perf exit $rc: $(tail -n 2 "$TMP/$name.err")"; fi
    if [ ! -e "$rundir" ]; then pass "$name: runtime dir removed"
    else fail "$name: $rundir left behind"; fi
}

tel_run main telq.py --no-huge -l 0 -- --test write --dev sw --loopback -D 4
# the QPs' lcores (rdx_qp_conf.post_lcore) when client and server ends differ
tel_run split telq_split.py --no-huge -l 0-1 -- --test write --dev sw --loopback \
    --loopback-lcores split --sw-progress thread -D 2
# /rdx/qp_list in pages: 200 QPs
tel_run many telq_many.py --no-huge -l 0 -- --test write --dev sw --loopback -q 100 -D 2
finish
