#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# User-space instructions per op of a latency client, rdx-perf beside
# perftest, inside the soft-RoCE guest (a measurement, not a pass/fail test;
# doc/perf.md "Interleaved rounds"):
#
#   RDX_SOFTROCE_KEEP=1 tests/softroce/guest-run.sh \
#       "bash tests/softroce/lat_callgrind.sh RDX_PERF [ITERS] [TEST]" 1800
#
# For TEST (write, default; read; send) the server runs natively on vCPU 1
# (rxe1) and the client under `valgrind --tool=callgrind` on vCPU 0 (rxe0):
# rdx-perf --test TEST --mode lat -s 8 -n ITERS (plus its warm-up ops), then
# ib_TEST_lat -s 8 -n ITERS. The callgrind files land in the exchange folder
# ($RDX_XCHG, kept by RDX_SOFTROCE_KEEP=1) as rdx.<TEST>.cg and
# pt.<TEST>.cg; read them with callgrind_annotate --inclusive=yes and
# --tree=caller (calls per function). Instruction counts do not depend on
# the host's load, unlike every timing under TCG.
set -uo pipefail
P=${1:?usage: lat_callgrind.sh RDX_PERF [ITERS] [write|read|send]}
N=${2:-1000}
TEST=${3:-write}
[ -x "$P" ] || { echo "lat_callgrind: no executable $P" >&2; exit 2; }
[[ "$N" =~ ^[0-9]+$ ]] || { echo "lat_callgrind: ITERS is a number" >&2; exit 2; }
case $TEST in write|read|send) ;; *) echo "lat_callgrind: TEST is write, read or send" >&2; exit 2 ;; esac
if [ ! -e /sys/class/infiniband/rxe0 ] || [ -z "${RDX_XCHG:-}" ]; then
    echo "lat_callgrind: no RDMA device or exchange folder: run it through tests/softroce/guest-run.sh"
    exit 77
fi
command -v valgrind >/dev/null || { echo "lat_callgrind: valgrind is not installed"; exit 77; }
T=$RDX_XCHG
port=19900

wait_listen() { # file, pid
    local i
    for i in $(seq 1200); do
        grep -q "waiting for a client" "$1" 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

port=$((port + 1))
a=(--test "$TEST" --mode lat -s 8 -n "$N" -p "$port" --bootstrap-timeout 300)
taskset -c 1 "$P" -l 1 -- "${a[@]}" --server --dev rxe1 >"$T/rdx.$TEST.s" 2>&1 &
spid=$!
wait_listen "$T/rdx.$TEST.s" "$spid"
taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$T/rdx.$TEST.cg" \
    "$P" -l 0 -- "${a[@]}" --dev rxe0 --connect "127.0.0.1:$port" >"$T/rdx.$TEST.c" 2>&1
echo "rdx-perf $TEST lat under callgrind: exit $?"
wait "$spid"

port=$((port + 1))
b=(-x 1 -F -p "$port" -s 8 -n "$N")
taskset -c 1 "ib_${TEST}_lat" "${b[@]}" -d rxe1 >"$T/pt.$TEST.s" 2>&1 &
spid=$!
sleep 3
taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$T/pt.$TEST.cg" \
    "ib_${TEST}_lat" "${b[@]}" -d rxe0 127.0.0.1 >"$T/pt.$TEST.c" 2>&1
echo "ib_${TEST}_lat under callgrind: exit $?"
wait "$spid"
ls -l "$T"/*.cg
