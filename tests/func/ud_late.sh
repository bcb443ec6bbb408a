#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# UD datagrams that arrive late (the software device's ud_delay_us longer
# than the ping-pong's 20-ms re-send timeout, or than a run) under --verify:
# a late request of an op the client has completed, or a datagram of an
# earlier run (another size) arriving in the next one, is no wrong byte; a
# stream's run counts only its own datagrams (the others are stale).
# Before: a ping-pong responder answered a late request into the buffer slot
# of a response not sent yet (the client saw another op's bytes), and both
# loops checked a datagram of an earlier run against this run's size.
# Wall-clock delays, so each case runs a few seeds.
source "$(dirname "$0")/lib.sh"

verify_ok() { # name what: exit 0 and the verification line
    local rc=$1
    if [ "$rc" -eq 0 ] && grep -q -- "--verify: every payload byte checked: OK" "$TMP/$2.err"; then
        return 0
    fi
    fail "$3: exit $rc: $(grep -E 'verify|rdx-perf: UD' "$TMP/$2.err" | tr '\n' '|')"
    return 1
}

# A stream's datagrams delayed past the end of their run arrive in the next.
ok=1
for s in 1 2; do
    run "stream-$s" 60 "${EAL[@]}" -- --test send --mode bw --transport ud -t 8 \
        --dev "sw:ud_delay_us=20000,ud_delay=0.01,seed=$s" --verify -D 0.2 --warmup 0 \
        --sizes 8,1K,64
    verify_ok $? "stream-$s" "send bw, datagrams of an earlier run (seed $s)" || ok=0
done
[ $ok -eq 1 ] && pass "send bw --sizes 8,1K,64: late datagrams of earlier runs are no verify errors"

# Each run counts only its own datagrams: 5% delayed by 30 ms, so the last
# ones of a run arrive in the next, where they are stale (the immediate
# carries the run) and left out of its count. Per run: arrived <= sent, no
# stale datagram in the first run, some in each later one. Before: a run
# counted the late datagrams of the one before (1K after 8: 74691 + 242
# arrived of 74752 sent) and no stale count existed.
runs_of() { # file -> "size sent arrived stale" per run (stale: "none" if not said)
    local r='.*UD send bw size \([^:]*\): client->server \([0-9]*\) datagrams sent, \([0-9]*\) arrived;'
    sed -n -e "s/$r.*; \([0-9]*\) stale (of earlier runs, late)\$/\1 \2 \3 \4/p" -e t \
        -e "s/$r.*/\1 \2 \3 none/p" "$1"
}
runs_ok() { # file what: the per-run lines as above
    local n=0 size sent got stale bad=""
    while read -r size sent got stale; do
        n=$((n + 1))
        [ "$got" -le "$sent" ] || bad+=" size $size: $got arrived of $sent sent;"
        if [ "$stale" = none ]; then
            bad+=" size $size: no stale count;"
        elif [ $n -eq 1 ] && [ "$stale" -ne 0 ]; then
            bad+=" size $size (first run): $stale stale;"
        elif [ $n -gt 1 ] && [ "$stale" -eq 0 ]; then
            bad+=" size $size: no stale datagram;"
        fi
    done < <(runs_of "$1")
    [ $n -eq 3 ] || bad+=" $n run line(s), not 3;"
    [ -z "$bad" ] && return 0
    fail "$2:$bad $(grep 'rdx-perf: UD' "$1" | tr '\n' '|')"
    return 1
}
ok=1
for s in 1 2; do
    run "runs-$s" 60 "${EAL[@]}" -- --test send --mode bw --transport ud -t 8 \
        --dev "sw:ud_delay_us=30000,ud_delay=0.05,seed=$s" --verify -D 0.2 --warmup 0 \
        --sizes 8,1K,64
    verify_ok $? "runs-$s" "send bw, late datagrams across runs (seed $s)" || ok=0
    runs_ok "$TMP/runs-$s.err" "send bw --sizes 8,1K,64, 30-ms delays (seed $s)" || ok=0
