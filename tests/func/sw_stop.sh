#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A peer process that is stopped, again and again, in the middle of a
# two-process run on the software device (SIGSTOP for 150 ms, SIGCONT,
# client and server in turn): a descheduled peer is no device fault, so
# both ends finish with exit 0, --verify OK and not one "device error"
# line, and nothing hangs (the device waits for a shared lock as long as
# its holder lives). How many stops landed while a lock was held shows in
# the "waits for a shared lock" notices counted in the pass line (EAL
# --log-level notice). RC echo and send bw seldom stop inside a lock the
# other process needs; lib/rpc's homa+infud echo bw with two calls in
# flight does, both engines producing into each CQ: 70 stops gave 19
# device errors ("CQ 0 of /rdx-sw-...: lock not obtained in 100 ms") and
# exit 1 on both ends before, 3 waits over 100 ms and exit 0 after.
source "$(dirname "$0")/lib.sh"

STOPS=${RDX_SW_STOP_ROUNDS:-40}

# the rdx-perf process under a timeout wrapper (its only child)
child_of() {
    local i c
    for i in $(seq 50); do
        c=$(ps -o pid= --ppid "$1" 2>/dev/null | head -n 1 | tr -d ' ')
        [ -n "$c" ] && { echo "$c"; return 0; }
        sleep 0.1
    done
    return 1
}

# stop_run NAME SERVER-ARGS... :: CLIENT-ARGS...: the pair runs (120 s at most);
# meanwhile STOPS stops of 150 ms, client and server in turn
stop_run() {
    local name=$1; shift
    local sargs=() cargs=() side=s x
    for x in "$@"; do
        if [ "$x" = "::" ]; then side=c; continue; fi
        if [ $side = s ]; then sargs+=("$x"); else cargs+=("$x"); fi
    done
    local port; port=$(free_port)
    timeout -k 5 120 "$PERF" --no-huge -l 0 --log-level notice -- --server -p "$port" --dev sw "${sargs[@]}" \
        --bootstrap-timeout 60 >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local st=$!
    sleep 0.5
    timeout -k 5 120 "$PERF" --no-huge -l 1 --log-level notice -- --connect "127.0.0.1:$port" --dev sw "${cargs[@]}" \
        --bootstrap-timeout 60 >"$TMP/$name.c.out" 2>"$TMP/$name.c.err" &
    local ct=$!
    local sp cp i p stopped=0
    sp=$(child_of "$st") && cp=$(child_of "$ct") || { fail "$name: rdx-perf did not start"; return; }
    sleep 1 # connected and running
    for i in $(seq "$STOPS"); do
        if [ $((i % 2)) -eq 0 ]; then p=$sp; else p=$cp; fi
        kill -STOP "$p" 2>/dev/null || break
        sleep 0.15
        kill -CONT "$p" 2>/dev/null
        stopped=$((stopped + 1))
        sleep 0.05
    done
    wait "$ct"
    local crc=$?
    wait "$st"
    local src=$?
    local n
    n=$(cat "$TMP/$name.c.err" "$TMP/$name.s.err" | grep -c "rdx_sw: device error")
    if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && [ "$n" -eq 0 ] && [ "$stopped" -ge 10 ] &&
       grep -q -E "every payload byte checked: OK|calls ok [1-9][0-9]* failed 0" "$TMP/$name.c.err"; then
        pass "$name: $stopped stops of 150 ms, both exit 0, --verify OK or no failed call, no device error ($(cat "$TMP/$name.c.err" "$TMP/$name.s.err" | grep -c "waits for a shared lock") lock waits over 100 ms)"
    else
        fail "$name: $stopped stops: client $crc server $src, $n device error line(s): $(grep -h -m 2 -E "device error|failed|rdx-perf:" "$TMP/$name.c.err" "$TMP/$name.s.err" | tr '\n' '|')"
    fi
}

E=(--test echo --sizes 100 -D 10 --verify)
stop_run "echo under stops" "${E[@]}" :: "${E[@]}"
S=(--test send --mode bw -s 1K -D 10 --verify)
stop_run "send bw under stops" "${S[@]}" :: "${S[@]}"
H=(--test echo --transport homa+infud --mode bw --sizes 100 --concurrent-ops 2)
stop_run "homa+infud echo bw, 2 calls in flight, under stops" "${H[@]}" :: "${H[@]}" -D 10
finish
