#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Latency run by run, perftest beside rdx-perf, inside the soft-RoCE guest
# (a measurement, not a pass/fail test; doc/perf.md "Five interleaved
# rounds on a quiet host"): a plain shell loop, no Python harness, so that
# a mode that depends on the harness would show. Per run it prints the
# run's median (t_typical of the perftest-style table both tools print),
# and what the run cost the guest: ksoftirqd/0 and /1 waited-runnable time
# and time slices (/proc/PID/schedstat), NET_RX and TASKLET softirqs per
# CPU (/proc/softirqs) and context switches (/proc/stat ctxt), counted
# from the server's readiness to the client's exit.
#
#   tests/softroce/guest-run.sh "bash bench/softroce/lat_modes.sh RDX_PERF [TEST] [ROUNDS] [ITERS]" 900
#
# TEST: write (default), send, read or faa; ROUNDS (default 10) of one
# perftest run and one rdx-perf run (perftest first in odd rounds), 8 B, -n ITERS (default 1000, as
# tests/softroce/side_by_side.py: a run of ~40 ms); servers on vCPU 1 and
# clients on vCPU 0 (taskset for perftest, EAL -l for rdx-perf), as
# tests/softroce/side_by_side.py runs them. Exit 77 outside the guest.
set -uo pipefail
P=${1:?usage: lat_modes.sh RDX_PERF [write|send|read|faa] [ROUNDS] [ITERS]}
TEST=${2:-write}
R=${3:-10}
N=${4:-1000}
[ -x "$P" ] || { echo "lat_modes: no executable $P" >&2; exit 2; }
case $TEST in write|send|read|faa) ;; *) echo "lat_modes: TEST is write, send, read or faa" >&2; exit 2 ;; esac
[[ "$R" =~ ^[1-9][0-9]*$ ]] || { echo "lat_modes: ROUNDS is a positive number, not '$R'" >&2; exit 2; }
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "lat_modes: ITERS is a positive number, not '$N'" >&2; exit 2; }
# probe_need_rxe, probe_median, probe_wait_ready (and the counters)
. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"
probe_need_rxe lat_modes
tmp=$(mktemp -d /tmp/rdxmodes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
port=${RDX_MODES_PORT:-19800}

# "w0 w1 n0 n1 rx0 rx1 t0 t1 ctxt": ksoftirqd waited ns and time slices per
# CPU, softirqs, context switches
counters() {
    echo "$(probe_ksoftirqd 2) $(probe_ksoftirqd 3) $(probe_softirqs) $(awk '$1 == "ctxt" { print $2 }' /proc/stat)"
}

one() { # rdx-perf | perftest
    local kind=$1 spid crc a b
    port=$((port + 1))
    if [ "$kind" = rdx-perf ]; then
        local o=(--test "$TEST" --mode lat -s 8 -n "$N" -p "$port" --bootstrap-timeout 60)
        timeout -k 5 120 "$P" -l 1 -- "${o[@]}" --server --dev rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" "${kind%-perf}"
        a=$(counters)
        timeout -k 5 120 "$P" -l 0 -- "${o[@]}" --dev rxe0 --connect "127.0.0.1:$port" >"$tmp/c" 2>&1
        crc=$?
    else
        local tool="ib_${TEST}_lat" o=(-x 1 -F -p "$port" -s 8 -n "$N")
        [ "$TEST" = faa ] && { tool=ib_atomic_lat; o+=(-A FETCH_AND_ADD); }
        timeout -k 5 120 taskset -c 1 "$tool" "${o[@]}" -d rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" "${kind%-perf}"
        a=$(counters)
        timeout -k 5 120 taskset -c 0 "$tool" "${o[@]}" -d rxe0 127.0.0.1 >"$tmp/c" 2>&1
        crc=$?
    fi
    b=$(counters)
    wait "$spid"
    read -r -a A <<<"$a"
    read -r -a B <<<"$b"
    printf '%-8s median %6s us exit %d | ksoftirqd cpu0 %6.2f ms %4d slices, cpu1 %6.2f ms %4d slices | NET_RX %5d/%5d TASKLET %4d/%4d | ctxt %d\n' \
        "$kind" "$(probe_median "$tmp/c")" "$crc" \
        "$(((B[0] - A[0]) / 10000))e-2" $((B[2] - A[2])) "$(((B[1] - A[1]) / 10000))e-2" $((B[3] - A[3])) \
        $((B[4] - A[4])) $((B[5] - A[5])) $((B[6] - A[6])) $((B[7] - A[7])) $((B[8] - A[8]))
}

echo "lat_modes: $TEST lat, 8 B, -n $N, $R rounds; kernel $(uname -r); $(nproc) vCPUs"
# who goes first alternates: a run after an rdx-perf run can be slower than
# one after perftest, for either tool (doc/perf.md, "What the write-lat gap
# is not"); so each tool follows each tool in half of the rounds
for i in $(seq "$R"); do
    if [ $((i % 2)) = 1 ]; then
        one perftest
        one rdx-perf
    else
        one rdx-perf
        one perftest
    fi
done
