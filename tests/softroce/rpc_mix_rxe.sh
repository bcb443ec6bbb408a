#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf's mixed echo workload on lib/rpc over soft-RoCE, inside the guest
# (tests/softroce/guest-run.sh): for each transport, a server on rxe1 and a
# client on rxe0 as two processes (TCP bootstrap on the guest's loopback),
# --mix 100:90,1M:10 with -q clients of --concurrent-ops 4; prints the 100 B
# and 1 MB percentiles, retransmissions and grants per transport, and keeps
# the JSON reports in $RDX_XCHG (the folder shared with the host).
#
#   guest-run.sh "tests/softroce/rpc_mix_rxe.sh build/apps/rdx-perf/rdx-perf [N] [Q]" 1800
#   (N calls per client, default 300; Q clients, default 4; RDX_MIX_RPC="rto_us=50000"
#   passes --rpc to both ends; exit 77 outside the guest)
set -uo pipefail
PERF=${1:?usage: rpc_mix_rxe.sh RDX_PERF [N] [Q]}
N=${2:-300}
Q=${3:-4}
[ -x "$PERF" ] || { echo "rpc_mix_rxe: no executable $PERF" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "rpc_mix_rxe: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
OUT=${RDX_XCHG:-$(mktemp -d /tmp/rdxmix.XXXXXX)}
# rpc_for TRANSPORT: the items of RDX_MIX_RPC that transport reads (rdx-perf
# refuses a --rpc key the transport does not use: infrc reads call_timeout_us
# only, window is basic's, rtt_bytes and overcommit homa's)
rpc_for() {
    local keep=() item
    IFS=, read -ra items <<<"${RDX_MIX_RPC:-}"
    for item in "${items[@]}"; do
        case "$1:${item%%=*}" in
        infrc:call_timeout_us|basic+infud:*|homa+infud:*) ;;
        *) continue ;;
        esac
        case "$1:${item%%=*}" in
        basic+infud:rtt_bytes|basic+infud:overcommit|homa+infud:window) continue ;;
        esac
        keep+=("$item")
    done
    RPC=()
    [ ${#keep[@]} -gt 0 ] && RPC=(--rpc "$(IFS=,; echo "${keep[*]}")")
    return 0
}
port=19300
rc=0
for t in homa+infud basic+infud infrc; do
    port=$((port + 1))
    rpc_for "$t"
    "$PERF" --no-huge -l 0 -- --server -p "$port" --dev rxe1 --test echo --transport "$t" --mode bw "${RPC[@]}" \
        --bootstrap-timeout 120 >"$OUT/mix-$t.s.out" 2>&1 &
    spid=$!
    for _ in $(seq 600); do
        grep -q "waiting for a client" "$OUT/mix-$t.s.out" 2>/dev/null && break
        sleep 0.2
    done
    "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev rxe0 --test echo --transport "$t" "${RPC[@]}" \
        --bootstrap-timeout 120 --mix 100:90,1M:10 -q "$Q" --mode bw --concurrent-ops 4 -n "$N" \
        --json "$OUT/mix-$t.json" >"$OUT/mix-$t.c.out" 2>"$OUT/mix-$t.c.err"
    crc=$?
    wait "$spid"
    src=$?
    echo "== $t: client exit $crc, server exit $src"
    grep "rdx-perf: rpc" "$OUT/mix-$t.c.err"
    grep -E "^mix(100|1M)?\.(50|99|bw) " "$OUT/mix-$t.c.out"
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        rc=1
        tail -n 3 "$OUT/mix-$t.c.err" "$OUT/mix-$t.s.out"
    fi
done
exit $rc
