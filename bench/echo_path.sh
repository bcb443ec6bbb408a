#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Where the two-process echo's round trip goes (issue: the software device's
# cross-process echo against a cache-line ping-pong): the echo of
# echo_calib.sh (rdx-perf --server on CPU B, --connect on CPU A, --sizes 100)
# from a build with path stamps (meson -Dpath_stamps=true: TSC stamps at the
# requester's post and poll, the responder's poll and post, and each CQE an
# engine writes into the other process's CQ; lib/runtime/rdx_stamp.h), read
# by bench/echo_path.py into the segments of the round trip, with the
# ping-pong measured before and after each round (the host moves the vCPUs:
# read a round's segments against its own ping-pong).
#
#   bench/echo_path.sh [STAMP_BUILD_DIR [ROUNDS [RDX-PERF ARGS...]]]
#   N=100000 RDX_CALIB_CPUS="0 1" bench/echo_path.sh build-stamps 3 --sw-progress poll
# (the extra arguments go to both ends' rdx-perf, after its own)
#
# The stamp build is its own build directory (configured here when missing);
# no default build carries a stamp. Each stamp is one rdtsc (~12 ns on these
# VMs), so the round trip it reports is longer than echo_calib.sh's by about
# four of them; the segments are what to read. Software device only.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/echo_path.sh [STAMP_BUILD_DIR [ROUNDS [RDX-PERF OPTIONS...]]]"
bench_usage "$usage" "${1-}"
build=${1:-build-stamps}
rounds=${2:-3}
bench_posint ROUNDS "$rounds"
[ $# -ge 2 ] && shift 2 || shift $#
bench_extra "rdx-perf options (starting with -)" "$@"
n=${N:-100000}
bench_posint N "$n"
bench_cpus RDX_CALIB_CPUS "${RDX_CALIB_CPUS:-0 1}"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" -Dpath_stamps=true -Dtests=false >/dev/null
fi
meson configure "$build" 2>/dev/null | grep -Eq 'path_stamps +true' ||
    { echo "echo_path.sh: $build is not a -Dpath_stamps=true build (meson configure $build -Dpath_stamps=true)" >&2; exit 2; }
ninja -C "$build" apps/rdx-perf/rdx-perf bench/cacheline_pingpong >/dev/null
perf=$build/apps/rdx-perf/rdx-perf
tmp=$(mktemp -d)
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

pingpong() {
    "$build/bench/cacheline_pingpong" --cpus "$ca,$cb" | sed -n 's/.*rtt median \([0-9.]*\) ns.*/\1/p'
}

echo "echo_path: $rounds round(s); CPUs $ca (requester), $cb (responder); echo -n $n --sizes 100 --dev sw $*; load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
    port=$((20000 + ($$ + r * 89) % 20000))
    pp0=$(pingpong)
    rm -f "$tmp"/req.* "$tmp"/rsp.*
    RDX_STAMPS=$tmp/rsp "$perf" -l "$cb" --file-prefix "rdxpathS$$" --log-level=error -- --test echo \
        --server -p "$port" --sizes 100 --dev sw "$@" >"$tmp/srv" 2>&1 &
    srv=$!
    if ! RDX_STAMPS=$tmp/req "$perf" -l "$ca" --file-prefix "rdxpathC$$" --log-level=error -- --test echo \
        --connect "127.0.0.1:$port" --bootstrap-timeout 20 --sizes 100 -n "$n" --dev sw "$@" \
        >"$tmp/cli" 2>&1; then
        cat "$tmp/cli" "$tmp/srv" >&2
        exit 1
    fi
    wait "$srv" || true
    srv=
    pp1=$(pingpong)
    echo "round $r: ping-pong ${pp0} ns before, ${pp1} ns after"
    python3 "$src/bench/echo_path.py" "$tmp"/req.* "$tmp"/rsp.*
    r=$((r + 1))
done
