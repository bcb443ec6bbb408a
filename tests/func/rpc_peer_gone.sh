#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf echo on lib/rpc across two processes when the server dies in the
# middle of a run: the client (one lcore, the main one, as in doc/rpc.md's
# soak) notices the closed bootstrap connection and ends at once with one
# line and exit 1. Before, it went on issuing calls that each timed out
# after call_timeout_us (here 30 s) until -n was reached: hours.
source "$(dirname "$0")/lib.sh"

for t in infrc basic+infud homa+infud; do
    n=${t%%+*}
    port=$(free_port)
    "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --test echo --transport "$t" \
        --sizes 100 >"$TMP/$n.s.out" 2>"$TMP/$n.s.err" &
    spid=$!
    for _ in $(seq 100); do
        grep -q "waiting for a client" "$TMP/$n.s.out" 2>/dev/null && break
        sleep 0.2
    done
    start=$(date +%s)
    timeout -k 5 60 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw --test echo \
        --transport "$t" --sizes 100 -n 100000000 --warmup 0 --concurrent-ops 2 \
        --rpc call_timeout_us=30000000 >"$TMP/$n.c.out" 2>"$TMP/$n.c.err" &
    cpid=$!
    sleep 2
    exec 3>&2 2>/dev/null # not the shell's "Killed" line
    kill -9 "$spid"
    wait "$cpid"
    crc=$?
    wait "$spid"
    exec 2>&3 3>&-
    took=$(( $(date +%s) - start ))
    if [ "$crc" -eq 1 ] && [ "$took" -lt 20 ] &&
       grep -q "peer closed the bootstrap connection during the run" "$TMP/$n.c.err"; then
        pass "$t: server killed mid-run: client exit 1 after ${took} s, one line"
    else
        fail "$t: server killed mid-run: client exit $crc after ${took} s: $(tail -n 2 "$TMP/$n.c.err" | tr '\n' '|')"
    fi
done
finish
