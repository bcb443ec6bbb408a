#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The timing layer's validation runs (doc/timing.md) on one profile: the
# 8-byte WRITE/READ/FAA/CAS latencies, then the bandwidth runs whose
# effects show in the model-bound footer's modelled ceiling: 64 KiB WRITE
# at MTU 256/1024/4096, 64-B WRITE on 128 and 512 QPs (the context
# cache), FAA on 1 and 1024 keys (the atomic unit). One run per line:
# the footer sums a whole process's run.
#
#   bench/timing/validate.sh [BUILD_DIR [PROFILE]]   (default build cx6-200g)
#   N=20000 per run (environment)
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/bench/lib.sh"
usage="bench/timing/validate.sh [BUILD_DIR [PROFILE]]  (N in the environment)"
bench_usage "$usage" "${1-}"
bench_maxargs 2 "$usage" "$@"
build=${1:-build}
prof=${2:-cx6-200g}
n=${N:-20000}
bench_posint N "$n"
perf=$build/apps/rdx-perf/rdx-perf
[ -x "$perf" ] || bench_fail "no $perf (build first: ninja -C $build)"

run() { # ARGS...: rdx-perf on the profile, loopback, one lcore
    "$perf" --no-huge -l 0 --log-level=error -- --loopback --dev "sw:timing=$prof" "$@" 2>&1
}

echo "# profile $prof, N=$n, $(date -u +%Y-%m-%d)"
echo "# latency (us): t_min t_typical (write: half a round trip; others: the round trip)"
for t in write read faa cas; do
    run --test $t --mode lat -s 8 -n "$n" |
        awk -v t=$t '$1 == 8 && NF >= 6 { printf "%-6s 8 B   %s %s\n", t, $3, $5 }'
done
echo "# bandwidth runs: measured Mop/s | the footer (modelled ceiling)"
line() { # LABEL ARGS...
    label=$1
    shift
    run "$@" | awk -v l="$label" '
        $1 ~ /^[0-9]+$/ && NF >= 5 { rate = $5 }
        /model-bound|modelled NIC was busy/ { sub(/^ /, ""); foot = $0 }
        END { printf "%-28s %s | %s\n", l, rate, foot }'
}
for m in 256 1024 4096; do
    line "write 64K -m $m" --test write --mode bw -s 65536 -n "$n" -m $m
done
for q in 128 512; do
    line "write 64 B -q $q" --test write --mode bw -s 64 -n $((n / q + 1)) -q $q
done
for k in 1 1024; do
    line "faa --keys $k" --test faa --mode bw -s 8 -n "$n" --keys $k
done
