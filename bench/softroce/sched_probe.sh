#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where the guest's softirq time goes during a latency run: rdx-perf beside
# perftest, inside the soft-RoCE guest (a measurement, not a pass/fail test;
# doc/perf.md "softirq wait"):
#
#   tests/softroce/guest-run.sh "bash bench/softroce/sched_probe.sh RDX_PERF [TEST] [N1 N2]" 1800
#
# For TEST (write, default; send; read; faa) and each iteration count N1
# (default 1000) and N2 (default 10000), both tools run as tests/softroce/side_by_side.py
# runs them (server on vCPU 1, client on vCPU 0); rdx-perf once more with
# the EAL flag --no-telemetry. Per run it prints the time each ksoftirqd
# thread waited runnable (/proc/PID/schedstat, field 2) split at the moment
# the server is ready (before: the server's start-up) and the client's
# start, plus the NET_RX and TASKLET softirqs per CPU (/proc/softirqs)
# raised during the client's run. Once per tool, 1 s into the client's run:
# every thread of both processes with its scheduling class, priority, nice
# value, CPU affinity and the CPU it last ran on (ps -L).
# RDX_PROBE_STEADY=N (N iterations, e.g. 100000) runs instead one long run
# per tool and samples the counters every 0.5 s while the client runs: per
# interval the ksoftirqd wait, NET_RX (one per op and CPU on rxe's
# loopback: the op rate) and TASKLET softirqs; printed is the median over
# the intervals (start-up and teardown intervals are not the median).
set -uo pipefail
P=${1:?usage: sched_probe.sh RDX_PERF [write|send|read|faa] [N1 N2]}
TEST=${2:-write}
N1=${3:-1000}
N2=${4:-10000}
[ -x "$P" ] || { echo "sched_probe: no executable $P" >&2; exit 2; }
case $TEST in write|send|read|faa) ;; *) echo "sched_probe: TEST is write, send, read or faa" >&2; exit 2 ;; esac
for n in "$N1" "$N2"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "sched_probe: iteration counts are numbers" >&2; exit 2; }
done
if [ ! -e /sys/class/infiniband/rxe0 ]; then
    echo "sched_probe: no RDMA device: run it through tests/softroce/guest-run.sh"
    exit 77
