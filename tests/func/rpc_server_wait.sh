#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf's lib/rpc --server (echo over basic+infud) waits for its client
# as the raw --server does: until Ctrl-C by default (still there after 11 s,
# longer than the old 10 s limit, and then serving a client that comes;
# SIGINT while it waits ends it with exit 0 and one line), or for
# --bootstrap-timeout seconds when given (1: exit 2 within 5 s, one line).
source "$(dirname "$0")/lib.sh"
SRV=(--test echo --transport basic+infud --dev sw --sizes 100)

# wait_line FILE REGEX: up to 10 s for a line
wait_line() {
    for _ in $(seq 50); do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}

# default: past 11 s, then a client is served
port=$(free_port)
timeout -k 5 90 "$PERF" --no-huge -l 0 -- --server -p "$port" "${SRV[@]}" \
    >"$TMP/long.s.out" 2>"$TMP/long.s.err" &
spid=$!
wait_line "$TMP/long.s.out" "waiting for a client on port $port \(until Ctrl-C\)"
sleep 11
if kill -0 "$spid" 2>/dev/null; then
    timeout -k 5 60 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" "${SRV[@]}" -n 50 \
        --warmup 5 >"$TMP/long.c.out" 2>"$TMP/long.c.err"
    crc=$?
    wait "$spid"
    src=$?
    if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "calls ok 55 failed 0" "$TMP/long.c.err"; then
        pass "no --bootstrap-timeout: still waiting after 11 s, then served a client (both exit 0)"
    else
        fail "no --bootstrap-timeout: client $crc server $src: $(tail -n 1 "$TMP/long.c.err") / $(tail -n 1 "$TMP/long.s.err")"
    fi
else
    wait "$spid"
    fail "no --bootstrap-timeout: the server ended within 11 s (exit $?): $(tr '\n' '|' <"$TMP/long.s.err")"
fi

# default, then Ctrl-C while waiting: exit 0, one line
port=$(free_port)
timeout -k 5 60 "$PERF" --no-huge -l 0 -- --server -p "$port" "${SRV[@]}" \
    >"$TMP/int.s.out" 2>"$TMP/int.s.err" &
spid=$!
wait_line "$TMP/int.s.out" "waiting for a client"
sleep 0.5
kill -INT "$spid"
wait "$spid"
src=$?
if [ $src -eq 0 ] && [ "$(grep -c . "$TMP/int.s.err")" -eq 1 ] &&
   grep -q "^rdx-perf: no client on port $port: interrupted$" "$TMP/int.s.err"; then
    pass "SIGINT while waiting: exit 0, one line"
else
    fail "SIGINT while waiting: exit $src: $(tr '\n' '|' <"$TMP/int.s.err")"
fi

# --bootstrap-timeout 1: exit 2 within 5 s, one line
port=$(free_port)
start=$(date +%s)
timeout -k 5 30 "$PERF" --no-huge -l 0 -- --server -p "$port" "${SRV[@]}" --bootstrap-timeout 1 \
    >"$TMP/short.s.out" 2>"$TMP/short.s.err"
src=$?
took=$(($(date +%s) - start))
if [ $src -eq 2 ] && [ $took -le 5 ] && [ "$(grep -c . "$TMP/short.s.err")" -eq 1 ] &&
   grep -q "^rdx-perf: no client within 1.0 s on port $port$" "$TMP/short.s.err" &&
   grep -q "waiting for a client on port $port (1 s)" "$TMP/short.s.out"; then
    pass "--bootstrap-timeout 1: exit 2 after ${took} s, one line"
else
    fail "--bootstrap-timeout 1: exit $src after ${took} s: $(tr '\n' '|' <"$TMP/short.s.err")"
fi
finish
