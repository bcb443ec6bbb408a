#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# kv_server against a hostile client, over each lib/rpc transport on the
# software device. Per transport and case a server for four clients: a
# good one PUTs 20 keys and GETs them back (every GET's bytes checked)
# before the attack; a second good one does the same all through it; a
# hostile one (its own key range) is then attacked mid-call:
#   scribble: random words over its own device segment (its MR, CQ and QP
#             tables, rings and buffers: what the server's engine reads),
#             by sw_scribble, for 2 s; then it is killed
#   kill:     SIGKILL
#   stop:     SIGSTOP for 3 s, SIGCONT, then SIGTERM
# and a NEW good client after it must complete its PUT/GET set within 30 s
# while the server lives. Passes when no good client saw a lost or wrong
# value and the server either served the client after (then ended once all
# four had gone: exit 0, or 1 with one line naming the device errors) or
# exited 1 with one line naming the reason; alive but not serving (a
# wedge) fails.
# Usage: kv_hostile.sh PATH/TO/kv_server PATH/TO/sw_scribble (kv_client
# next to kv_server)
source "$(dirname "$0")/lib.sh"
KVS=$PERF
KVC=$(dirname "$KVS")/kv_client
SCRIBBLE=${2:-}
[ -x "$KVC" ] || { echo "no kv_client next to $KVS" >&2; exit 1; }
[ -n "$SCRIBBLE" ] && [ -x "$SCRIBBLE" ] || { echo "usage: $0 PATH/TO/kv_server PATH/TO/sw_scribble" >&2; exit 1; }

