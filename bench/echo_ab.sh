#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two settings (or two builds) of the software device's two-process echo, A
# against B, in alternating pairs (A first in odd pairs, B first in even
# ones): the cross-process echo of echo_calib.sh (rdx-perf --server on CPU
# B, --connect on CPU A, --sizes 100), each run's median RTT. This VM's host
# moves the vCPUs between a fast and a slow state within seconds, so a
# single run says little; pairs taken back to back do: a pair whose two
# medians are within 1.5x of each other ran in one state ("same-state").
#
#   ECHO_A="--sw-progress poll" ECHO_B="" bench/echo_ab.sh [BUILD_DIR [PAIRS]]
#   ECHO_BUILD_A=../old/build bench/echo_ab.sh build 30     # two builds
#   N=30000 per run (environment), CPUs 0 and 1 (RDX_CALIB_CPUS="2 3")
# ECHO_A / ECHO_B: rdx-perf arguments of each side (default none);
# ECHO_BUILD_A: A's build directory (default BUILD_DIR, B's).
#
# Prints each pair, then each side's median p50, and over the same-state
# pairs the median of B/A and how many pairs B was the lower in.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/echo_ab.sh [BUILD_DIR [PAIRS]]  (ECHO_A, ECHO_B, ECHO_BUILD_A, N, RDX_CALIB_CPUS in the environment)"
bench_usage "$usage" "${1-}"
bench_maxargs 2 "$usage" "$@"
build=${1:-build}
pairs=${2:-20}
bench_posint PAIRS "$pairs"
n=${N:-30000}
bench_posint N "$n"
bench_cpus RDX_CALIB_CPUS "${RDX_CALIB_CPUS:-0 1}"
a_args=${ECHO_A-}
b_args=${ECHO_B-}
build_a=${ECHO_BUILD_A:-$build}
[ "$a_args" != "$b_args" ] || [ "$build_a" != "$build" ] ||
    bench_fail "A and B are the same build with the same arguments ('$a_args'): nothing to compare"
# B's build is set up and built below; A's, when another, must be there
[ "$build_a" = "$build" ] || [ -x "$build_a/apps/rdx-perf/rdx-perf" ] ||
    bench_fail "no rdx-perf in ECHO_BUILD_A's $build_a/apps/rdx-perf (build it first)"
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
ninja -C "$build" apps/rdx-perf/rdx-perf >/dev/null
tmp=$(mktemp -d)
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

one() { # ARGS PORT BUILD: one run, prints its p50 in us
    port=$2
    perf=$3/apps/rdx-perf/rdx-perf
    # shellcheck disable=SC2086
    "$perf" -l "$cb" --file-prefix "rdxabS$$" --log-level=error -- --test echo --server -p "$port" \
        --sizes 100 --dev sw $1 >"$tmp/srv" 2>&1 &
    srv=$!
    # shellcheck disable=SC2086
    if ! "$perf" -l "$ca" --file-prefix "rdxabC$$" --log-level=error -- --test echo \
        --connect "127.0.0.1:$port" --bootstrap-timeout 20 --sizes 100 -n "$n" --dev sw $1 \
        --json "$tmp/r.json" >"$tmp/cli" 2>&1; then
        cat "$tmp/cli" "$tmp/srv" >&2
        exit 1
    fi
    wait "$srv" || true
    srv=
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("%.3f" % ([x for x in r["results"] if x["lcore"] == -1][0]["lat"]["p50"] / 1000.0))' "$tmp/r.json"
}

echo "echo_ab: $pairs pair(s); CPUs $ca,$cb; echo -n $n --sizes 100 --dev sw; A: $build_a '$a_args', B: $build '$b_args'; load $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
: >"$tmp/pairs"
while [ "$i" -le "$pairs" ]; do
    pta=$((20000 + ($$ + i * 106) % 20000))
    ptb=$((20000 + ($$ + i * 106 + 53) % 20000))
    if [ $((i % 2)) = 1 ]; then pa=$(one "$a_args" "$pta" "$build_a"); pb=$(one "$b_args" "$ptb" "$build")
    else pb=$(one "$b_args" "$ptb" "$build"); pa=$(one "$a_args" "$pta" "$build_a"); fi
    echo "pair $i: A p50 $pa us, B p50 $pb us"
    echo "$pa $pb" >>"$tmp/pairs"
    i=$((i + 1))
done
python3 - "$tmp/pairs" <<'PY'
import sys
p = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def med(v):
    v = sorted(v)
    return v[len(v) // 2] if v else float("nan")
same = [(a, b) for a, b in p if max(a, b) < 1.5 * min(a, b)]
print("median p50: A %.3f us, B %.3f us over %d pairs" % (med([a for a, _ in p]), med([b for _, b in p]), len(p)))
print("same-state pairs: %d; median B/A %.3f; B lower in %d, equal in %d" % (
    len(same), med([b / a for a, b in same]), sum(b < a for a, b in same), sum(b == a for a, b in same)))
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
