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
# checks the keys, and that wqes and ops grow between two queries a second
# apart; then rdx-perf must exit 0 and remove its runtime directory.
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

cat >"$TMP/telq.py" <<'PY'
# usage: telq.py SOCKET PID VERSION: checks, one "ok"/"FAIL" line each
import json, socket, sys, time

path, pid, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fails = 0

def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1

s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
s.connect(path)
greeting = json.loads(s.recv(16384).decode())
check(greeting.get("pid") == pid, "greeting names the rdx-perf pid")

def q(cmd):
    s.send(cmd.encode())
    reply = json.loads(s.recv(65536).decode())
    return reply.get(cmd.split(",")[0], "missing")

# wait (bounded) for the measured phase of the run
deadline = time.monotonic() + 30
p = q("/rdx_perf/progress")
while time.monotonic() < deadline and not (
        isinstance(p, dict) and p.get("lcore_0", {}).get("measuring") == 1):
    time.sleep(0.1)
    p = q("/rdx_perf/progress")
check(isinstance(p, dict) and p.get("lcore_0", {}).get("measuring") == 1,
      "/rdx_perf/progress: the measured phase runs")

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
qx1 = q("/rdx/qp_xstats,0,%d" % c0.get("qp_num", -1))
check(isinstance(qx1, dict) and qx1.get("send_wrs_posted", 0) > 0 and
      qx1.get("send_wrs_posted", 0) >= qx1.get("send_wrs_completed", -1) and
      qx1.get("send_wrs_error") == 0 and "send_bf_copies" in qx1,
      "/rdx/qp_xstats,0,<qp0>: %s" % qx1)
check(q("/rdx/qp_xstats,sw,%d" % c0.get("qp_num", -1)) is not None,
      "/rdx/qp_xstats,sw,<qp0>: by device name too")
for bad in ("/rdx/dev_xstats,nodev", "/rdx/dev_info,nodev", "/rdx/dev_xstats",
            "/rdx/dev_xstats,1", "/rdx/dev_info,99999999", "/rdx/dev_xstats,-1",
            "/rdx/lcore,abc", "/rdx/lcore,5", "/rdx/qp_xstats", "/rdx/qp_xstats,0",
            "/rdx/qp_xstats,0,abc", "/rdx/qp_xstats,1,%d" % c0.get("qp_num", 0),
            "/rdx/qp_xstats,0,16777216", "/rdx/qp_list,3"):
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
s.close()
sys.exit(1 if fails else 0)
PY

# exec: the background pid is rdx-perf's own, which names its EAL prefix
( exec "$PERF" --no-huge -l 0 -- --test write --dev sw --loopback -D 4 \
    >"$TMP/perf.out" 2>"$TMP/perf.err" ) &
PID=$!
RUNDIR=/var/run/dpdk/rdx-$PID
SOCK=$RUNDIR/dpdk_telemetry.v2
for _ in $(seq 300); do
    [ -S "$SOCK" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
if [ -S "$SOCK" ]; then
    pass "telemetry socket $SOCK"
    if timeout -k 5 60 python3 "$TMP/telq.py" "$SOCK" "$PID" "$VERSION" >"$TMP/telq.out" 2>&1; then
        sed 's/^/  /' "$TMP/telq.out" | cut -c1-160
        pass "telemetry queries"
    else
        sed 's/^/  /' "$TMP/telq.out"
        fail "telemetry queries"
    fi
else
    fail "no telemetry socket $SOCK: $(tail -n 2 "$TMP/perf.err")"
fi

# rdx-perf ends on its own (bounded wait), exit 0, runtime dir removed
for _ in $(seq 600); do
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$PID" 2>/dev/null; then
    fail "rdx-perf still running after 60 s: killed"
else
    wait "$PID"
    RC=$?
    PID=
    if [ "$RC" -eq 0 ]; then pass "rdx-perf exit 0"; else fail "rdx-perf exit $RC: $(tail -n 2 "$TMP/perf.err")"; fi
    if [ ! -e "$RUNDIR" ]; then pass "runtime dir removed"; else fail "$RUNDIR left behind"; fi
fi
finish
