#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions per call of lib/rpc, counted by callgrind (deterministic;
# these VMs have no hardware counters): build/tests/unit/rpc/rdx_rpc_bench
# runs 8-byte echo calls between two endpoints on two software devices,
# both ends in one thread, closed loop, under
# valgrind --tool=callgrind --toggle-collect=bench_run, for each transport
# (infrc, basic+infud, homa+infud) at depth 1 and 8 (calls in flight per
# session) with 1 and 64 sessions per endpoint. Each row splits the
# instructions of both ends per call into
#   model  = the software device's model, what a NIC does in hardware: the
#            inclusive cost of sw_engine_progress (what it calls too, e.g.
#            the memcpy of a payload) plus the self cost of the device ops
#            that wrap the driver (sw_post_burst, sw_cq_poll_inline)
#   rest   = total - model: what a host CPU spends on a NIC, itself split by
#            the source file of each function (self cost; what is inlined
#            into a function counts with it):
#              rpc    lib/rpc
#              driver drivers/mlx5 outside drivers/mlx5/sw (the WQE
#                     builders, the CQ poll, the receive post)
#              other  the remainder: libc (memcpy), DPDK, lib/ dispatch
#                     headers, the benchmark's own loop and continuation
#
# usage: bench/rpc_cost.sh [BUILD_DIR] [CALLS]
#   BUILD_DIR  meson build dir (default: build; set up if missing)
#   CALLS      calls per row (default 5000; at most 1000000: a call takes
#              ~20 us under callgrind on the 2-core VM, so 20 s a row at
#              the bound)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/rpc_cost.sh [BUILD_DIR] [CALLS]"
bench_usage "$usage" "${1-}"
bench_maxargs 2 "$usage" "$@"
build=${1:-build}
calls=${2:-5000}
bench_posint CALLS "$calls" 1000000 "about 20 s a row under callgrind; default 5000"
command -v valgrind >/dev/null 2>&1 || bench_fail "valgrind not installed (apt-get install valgrind)"
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
ninja -C "$build" tests/unit/rpc/rdx_rpc_bench >/dev/null
bin=$build/tests/unit/rpc/rdx_rpc_bench

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# fn_cost ANNOTATE_OUT FUNCTION: the cost of FUNCTION (0 if absent), the
# largest line whose function is exactly FUNCTION (callgrind_annotate lists
# it once per file its code is filed under; the compile unit's line holds
# the whole inclusive cost)
fn_cost() {
    awk -v f="$2" 'BEGIN { m = 0 }
        $0 ~ ("^ *[0-9,]+ .*:" f "( \\[|$)") { v = $1; gsub(",", "", v); if (v + 0 > m) m = v + 0 }
        END { printf "%.0f\n", m }' "$1"
}

# row TRANSPORT DEPTH SESSIONS
row() {
    t=$1 d=$2 s=$3
    out=$tmp/cg.$t.$d.$s
    # 8 slots per session (the default); infrc with 64 sessions: as many
    # as the depth (each slot holds five max_msg_size (1 MiB) buffers and
    # each session eight more: 64 sessions of 8 slots do not fit the
    # device's memory, and that row is left out). UD with 64 sessions:
    # queue_depth 2048, room
    # for every packet in flight (the default 256 drops requests at depth
    # 8). -R: an RTO far above a call's time under callgrind, so that no
    # retransmission is counted (the bench prints the count: column retx)
    slots=8 qd=0
    if [ "$s" -gt 1 ]; then
        if [ "$t" = infrc ]; then
            slots=$d
            if [ "$d" -gt 1 ]; then
                printf "%-12s %5d %8d %8s (64 sessions x 48 buffers of 1 MiB: more than the device's memory)\n" \
                    "$t" "$d" "$s" n/a
                return 0
            fi
        else
            qd=2048
        fi
    fi
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=bench_run \
        "$bin" -t "$t" -n "$calls" -d "$d" -S "$s" -s "$slots" -Q "$qd" -q 8 -r 8 -R 1000000 \
        >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    n=$(sed -n 's/^  completed \([0-9]*\) ok \([0-9]*\) .*/\1 \2/p' "$tmp/out")
    retx=$(sed -n 's/.* retransmits \([0-9.]*\) .*/\1/p' "$tmp/out")
    set -- $n
    if [ "${1:-0}" != "$calls" ] || [ "${2:-0}" != "$calls" ]; then
        echo "rpc_cost.sh: $t -d $d -S $s: not all $calls calls completed:" >&2
        cat "$tmp/out" >&2
        exit 1
    fi
    callgrind_annotate --inclusive=yes "$out" >"$tmp/incl" 2>/dev/null
    callgrind_annotate --inclusive=no --threshold=100 --auto=no "$out" >"$tmp/self" 2>/dev/null
    total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$tmp/self")
    eng=$(fn_cost "$tmp/incl" sw_engine_progress)
    glue=$(( $(fn_cost "$tmp/self" sw_post_burst) + $(fn_cost "$tmp/self" sw_cq_poll_inline) ))
    # self cost by function, each function filed under the source file of
    # its compile unit (the lines of headers inlined into it count with it)
    read -r s_rpc s_drv <<EOF_SELF
$(awk '/^ *[0-9,]+ / && /:/ { v = $1; gsub(",", "", v); f = $0
        sub(/^ *[0-9,]+ (\([ 0-9.%]*\) )? */, "", f)
        fn = f; sub(/^.*:/, "", fn); sub(/ \[.*$/, "", fn)
        cost[fn] += v
        if (f ~ /\/lib\/rpc\//) where[fn] = "rpc"
        else if (f ~ /drivers\/mlx5\/sw\//) where[fn] = "sw"
        else if (f ~ /drivers\/mlx5\// && !(fn in where)) where[fn] = "drv" }
    END { for (fn in cost) { if (where[fn] == "rpc") r += cost[fn]; else if (where[fn] == "drv") d += cost[fn] }
        printf "%d %d\n", r, d }' "$tmp/self")
EOF_SELF
    awk -v t="$t" -v d="$d" -v s="$s" -v n="$calls" -v tot="$total" -v m=$((eng + glue)) \
        -v r="$s_rpc" -v dr="$s_drv" -v x="$retx" 'BEGIN {
        rest = tot - m
        printf "%-12s %5d %8d %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %6s\n", t, d, s,
            tot / n, m / n, rest / n, r / n, dr / n, (rest - r - dr) / n, x }'
}

echo "lib/rpc instructions per 8-byte echo call, both ends (callgrind over bench_run; $calls calls a row)"
echo "  $bin -t T -n $calls -d D -S S -s SLOTS -Q QDEPTH -q 8 -r 8 -R 1000000"
printf "%-12s %5s %8s %8s %8s %8s %8s %8s %8s %6s\n" transport depth sessions total model rest \
    "rest:rpc" driver other retx
for t in infrc basic+infud homa+infud; do
    for d in 1 8; do
        for s in 1 64; do
            row "$t" "$d" "$s"
        done
    done
done
