#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The cross-process echo beside its calibrations (doc/perf.md, "software
# device: cross-process echo"), in one run so the ratios are taken minutes
# apart on the same machine state:
#   pingpong  bench/cacheline_pingpong: one cache line bounced between the
#             two CPUs (round trip), measured before and after the echo
#   tcp       bench/tcp_pingpong: a 30-byte request, 100-byte answer over TCP
#             loopback, one outstanding (round trip, requests/s)
#   echo      rdx-perf --test echo, server and client in two processes on
#             the two CPUs, 100-byte answers (median RTT, requests/s)
# and the ratios: echo p50 RTT / ping-pong RTT (mean of before and after),
# echo rate / TCP rate (wall clock: requests completed per second), and TCP
# p50 RTT / echo p50 RTT (the same ratio from the medians, which a shared
# machine's preemptions move less).
# usage: bench/echo_calib.sh [BUILD_DIR] [ROUNDS] [--dev NAME]
#   N=200000 echo round trips per round (N=... in the environment);
#   CPUs 0 and 1 (RDX_CALIB_CPUS="2 3" picks others)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/echo_calib.sh [BUILD_DIR] [ROUNDS] [--dev NAME]"
bench_usage "$usage" "${1-}"
build=${1:-build}
rounds=${2:-3}
bench_posint ROUNDS "$rounds"
[ $# -ge 2 ] && shift 2 || shift $#
dev=
if [ $# -gt 0 ]; then
    [ "$1" = --dev ] && [ $# -eq 2 ] || bench_fail "expected --dev NAME after ROUNDS, got '$(bench_show "$*")'"
    # the name is passed on unquoted (one word): no empty name, no blanks
    case $2 in
        ''|*[!!-~]*) bench_fail "--dev needs a device name (one word, e.g. sw or mlx5_0), got '$(bench_show "$2")'" ;;
    esac
    dev="--dev $2"
fi
n=${N:-200000}
bench_posint N "$n"
bench_cpus RDX_CALIB_CPUS "${RDX_CALIB_CPUS:-0 1}"
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
ninja -C "$build" apps/rdx-perf/rdx-perf bench/cacheline_pingpong bench/tcp_pingpong >/dev/null
perf=$build/apps/rdx-perf/rdx-perf
tmp=$(mktemp -d)
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

pingpong() { # prints the median round trip in ns
    "$build/bench/cacheline_pingpong" --cpus "$ca,$cb" | tee -a "$tmp/log" |
        sed -n 's/.*rtt median \([0-9.]*\) ns.*/\1/p'
}

echo "echo_calib: $rounds round(s); CPUs $ca,$cb; echo -n $n --sizes 100 ${dev:-(default device)}; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %12s %12s %11s %11s %12s %12s %8s %9s %9s\n' round pp_before_ns pp_after_ns tcp_p50_us \
    tcp_Mreq/s echo_p50_us echo_Mreq/s echo/pp rate/tcp p50/tcp
r=1
: >"$tmp/ratios"
while [ $r -le "$rounds" ]; do
    port=$((20000 + ($$ + r * 97) % 20000))
    pp0=$(pingpong)
    "$build/bench/tcp_pingpong" --cpus "$ca,$cb" >"$tmp/tcp" || { cat "$tmp/tcp" >&2; exit 1; }
    cat "$tmp/tcp" >>"$tmp/log"
    tcp_rtt=$(sed -n 's/.*rtt median \([0-9.]*\) us.*/\1/p' "$tmp/tcp")
    tcp_rate=$(sed -n 's/.*rate \([0-9.]*\) Mreq.*/\1/p' "$tmp/tcp")
    # shellcheck disable=SC2086
    "$perf" -l "$cb" --file-prefix "rdxcalS$$" --log-level=error -- --test echo --server -p "$port" \
        --sizes 100 $dev >"$tmp/srv" 2>&1 &
    srv=$!
    # shellcheck disable=SC2086
    if ! "$perf" -l "$ca" --file-prefix "rdxcalC$$" --log-level=error -- --test echo \
        --connect "127.0.0.1:$port" --bootstrap-timeout 20 --sizes 100 -n "$n" $dev \
        --json "$tmp/echo.json" >"$tmp/cli" 2>&1; then
        cat "$tmp/cli" "$tmp/srv" >&2
        exit 1
    fi
    wait "$srv" || true
    srv=
    pp1=$(pingpong)
    set -- $(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
row = [x for x in r["results"] if x["lcore"] == -1][0]
print("%.3f %.4f" % (row["lat"]["p50"] / 1000.0, row["mops"]))' "$tmp/echo.json")
    echo_p50=$1
    echo_rate=$2
    line=$(awk -v e="$echo_p50" -v a="$pp0" -v b="$pp1" -v er="$echo_rate" -v tr="$tcp_rate" \
        -v tl="$tcp_rtt" 'BEGIN { pp = (a + b) / 2
        printf "%.1f %.0f %.0f", (pp > 0 ? e * 1000 / pp : 0), (tr > 0 ? er / tr : 0), (e > 0 ? tl / e : 0) }')
    echo "$line" >>"$tmp/ratios"
    set -- $line
    note=$(awk -v a="$pp0" -v b="$pp1" 'BEGIN { if (a > 2 * b || b > 2 * a) print "  (ping-pong moved over 2x during the round: the host moved the vCPUs)" }')
    printf '%-5s %12s %12s %11s %11s %12s %12s %8s %9s %9s%s\n' "$r" "$pp0" "$pp1" "$tcp_rtt" "$tcp_rate" \
        "$echo_p50" "$echo_rate" "$1x" "$2x" "$3x" "$note"
    r=$((r + 1))
done
sort -n "$tmp/ratios" | awk '{ a[NR] = $1 } END { printf "median echo RTT / ping-pong RTT (mean of before and after): %sx over %d round(s) (target <= 3)\n", a[int((NR + 1) / 2)], NR }'
sort -n -k2 "$tmp/ratios" | awk '{ a[NR] = $2 } END { printf "median echo rate / TCP request rate: %sx, wall clock (target >= 50; a preempted poller stalls both ends: read it at low load)\n", a[int((NR + 1) / 2)] }'
sort -n -k3 "$tmp/ratios" | awk '{ a[NR] = $3 } END { printf "median TCP p50 RTT / echo p50 RTT (the request rates of unpreempted round trips): %sx\n", a[int((NR + 1) / 2)] }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "echo_calib: device: $(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["knobs"]; print(k.get("dev","?"), "(" + k.get("device_kind","?") + ")")' "$tmp/echo.json")"
