#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# User-space instructions per op of a latency client, rdx-perf beside
# perftest, inside the soft-RoCE guest (a measurement, not a pass/fail test;
# doc/perf.md "Interleaved rounds"):
#
#   RDX_SOFTROCE_KEEP=1 tests/softroce/guest-run.sh \
#       "bash bench/softroce/lat_callgrind.sh RDX_PERF [ITERS] [TEST]" 1800
#
# For TEST (write, default; read; send; faa; cas) the server runs natively on vCPU 1
# (rxe1) and the client under `valgrind --tool=callgrind` on vCPU 0 (rxe0):
# rdx-perf --test TEST --mode lat -s 8 -n ITERS (plus its warm-up ops), then
# ib_TEST_lat -s 8 -n ITERS (faa, cas: ib_atomic_lat -A FETCH_AND_ADD or
# CMP_AND_SWAP). The callgrind files land in the exchange folder
# ($RDX_XCHG, kept by RDX_SOFTROCE_KEEP=1) as TAG.<TEST>.cg and
# pt.<TEST>.cg (TAG: $RDX_CG_TAG, default rdx; RDX_CG_PERFTEST=0 skips
# perftest, e.g. for a second rdx-perf build in the same boot;
# RDX_CG_SIDE=server measures the server instead, see below); read them
# with callgrind_annotate --inclusive=yes and --tree=caller (calls per
# function). Instruction counts do not depend on the host's load, unlike
# every timing under TCG.
set -uo pipefail
P=${1:?usage: lat_callgrind.sh RDX_PERF [ITERS] [write|read|send|faa|cas]}
N=${2:-1000}
TEST=${3:-write}
[ -x "$P" ] || { echo "lat_callgrind: no executable $P" >&2; exit 2; }
[[ "$N" =~ ^[0-9]+$ ]] || { echo "lat_callgrind: ITERS is a number" >&2; exit 2; }
case $TEST in write|read|send|faa|cas) ;; *) echo "lat_callgrind: TEST is write, read, send, faa or cas" >&2; exit 2 ;; esac
TAG=${RDX_CG_TAG:-rdx}
[[ "$TAG" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "lat_callgrind: RDX_CG_TAG is letters, digits, - and _" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ -z "${RDX_XCHG:-}" ]; then
    echo "lat_callgrind: no RDMA device or exchange folder: run it through tests/softroce/guest-run.sh"
    exit 77
fi
command -v valgrind >/dev/null || { echo "lat_callgrind: valgrind is not installed"; exit 77; }
T=$RDX_XCHG
port=${RDX_CG_PORT:-19900}
[[ "$port" =~ ^[0-9]+$ ]] || { echo "lat_callgrind: RDX_CG_PORT is a number" >&2; exit 2; }

. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"   # guest_wait_listen

# RDX_CG_SIDE=server: the server under callgrind (files TAG.TEST.srv.cg and
# pt.TEST.srv.cg), the client native: the responder's instructions per op
side=${RDX_CG_SIDE:-client}
case $side in
client) vc=(valgrind --tool=callgrind); vs=(); sfx="" ;;
server) vs=(valgrind --tool=callgrind); vc=(); sfx=".srv" ;;
*) echo "lat_callgrind: RDX_CG_SIDE is client or server" >&2; exit 2 ;;
esac

port=$((port + 1))
a=(--test "$TEST" --mode lat -s 8 -n "$N" -p "$port" --bootstrap-timeout 300)
taskset -c 1 "${vs[@]}" ${vs:+--callgrind-out-file="$T/$TAG.$TEST$sfx.cg"} \
    "$P" -l 1 -- "${a[@]}" --server --dev rxe1 >"$T/$TAG.$TEST$sfx.s" 2>&1 &
spid=$!
guest_wait_listen "$T/$TAG.$TEST$sfx.s" "$spid" 1200
taskset -c 0 "${vc[@]}" ${vc:+--callgrind-out-file="$T/$TAG.$TEST$sfx.cg"} \
    "$P" -l 0 -- "${a[@]}" --dev rxe0 --connect "127.0.0.1:$port" >"$T/$TAG.$TEST$sfx.c" 2>&1
echo "rdx-perf ($TAG) $TEST lat, $side under callgrind: exit $?"
wait "$spid"

if [ "${RDX_CG_PERFTEST:-1}" != 0 ]; then
    port=$((port + 1))
    b=(-x 1 -F -p "$port" -s 8 -n "$N")
    tool="ib_${TEST}_lat"
    case $TEST in
    faa) tool=ib_atomic_lat; b+=(-A FETCH_AND_ADD) ;;
    cas) tool=ib_atomic_lat; b+=(-A CMP_AND_SWAP) ;;
    esac
    taskset -c 1 "${vs[@]}" ${vs:+--callgrind-out-file="$T/pt.$TEST$sfx.cg"} \
        "$tool" "${b[@]}" -d rxe1 >"$T/pt.$TEST$sfx.s" 2>&1 &
    spid=$!
    # (perftest prints nothing to wait for; under valgrind it starts slower)
    if [ "$side" = server ]; then sleep 20; else sleep 3; fi
    taskset -c 0 "${vc[@]}" ${vc:+--callgrind-out-file="$T/pt.$TEST$sfx.cg"} \
        "$tool" "${b[@]}" -d rxe0 127.0.0.1 >"$T/pt.$TEST$sfx.c" 2>&1
    echo "$tool, $side under callgrind: exit $?"
    wait "$spid"
fi
ls -l "$T"/*.cg
