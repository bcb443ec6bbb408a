#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions per operation of the mlx5 fast path, counted by callgrind
# (deterministic; these VMs have no hardware counters). Only the driver's
# own functions are counted: --toggle-collect on rdx_mlx5_post_burst and
# rdx_mlx5_poll_burst (and what they call); the benchmark loop that plays
# the device (writes the CQEs) is not.
#
# usage: bench/callgrind.sh [BUILD_DIR] [BURSTS]
#   BUILD_DIR  meson build dir (default: build; set up if missing)
#   BURSTS     bursts of 32 to run (default 20000; BlueFlame runs 4x as many posts)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
bursts=${2:-20000}
case $bursts in
    ''|*[!0-9]*) echo "callgrind.sh: BURSTS must be a positive integer, got '$bursts'" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null 2>&1 || { echo "callgrind.sh: valgrind not installed (apt-get install valgrind)" >&2; exit 2; }
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
ninja -C "$build" bench/mlx5_fastpath >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# run MODE ITERATIONS LABEL
run() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" \
        --toggle-collect=rdx_mlx5_post_burst --toggle-collect=rdx_mlx5_poll_burst \
        "$build/bench/mlx5_fastpath" "$1" "$2" >"$tmp/out.$1" 2>"$tmp/err.$1" || {
        cat "$tmp/err.$1" >&2; exit 1; }
    ops=$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' "$tmp/out.$1")
    total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/cg.$1")
    post=$(callgrind_annotate --inclusive=yes "$tmp/cg.$1" 2>/dev/null |
        awk '/rdx_mlx5_post_burst/ { gsub(",", "", $1); print $1; exit }')
    poll=$(callgrind_annotate --inclusive=yes "$tmp/cg.$1" 2>/dev/null |
        awk '/rdx_mlx5_poll_burst/ { gsub(",", "", $1); print $1; exit }')
    awk -v l="$3" -v t="$total" -v o="$ops" -v p="${post:-0}" -v q="${poll:-0}" 'BEGIN {
        printf "%-44s %7.1f instr/op  (post+ring %.1f, poll %.1f; %d ops, %d instr)\n",
            l, t / o, p / o, q / o, o, t }'
}

echo "mlx5 fast path, callgrind instruction counts (driver functions only)"
run burst "$bursts" "8B inline WRITE, burst 32, 1 signaled/32:"
run bf $((bursts * 4)) "8B inline WRITE, single post (BlueFlame):"
run send "$bursts" "8B inline SEND, burst 32, 1 signaled/32:"
run read "$bursts" "8B READ, burst 32 (general builder):"