done
[ $ok -eq 1 ] && pass "send bw --sizes 8,1K,64: each run counts its own datagrams, late ones of the run before are stale"
# Two processes: the server takes each run's datagrams by the run it counts
# (one RUN per run) and leaves late ones of the run before out; a server
# that counted runs otherwise would take none (receives for a whole run: no
# loss but the 5% delayed). Late datagrams between two processes often do
# not arrive at all (not counted either way), so stale ones are not required.
a=(--test send --mode bw --transport ud -t 8 -r 4096 --verify -n 3000 --warmup 0 --sizes 8,1K,64)
pair_split runs2p "${a[@]}" :: "${a[@]}" --dev "sw:ud_delay_us=30000,ud_delay=0.05,seed=1"
bad="" n=0
[ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] || bad+=" exit $CRC (client) $SRC_RC (server);"
while read -r size sent got; do
    n=$((n + 1))
    [ "$got" -le "$sent" ] && [ "$got" -ge $((sent * 85 / 100)) ] ||
        bad+=" size $size: $got arrived of $sent sent;"
done < <(sed -n 's/.*UD send bw size \([^:]*\): client->server \([0-9]*\) datagrams sent, \([0-9]*\) arrived;.*/\1 \2 \3/p' "$TMP/runs2p.c.err")
[ $n -eq 3 ] || bad+=" $n run line(s), not 3;"
grep -q "UD run 1: " "$TMP/runs2p.s.err" && bad+=" stale datagrams in the first run;"
grep -q -- "--verify: every payload byte checked: OK" "$TMP/runs2p.c.err" || bad+=" no --verify OK;"
if [ -z "$bad" ]; then
    pass "two processes, send bw --sizes 8,1K,64 -n 3000: each run takes its own datagrams ($(grep -c 'stale datagram' "$TMP/runs2p.s.err") run(s) with stale ones)"
else
    fail "two processes, late datagrams across runs:$bad $(grep 'rdx-perf: UD' "$TMP"/runs2p.*.err | tr '\n' '|')"
fi

# Ping-pongs: requests delayed past the re-send (their op answered since).
ok=1
for s in 1 2 3 4 5 6; do
    run "echo-$s" 60 "${EAL[@]}" -- --test echo --mode bw --transport ud -t 8 -s 1K -n 1000 \
        --dev "sw:ud_delay_us=25000,ud_delay=0.3,seed=$s" --verify
    verify_ok $? "echo-$s" "echo bw, late requests (seed $s)" || ok=0
done
[ $ok -eq 1 ] && pass "echo bw -t 8: late requests answered into no pending response's slot"
ok=1
for s in 1 2 3; do
    run "lat-$s" 60 "${EAL[@]}" -- --test send --mode lat --transport ud -n 400 \
        --dev "sw:ud_delay_us=30000,ud_delay=0.05,seed=$s" --verify --sizes 8,1K,64
    verify_ok $? "lat-$s" "send lat, late requests of earlier runs (seed $s)" || ok=0
done
[ $ok -eq 1 ] && pass "send lat --sizes 8,1K,64: late requests of earlier runs are no verify errors"

# Repeated datagrams (ud_dup) are no new messages: a stream counts what
# arrived once, so the loss beside them still shows (before: 440 sent,
# 442 arrived at ud_dup=0.1,ud_drop=0.1, and the bandwidth was not scaled).
arrived_of() { # file -> "sent arrived" of the client->server direction
    sed -n 's/.*client->server \([0-9]*\) datagrams sent, \([0-9]*\) arrived.*/\1 \2/p' "$1" | head -n 1
}
run dup 60 "${EAL[@]}" -- --test send --mode bw --transport ud -s 512 -n 20000 \
    --dev "sw:ud_dup=0.3,seed=4" --verify
rc=$?
read -r sent got <<<"$(arrived_of "$TMP/dup.err")"
if [ "$rc" -eq 0 ] && [ -n "$sent" ] && [ "$sent" = "$got" ]; then
    pass "send bw, 30% repeated, none lost: $got of $sent arrived"
else
    fail "send bw, repeated datagrams: exit $rc, sent '$sent' arrived '$got'"
fi
run dupdrop 60 "${EAL[@]}" -- --test send --mode bw --transport ud -s 512 -n 20000 \
    --dev "sw:ud_dup=0.1,ud_drop=0.1,seed=3" --verify
rc=$?
read -r sent got <<<"$(arrived_of "$TMP/dupdrop.err")"
if [ "$rc" -eq 0 ] && [ -n "$sent" ] && [ "$got" -lt $((sent * 95 / 100)) ] &&
   [ "$got" -gt $((sent * 80 / 100)) ]; then
    pass "send bw, 10% repeated and 10% dropped: $got of $sent arrived (the loss shows)"
else
    fail "send bw, repeated and dropped: exit $rc, sent '$sent' arrived '$got'"
fi
finish
