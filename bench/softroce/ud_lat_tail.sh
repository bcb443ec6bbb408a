#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where a UD ping-pong's latency tail comes from, inside the soft-RoCE guest
# (a diagnosis, not a pass/fail test; doc/perf.md "UD rows"):
#
#   tests/softroce/guest-run.sh "bash bench/softroce/ud_lat_tail.sh RDX_PERF [ROUNDS] [ITERS]" 1800
#
# Interleaves, ROUNDS times (default 5): rdx-perf --test send --mode lat
# --transport ud (busy polling), the same with -e (completion events: the
# client sleeps on its CQ), and ib_send_lat -c UD; same pinning as
# tests/softroce/side_by_side.py (servers on vCPU 1 / rxe1, clients on vCPU 0 / rxe0).
# For each run it prints the median, p99 and max, and, from rdx-perf's
# per-WR log (-o), how many ops took more than 1 ms, whether those are
# periodic (a send queue of 64 WRs filling would stall every 64 ops), and
# whether the client ever waited more than 1 ms between an answer and its
# next request (a stall on send-queue room or the receive refill would show
# there, outside the op); plus how long the ksoftirqd threads waited
# runnable during the run (/proc/PID/schedstat).
set -uo pipefail
P=${1:?usage: ud_lat_tail.sh RDX_PERF [ROUNDS] [ITERS]}
ROUNDS=${2:-5}
ITERS=${3:-1000}
[ -x "$P" ] || { echo "ud_lat_tail: no executable $P" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[0-9]+$ && "$ITERS" =~ ^[0-9]+$ ]] ||
    { echo "ud_lat_tail: ROUNDS and ITERS are numbers" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "ud_lat_tail: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
T=$(mktemp -d /tmp/udtail.XXXXXX)
trap 'rm -rf "$T"' EXIT
port=19800

ksirq_ns() { # run-queue wait of every ksoftirqd thread, summed (ns)
    local f t=0 v
    for f in /proc/[0-9]*/comm; do
        grep -q '^ksoftirqd/' "$f" 2>/dev/null || continue
        v=$(cut -d' ' -f2 "${f%comm}schedstat" 2>/dev/null) && t=$((t + v))
    done
    echo "$t"
}

. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"   # guest_wait_listen

rdx() { # label, extra rdx-perf options...
    local label=$1 k0 k1; shift
    port=$((port + 1))
    local a=(--test send --mode lat --transport ud -s 8 -n "$ITERS" -p "$port" --bootstrap-timeout 60 "$@")
    "$P" -l 1 -- "${a[@]}" --server --dev rxe1 >"$T/s.out" 2>&1 &
    local spid=$!
    guest_wait_listen "$T/s.out" "$spid"
    k0=$(ksirq_ns)
    "$P" -l 0 -- "${a[@]}" --dev rxe0 --connect "127.0.0.1:$port" -o "$T/log" >"$T/c.out" 2>&1
    local rc=$?
    k1=$(ksirq_ns)
    wait "$spid"
    if [ "$rc" -ne 0 ] || [ ! -s "$T/log" ]; then
        echo "$label: FAILED (exit $rc)"; tail -5 "$T/c.out"; return
    fi
    python3 - "$label" "$T/log" "$(( (k1 - k0) / 1000 ))" <<'PY'
import sys
label, path, ksirq_us = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [l.split() for l in open(path) if not l.startswith("#")]
ops = [(int(r[2]), int(r[3])) for r in rows if int(r[3]) != 0]
lat = sorted((d - p) / 2e3 for p, d in ops)  # half round trip, us
n = len(lat)
slow = [i for i, (p, d) in enumerate(ops) if d - p > 2e6]  # half round trip > 1 ms
gaps = [(ops[i + 1][0] - ops[i][1]) / 1e3 for i in range(n - 1)]
per = sorted(set(b - a for a, b in zip(slow, slow[1:])))
print("%-22s n %4d median %8.1f p99 %8.1f max %8.1f us (half RTT); ops > 1 ms: %3d; "
      "their spacing in ops: %s; answer->next request > 1 ms: %d (max %.1f us); "
      "ksoftirqd waited %.1f ms" % (
          label, n, lat[n // 2], lat[min(n - 1, n * 99 // 100)], lat[-1], len(slow),
          ",".join(map(str, per[:8])) or "-", sum(1 for g in gaps if g > 1e3),
          max(gaps) if gaps else 0.0, ksirq_us / 1e3))
PY
}

perftest() { # label, extra ib_send_lat options...
    local label=$1 k0 k1; shift
    port=$((port + 1))
    local a=(-x 1 -F -p "$port" -s 8 -n "$ITERS" -c UD "$@")
    taskset -c 1 ib_send_lat "${a[@]}" -d rxe1 >"$T/ps.out" 2>&1 &
    local spid=$!
    sleep 2
    k0=$(ksirq_ns)
    taskset -c 0 ib_send_lat "${a[@]}" -d rxe0 127.0.0.1 >"$T/pc.out" 2>&1
    k1=$(ksirq_ns)
    wait "$spid"
    # #bytes #iter t_min t_max t_typical t_avg t_stdev p99 p99.9
    awk -v l="$label" -v k="$(( (k1 - k0) / 1000 ))" '/^ *#bytes/ { getline;
        printf "%-22s n %4d median %8.1f p99 %8.1f max %8.1f us (RTT/2); ksoftirqd waited %.1f ms\n",
        l, $2, $5, $8, $4, k / 1000; ok = 1 } END { if (!ok) print l ": FAILED" }' "$T/pc.out"
}

echo "ud_lat_tail: $ROUNDS rounds of $ITERS iterations, $(uname -r), $(nproc) vCPUs"
for r in $(seq "$ROUNDS"); do
    echo "-- round $r"
    if [ $((r % 2)) -eq 1 ]; then
        rdx "rdx-perf" ; rdx "rdx-perf -e" -e ; perftest "ib_send_lat -c UD"
    else
        perftest "ib_send_lat -c UD" ; rdx "rdx-perf -e" -e ; rdx "rdx-perf"
    fi
done
