#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Per-core scaling of the software device (doc/perf.md, "software device:
# per-core scaling"): the total message rate of rdx-perf with two worker
# lcores, each running its own loopback QP pair (client and server ends on
# that lcore, inline progress), against one worker lcore, in alternating
# runs of the same workload so that each ratio is taken minutes, not hours,
# apart on a shared machine. Prints each pair, the median ratio and the load
# average before and after.
#   one lcore:  rdx-perf --lcores 0@0,1@1      (main on CPU 0, asleep; worker 1 on CPU 1)
#   two lcores: rdx-perf --lcores 0@0,1@0,2@1  (workers 1 and 2 on CPUs 0 and 1)
# usage: bench/sw_scaling.sh [BUILD_DIR] [REPEATS] [rdx-perf app options...]
#   default options: --test write --mode bw -s 8 -t 32 -l 32 -Q 32 -D 0.5
# (the EAL CPU numbers assume CPUs 0 and 1; RDX_SCALING_CPUS="2 3" picks others)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/sw_scaling.sh [BUILD_DIR] [REPEATS] [rdx-perf app options...]"
bench_usage "$usage" "${1-}"
build=${1:-build}
reps=${2:-5}
bench_posint REPEATS "$reps"
[ $# -ge 2 ] && shift 2 || shift $#
bench_extra "rdx-perf app options (starting with -)" "$@"
[ $# -gt 0 ] || set -- --test write --mode bw -s 8 -t 32 -l 32 -Q 32 -D 0.5
bench_cpus RDX_SCALING_CPUS "${RDX_SCALING_CPUS:-0 1}"
c0=$ca
c1=$cb
perf=$build/apps/rdx-perf/rdx-perf
[ -x "$perf" ] || { [ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null; ninja -C "$build" apps/rdx-perf/rdx-perf >/dev/null; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# "WALL CPU" of the last run: the total Mop/s (the JSON report's lcore -1
# row, wall clock), and the Mop/s per CPU-second summed over the worker
# lcores (1000 / task-clock ns per op of each lcore's row): what the lcores
# would give with a core each, however often the shared machine preempted
# them
total() {
    python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
res = r["results"]
wall = [x["mops"] for x in res if x["lcore"] == -1][0]
cpu = sum(1000.0 / x["perf"]["task_clock_ns"] for x in res
          if x["lcore"] != -1 and x.get("perf") and x["perf"]["task_clock_ns"] > 0)
print("%.3f %.3f" % (wall, cpu))' "$tmp/r.json"
}

echo "sw_scaling: rdx-perf $* --dev sw (inline progress, loopback on each lcore), $reps pairs"
echo "load before: $(cat /proc/loadavg)"
i=0
ratios=
cratios=
while [ $i -lt "$reps" ]; do
    "$perf" --no-huge --lcores "0@$c0,1@$c1" --file-prefix "rdxscal$$" --log-level=error -- "$@" \
        --dev sw --json "$tmp/r.json" >"$tmp/out" 2>&1 || { sed -n '1,20p' "$tmp/out" >&2; exit 1; }
    one=$(total)
    "$perf" --no-huge --lcores "0@$c0,1@$c0,2@$c1" --file-prefix "rdxscal$$" --log-level=error -- "$@" \
        --dev sw --json "$tmp/r.json" >"$tmp/out" 2>&1 || { sed -n '1,20p' "$tmp/out" >&2; exit 1; }
    two=$(total)
    line=$(echo "$one $two" | awk '{ printf "%.2f %.2f", ($1 > 0 ? $3 / $1 : 0), ($2 > 0 ? $4 / $2 : 0) }')
    ratios="$ratios ${line% *}"
    cratios="$cratios ${line#* }"
    echo "pair $((i + 1)): one lcore ${one% *} Mop/s (${one#* } per CPU-s), two lcores ${two% *} Mop/s total (${two#* } per CPU-s summed): ratio ${line% *} wall, ${line#* } CPU-time"
    i=$((i + 1))
done
med() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v what="$2" '{ v[NR] = $1 } END {
    printf "median ratio (two lcores / one), %s: %s over %d pairs (min %s, max %s)\n", what, v[int((NR + 1) / 2)], NR, v[1], v[NR] }'; }
med "$ratios" "wall clock"
med "$cratios" "per CPU-second"
echo "load after: $(cat /proc/loadavg)"
