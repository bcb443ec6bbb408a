#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The software device under oversubscription: 4 busy-polling MPI ranks on
# this host (more ranks than cores on a small machine), optionally with two
# more busy loops, each run with --verify. Counts, per workload, the runs
# that completed (exit 0) and the "device error" lines the ranks printed: a
# descheduled peer is no device fault, so both should be N and 0. Also
# counts the software device's notices of a lock wait past 100 ms (the
# bound that used to be a device error: how often oversubscription hit
# it; EAL --log-level notice shows them). Prints the load average before and after (the figures depend on
# it).
#   workloads: --test echo --pattern incast
#              --test echo --pattern all-to-all -q 3
#              --test write --pattern incast
# Each run gets --bootstrap-timeout 120 (rdx-perf's 10 s default aborts the
# job when one rank lags that far behind the others, which busy loops on a
# 2-CPU machine cause on their own: not what this counts).
# usage: bench/oversub.sh [BUILD_DIR] [-n RUNS] [-b] [-p] [-w WORKLOAD] [-t SECONDS] [-k]
#   -n RUNS     runs per workload (default 10)
#   -b          two extra busy loops run meanwhile
#   -p          preempt: during each run, stop one rank after another
#               (SIGSTOP for 150 ms, SIGCONT, 50 ms apart), the worst a
#               scheduler does to a rank, so that a stop lands inside a
#               shared lock far more often than load alone makes it
#   -w WORKLOAD only echo-incast, echo-all-to-all or write-incast
#   -t SECONDS  timeout per run (default 300)
#   -k          keep the runs' stderr (the directory is printed)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/oversub.sh [BUILD_DIR] [-n RUNS] [-b] [-p] [-w WORKLOAD] [-t SECONDS] [-k]"
bench_usage "$usage" "${1-}"
build=build
case ${1-} in
    ''|-*) ;;
    *) build=$1; shift ;;
esac
runs=10
busy=0
preempt=0
only=
tmo=300
keep=0
while [ $# -gt 0 ]; do
    case $1 in
        -n) [ $# -ge 2 ] || bench_fail "-n needs a value (usage: $usage)"
            bench_posint RUNS "$2" 1000; runs=$2; shift 2 ;;
        -t) [ $# -ge 2 ] || bench_fail "-t needs a value (usage: $usage)"
            bench_posint SECONDS "$2" 86400; tmo=$2; shift 2 ;;
        -b) busy=1; shift ;;
        -p) preempt=1; shift ;;
        -w) [ $# -ge 2 ] || bench_fail "-w needs a value (usage: $usage)"
            case $2 in
                echo-incast|echo-all-to-all|write-incast) only=$2 ;;
                *) bench_fail "-w: unknown workload '$(bench_show "$2")' (echo-incast, echo-all-to-all, write-incast)" ;;
            esac
            shift 2 ;;
        -k) keep=1; shift ;;
        *) bench_fail "unexpected argument '$(bench_show "$1")' (usage: $usage)" ;;
    esac
done
perf=$build/apps/rdx-perf/rdx-perf
[ -x "$perf" ] || bench_fail "no $perf (build first: meson setup $build && ninja -C $build)"
command -v mpirun >/dev/null 2>&1 || bench_fail "mpirun not found (scripts/setup.sh installs openmpi-bin)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d /tmp/oversub.XXXXXX)
busy_pids=
cleanup() {
    for p in $busy_pids; do
        kill "$p" 2>/dev/null || true
    done
    [ "$keep" -eq 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "oversub: $runs run(s) per workload, busy loops: $((busy * 2)), preempt: $preempt, timeout ${tmo} s, $(nproc) CPU(s)"
echo "oversub: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$busy" -eq 1 ]; then
    for _i in 1 2; do
        timeout $((tmo * runs * 3 + 60)) sh -c 'while :; do :; done' &
        busy_pids="$busy_pids $!"
    done
fi

# stopper PID: while PID (the timeout wrapping mpirun) lives, stop its
# ranks (mpirun's children) one after another for 150 ms each; prints the
# count of stops on exit
stopper() {
    n=0
    sleep 2
    while kill -0 "$1" 2>/dev/null; do
        mp=$(ps -o pid= --ppid "$1" 2>/dev/null | head -n 1 | tr -d " ")
        for r in $(ps -o pid= --ppid "${mp:-0}" 2>/dev/null); do
            kill -STOP "$r" 2>/dev/null || continue
            sleep 0.15
            kill -CONT "$r" 2>/dev/null
            n=$((n + 1))
            sleep 0.05
        done
        sleep 0.05
    done
    echo "$n"
}

# one WORKLOAD-NAME rdx-perf-app-options...
one() {
    name=$1
    shift
    [ -z "$only" ] || [ "$only" = "$name" ] || return 0
    ok=0 errs=0 slow=0 i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        f=$tmp/$name.$i.err
        t0=$(date +%s)
        rc=0
        timeout -k 5 "$tmo" mpirun --allow-run-as-root --oversubscribe -np 4 \
            "$perf" --log-level notice -- "$@" --verify --bootstrap-timeout 120 >"$tmp/$name.$i.out" 2>"$f" &
        job=$!
        stops=
        if [ "$preempt" -eq 1 ]; then
            stopper "$job" >"$tmp/$name.$i.stops" &
            spid=$!
        fi
        wait "$job" || rc=$?
        if [ "$preempt" -eq 1 ]; then
            wait "$spid" || true
            stops=$(cat "$tmp/$name.$i.stops")
        fi
        [ "$rc" -ne 0 ] || ok=$((ok + 1))
        t1=$(date +%s)
        n=$(grep -c "rdx_sw: device error" "$f" || true)
        errs=$((errs + n))
        w=$(grep -c "waits for a shared lock" "$f" || true)
        slow=$((slow + w))
        echo "oversub: $name run $i: exit $rc ($((t1 - t0)) s), device error lines $n, lock waits over 100 ms $w${stops:+, stops $stops}"
        [ "$rc" -eq 0 ] || grep -m 2 -E "device error|failed|rdx-perf:" "$f" | sed 's/^/oversub:   /' || true
    done
    echo "oversub: RESULT $name: completed $ok/$runs, device error lines $errs, lock waits over 100 ms $slow"
}

one echo-incast --test echo --pattern incast
one echo-all-to-all --test echo --pattern all-to-all -q 3
one write-incast --test write --pattern incast
echo "oversub: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$keep" -eq 0 ] || echo "oversub: stderr of the runs in $tmp"