wait_listen() {
    local i
    for i in $(seq 100); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
}
# sessions PORT: established TCP connections to the server (the clients')
sessions() { ss -Htn state established "( sport = :$1 )" 2>/dev/null | wc -l; }
wait_sessions() {
    local i
    for i in $(seq 100); do
        [ "$(sessions "$1")" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
# good NAME: a good client's PUT/GET set (20 keys PUT, 3000 calls, 90 %
# GETs, every one's bytes checked), bounded by 30 s; exit in grc
good() {
    timeout -k 5 30 "$KVC" --no-huge -l 1 -- --transport "$t" --dev sw --connect "127.0.0.1:$port" \
        -n 3000 --keys 20 >"$TMP/$1.out" 2>"$TMP/$1.err"
    grc=$?
}
good_ok() {
    grep -Eq "^kv_client: $2 ops .*misses 0, errors 0, bad values 0$" "$TMP/$1.out"
}
alive() { kill -0 "$1" 2>/dev/null; }

for t in infrc basic+infud homa+infud; do
    for case in scribble kill stop; do
        what="$t, $case"
        n=${t%%+*}-$case
        port=$(free_port)
        "$KVS" --no-huge -l 0 -- --transport "$t" --dev sw -p "$port" --clients 4 \
            >"$TMP/s-$n.out" 2>"$TMP/s-$n.err" &
        spid=$!
        wait_listen "$port"
        good "b-$n"
        brc=$grc
        # the second good client runs until told to stop (SIGINT: it ends
        # its loop and prints its count), all through the attack
        "$KVC" --no-huge -l 1 -- --transport "$t" --dev sw --connect "127.0.0.1:$port" \
            -n 1000000000 --keys 20 >"$TMP/d-$n.out" 2>"$TMP/d-$n.err" &
        dpid=$!
        # the hostile in a subshell of its own: bash's notice of its death
        # by a signal goes nowhere (the subshell's wait sees it, not ours)
        rm -f "$TMP/h.pid"
        ( "$KVC" --no-huge -l 1 -- --transport "$t" --dev sw --connect "127.0.0.1:$port" \
            -n 1000000000 --keys 20 --key-base 1000 >"$TMP/h-$n.out" 2>"$TMP/h-$n.err" &
          echo $! >"$TMP/h.pid"; wait ) 2>/dev/null &
        hsub=$!
        for _ in $(seq 50); do [ -s "$TMP/h.pid" ] && break; sleep 0.05; done
        hpid=$(cat "$TMP/h.pid")
        wait_sessions "$port" 2
        sleep 0.5
        case $case in
        scribble)
            timeout -k 5 20 "$SCRIBBLE" "$hpid" 2 "$RANDOM" >"$TMP/x-$n.out" 2>&1
            sleep 0.3
            kill -KILL "$hpid" 2>/dev/null ;;
        kill)
            kill -KILL "$hpid" 2>/dev/null ;;
        stop)
            kill -STOP "$hpid" 2>/dev/null
            sleep 3
            kill -CONT "$hpid" 2>/dev/null
            sleep 0.3
            kill -TERM "$hpid" 2>/dev/null ;;
        esac
        sleep 0.5
        kill -INT "$dpid" 2>/dev/null
        for _ in $(seq 100); do alive "$dpid" || break; sleep 0.1; done
        kill -KILL "$dpid" "$hpid" 2>/dev/null
        wait "$dpid" 2>/dev/null
        drc=$?
        wait "$hsub"
        # a NEW client after the attack, while the server lives
        salive=0
        alive "$spid" && salive=1
        arc=none
        if [ $salive -eq 1 ]; then
            good "a-$n"
            arc=$grc
        fi
        # the server ends once its four clients have gone
        for _ in $(seq 150); do alive "$spid" || break; sleep 0.1; done
        if alive "$spid"; then
            kill -KILL "$spid" 2>/dev/null
            wait "$spid" 2>/dev/null
            src=hung
        else
            wait "$spid"
            src=$?
        fi
        lines=$(grep -c '^kv_server:' "$TMP/s-$n.err")
        reason=$(grep '^kv_server:' "$TMP/s-$n.err" | head -n 1)
        # the server may have stopped at once on a dead endpoint (one line)
        # while the client after was on its way: that client had no server
        if [ "$arc" != none ] && [ "$arc" -ne 0 ] && [ "$src" = 1 ] && [ "$lines" -eq 1 ] &&
           grep -q '^kv_server: endpoint .* is dead' "$TMP/s-$n.err"; then
            arc=none
        fi
        # good clients: every value right, none lost (a call that failed
        # counts as lost, a miss of a key PUT too)
        if [ $brc -eq 0 ] && good_ok "b-$n" 3000 && [ $drc -eq 0 ] && good_ok "d-$n" "[0-9]+" &&
           { [ "$arc" = none ] || { [ "$arc" -eq 0 ] && good_ok "a-$n" 3000; }; }; then
            pass "$what: good clients 0 lost, 0 wrong: during the attack $(sed -n 's/^kv_client: \([0-9]*\) ops.*/\1/p' "$TMP/d-$n.out") calls$([ "$arc" = none ] || echo ", after it 3000")"
        else
            fail "$what: a good client: before exit $brc, during exit $drc, after exit $arc: $(cat "$TMP/b-$n.out" "$TMP/d-$n.out" "$TMP/a-$n.out" 2>/dev/null | cut -c1-200 | tr '\n' '|') $(tail -n 2 "$TMP/d-$n.err" "$TMP/a-$n.err" 2>/dev/null | tr '\n' '|')"
        fi
        # the attack happened: the scribbler mapped the hostile's segment
        if [ $case = scribble ]; then
            if grep -Eq '^sw_scribble: [1-9][0-9]* words over' "$TMP/x-$n.out"; then
                pass "$what: $(cat "$TMP/x-$n.out")"
            else
                fail "$what: no scribble: $(tr '\n' '|' <"$TMP/x-$n.out")"
            fi
        fi
        # the server: served the client after, or exited 1 with one line
        if [ "$src" = hung ]; then
            fail "$what: server alive 15 s after its last client (wedged): $(tail -n 3 "$TMP/s-$n.err" | tr '\n' '|')"
        elif [ "$arc" = 0 ] && { [ "$src" -eq 0 ] || { [ "$src" -eq 1 ] && [ "$lines" -eq 1 ]; }; }; then
            pass "$what: server served a new client after the attack, then exit $src${reason:+: $reason}"
        elif [ "$arc" = none ] && [ "$src" -eq 1 ] && [ "$lines" -eq 1 ]; then
            pass "$what: server exit 1 with one line: $reason"
        else
            fail "$what: server alive $salive after the attack, new client exit $arc, server exit $src, $lines kv_server line(s): $(tail -n 4 "$TMP/s-$n.err" | tr '\n' '|') $(tail -n 2 "$TMP/a-$n.err" 2>/dev/null | tr '\n' '|')"
        fi
    done
done
finish
