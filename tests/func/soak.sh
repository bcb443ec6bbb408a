#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak of the software device across two processes: the write, send and echo
# ping-pongs (latency mode) and the write and send streams (bandwidth mode),
# all with --verify, run again and again until the time is up. Fails on any
# run that stalls ("no completion ..."), counts a wrong byte, or exits
# non-zero on either side.
#
# Environment:
#   RDX_SOAK_SECONDS  total time (default 20: short enough for CI)
#   RDX_SOAK_RUN      seconds per run, -D of each pair (default 2)
#   RDX_SOAK_CASES    space-separated cases (default all, in this order, so a
#                     short soak still meets each kind):
#                     write:lat echo:lat rpc:infrc write:bw ud:bw rpc:homa
#                     send:lat send:bw rpc:basic
#                     (ud:bw: SEND datagrams of 512 B; rpc:*: echo on lib/rpc,
#                     100 B / 100 KB / 10 KB responses, every response checked)
# Long form (ten 60-s two-process write ping-pongs):
#   RDX_SOAK_SECONDS=600 RDX_SOAK_RUN=60 RDX_SOAK_CASES=write:lat \
#       tests/func/soak.sh build/apps/rdx-perf/rdx-perf
source "$(dirname "$0")/lib.sh"

TOTAL=${RDX_SOAK_SECONDS:-20}
RUN=${RDX_SOAK_RUN:-2}
CASES=${RDX_SOAK_CASES:-"write:lat echo:lat rpc:infrc write:bw ud:bw rpc:homa send:lat send:bw rpc:basic"}
for v in "$TOTAL" "$RUN"; do
    case $v in ''|*[!0-9]*) echo "soak: RDX_SOAK_SECONDS/RDX_SOAK_RUN: not a number: '$v'" >&2; exit 2 ;; esac
done
[ "$RUN" -ge 1 ] || { echo "soak: RDX_SOAK_RUN must be >= 1" >&2; exit 2; }

args_of() { # case -> rdx-perf test arguments
    case $1 in
    write:lat) echo "--test write --mode lat -s 8" ;;
    send:lat) echo "--test send --mode lat -s 64" ;;
    echo:lat) echo "--test echo -s 100" ;;
    write:bw) echo "--test write --mode bw -s 4K" ;;
    send:bw) echo "--test send --mode bw -s 4K" ;;
    ud:bw) echo "--test send --transport ud --mode bw -s 512" ;;
    rpc:infrc) echo "--test echo --transport infrc -s 100" ;;
    rpc:homa) echo "--test echo --transport homa+infud -s 100K" ;;
    rpc:basic) echo "--test echo --transport basic+infud -s 10K" ;;
    *) return 1 ;;
    esac
}
for c in $CASES; do
    args_of "$c" >/dev/null || { echo "soak: unknown case '$c'" >&2; exit 2; }
done

runs=0 stalls=0 wrong=0 other=0
end=$(( $(date +%s) + TOTAL ))
while :; do
    for c in $CASES; do
        [ "$(date +%s)" -lt "$end" ] || break 2
        read -r -a a <<<"$(args_of "$c")"
        port=$(free_port)
        n=$((runs + 1))
        # the guard is not a timing assertion: it only turns a hang into a failure
        timeout -k 5 $((RUN + 60)) "$PERF" --no-huge -l 0 -- "${a[@]}" --server -p "$port" \
            --verify >"$TMP/s.out" 2>"$TMP/s.err" &
        spid=$!
        timeout -k 5 $((RUN + 60)) "$PERF" --no-huge -l 1 -- "${a[@]}" \
            --connect "127.0.0.1:$port" -D "$RUN" --verify >"$TMP/c.out" 2>"$TMP/c.err"
        crc=$?
        wait "$spid"
        src=$?
        runs=$n
        if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ]; then
            continue
        fi
        if grep -q "no completion" "$TMP/c.err" "$TMP/s.err"; then
            stalls=$((stalls + 1)); kind=stall
        elif grep -q -- "--verify: .* errors" "$TMP/c.err" "$TMP/s.err"; then
            wrong=$((wrong + 1)); kind="wrong bytes"
        else
            other=$((other + 1)); kind="exit $crc/$src"
        fi
        fail "run $n ($c): $kind: $(tail -n 1 "$TMP/c.err") / $(tail -n 1 "$TMP/s.err")"
        cp "$TMP/c.err" "/tmp/rdx-soak-$$-$n.client.err" 2>/dev/null
        cp "$TMP/s.err" "/tmp/rdx-soak-$$-$n.server.err" 2>/dev/null
    done
done
echo "soak: $runs runs of ${RUN} s ($CASES): $stalls stalls, $wrong with wrong bytes, $other other failures"
if [ "$runs" -eq 0 ]; then fail "no run completed"; fi
[ "$FAILS" -eq 0 ] && pass "soak: every run clean"
finish