fi
port=${RDX_PROBE_PORT:-19700}
tmp=$(mktemp -d /tmp/rdxprobe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# probe_ksoftirqd (ksoftirqd/0 and /1 waited-runnable ns: "w0 w1"),
# probe_softirqs (NET_RX and TASKLET of CPU0 CPU1: "rx0 rx1 t0 t1"),
# probe_wait_ready
. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"
threads() { # pid label
    echo "  threads of $2 (pid $1):"
    ps -L -o tid=,cls=,rtprio=,ni=,psr=,comm= -p "$1" | while read -r tid cls rt ni psr comm; do
        echo "    tid $tid $comm class $cls rtprio $rt nice $ni last-cpu $psr affinity $(taskset -pc "$tid" 2>/dev/null | sed 's/.*: //')"
    done
}
run() { # kind(rdx|pt) n label show-threads extra...
    local kind=$1 n=$2 label=$3 show=$4 spid cpid k0 k1 k2 s1 s2
    shift 4
    port=$((port + 1))
    k0=$(probe_ksoftirqd)
    if [ "$kind" = rdx ]; then
        local a=(--test "$TEST" --mode lat -s 8 -n "$n" -p "$port" --bootstrap-timeout 60)
        taskset -c 1 "$P" -l 1 "$@" -- "${a[@]}" --server --dev rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" rdx
        k1=$(probe_ksoftirqd); s1=$(probe_softirqs)
        taskset -c 0 "$P" -l 0 "$@" -- "${a[@]}" --dev rxe0 --connect "127.0.0.1:$port" >"$tmp/c" 2>&1 &
        cpid=$!
    else
        local tool="ib_${TEST}_lat" b=(-x 1 -F -p "$port" -s 8 -n "$n")
        [ "$TEST" = faa ] && { tool=ib_atomic_lat; b+=(-A FETCH_AND_ADD); }
        taskset -c 1 "$tool" "${b[@]}" -d rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" pt
        k1=$(probe_ksoftirqd); s1=$(probe_softirqs)
        taskset -c 0 "$tool" "${b[@]}" -d rxe0 127.0.0.1 >"$tmp/c" 2>&1 &
        cpid=$!
    fi
    if [ "$show" = 1 ]; then
        sleep 1
        threads "$spid" "$label server"
        threads "$cpid" "$label client"
    fi
    wait "$cpid"
    local crc=$?
    wait "$spid"
    k2=$(probe_ksoftirqd); s2=$(probe_softirqs)
    read -r a0 a1 <<<"$k0"; read -r b0 b1 <<<"$k1"; read -r c0 c1 <<<"$k2"
    read -r r0 r1 t0 t1 <<<"$s1"; read -r R0 R1 T0 T1 <<<"$s2"
    printf '%-28s n %6d exit %d | ksoftirqd waited ms: start-up cpu0 %.2f cpu1 %.2f, run cpu0 %.2f cpu1 %.2f | run softirqs NET_RX %d/%d TASKLET %d/%d\n' \
        "$label" "$n" "$crc" "$(((b0 - a0) / 10000))e-2" "$(((b1 - a1) / 10000))e-2" \
        "$(((c0 - b0) / 10000))e-2" "$(((c1 - b1) / 10000))e-2" \
        $((R0 - r0)) $((R1 - r1)) $((T0 - t0)) $((T1 - t1))
    [ "$crc" = 0 ] || tail -5 "$tmp/c"
}

# rxe's own counters (ports/1/hw_counters: deferred acks, retries,
# duplicates, sequence errors...) of both devices, "dev.name value" lines
hwc() {
    local f
    for f in /sys/class/infiniband/rxe[01]/ports/1/hw_counters/*; do
        [ -f "$f" ] && echo "$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$f")")")")").$(basename "$f") $(cat "$f")"
    done
}
# what changed between two hwc snapshots (files)
hwc_delta() {
    awk 'NR == FNR { a[$1] = $2; next } ($2 - a[$1]) != 0 { printf " %s +%d", $1, $2 - a[$1] }' "$1" "$2"
}
# one sample: "t_ns w0 w1 rx0 rx1 t0 t1"
sample() { echo "$(date +%s%N) $(probe_ksoftirqd) $(probe_softirqs)"; }
steady() { # kind label extra...
    local kind=$1 label=$2 spid cpid n=$RDX_PROBE_STEADY
    shift 2
    port=$((port + 1))
    if [ "$kind" = rdx ]; then
        local a=(--test "$TEST" --mode lat -s 8 -n "$n" -p "$port" --bootstrap-timeout 60)
        taskset -c 1 "$P" -l 1 "$@" -- "${a[@]}" --server --dev rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" rdx
        taskset -c 0 "$P" -l 0 "$@" -- "${a[@]}" --dev rxe0 --connect "127.0.0.1:$port" >"$tmp/c" 2>&1 &
        cpid=$!
    else
        local tool="ib_${TEST}_lat" b=(-x 1 -F -p "$port" -s 8 -n "$n")
        [ "$TEST" = faa ] && { tool=ib_atomic_lat; b+=(-A FETCH_AND_ADD); }
        taskset -c 1 "$tool" "${b[@]}" -d rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" pt
        taskset -c 0 "$tool" "${b[@]}" -d rxe0 127.0.0.1 >"$tmp/c" 2>&1 &
        cpid=$!
    fi
    : >"$tmp/samples"
    hwc >"$tmp/h0"
    while kill -0 "$cpid" 2>/dev/null; do
        sample >>"$tmp/samples"
        sleep 0.5
    done
    wait "$cpid"
    local crc=$?
    sample >>"$tmp/samples" # the last interval (a run shorter than 0.5 s has only this one)
    wait "$spid"
    hwc >"$tmp/h1"
    echo "$label: rxe counters changed:$(hwc_delta "$tmp/h0" "$tmp/h1")"
    # per interval: ops/s from NET_RX of cpu0; ksoftirqd wait ms/s; tasklets/s
    awk -v label="$label" -v crc="$crc" '
        NR > 1 { dt = ($1 - t) / 1e9; if (dt > 0 && $4 - r0 > 0) {
                     k++; rate[k] = ($4 - r0) / dt; w[k] = (($2 - w0) + ($3 - w1)) / 1e6 / dt;
                     tl[k] = (($6 - t0) + ($7 - t1)) / dt } }
        { t = $1; w0 = $2; w1 = $3; r0 = $4; t0 = $6; t1 = $7 }
        function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i];
                     for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                 return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0 }
        END { printf "%-28s steady exit %d | %d busy intervals of 0.5 s, medians: NET_RX/s cpu0 %.0f (us per op %.2f) ksoftirqd waited ms/s %.2f TASKLET/s %.1f\n",
                     label, crc, k, med(rate, k), (med(rate, k) > 0 ? 1e6 / med(rate, k) : 0),
                     med(w, k), med(tl, k) }' "$tmp/samples"
    [ "$crc" = 0 ] || tail -5 "$tmp/c"
}

echo "sched_probe: $TEST lat; kernel $(uname -r); $(nproc) vCPUs"
if [ -n "${RDX_PROBE_STEADY:-}" ]; then
    [[ "$RDX_PROBE_STEADY" =~ ^[1-9][0-9]*$ ]] || { echo "sched_probe: RDX_PROBE_STEADY is a number" >&2; exit 2; }
    for r in 1 2; do
        steady rdx "rdx-perf"
        steady pt "perftest"
        steady rdx "rdx-perf --no-telemetry" --no-telemetry
    done
    exit 0
fi
run rdx "$N1" "rdx-perf" 1
run pt "$N1" "perftest" 1
run rdx "$N1" "rdx-perf --no-telemetry" 1 --no-telemetry
for n in "$N1" "$N2"; do
    run rdx "$n" "rdx-perf" 0
    run pt "$n" "perftest" 0
    run rdx "$n" "rdx-perf --no-telemetry" 0 --no-telemetry
done
