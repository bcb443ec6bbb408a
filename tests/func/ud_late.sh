#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# UD datagrams that arrive late (the software device's ud_delay_us longer
# than the ping-pong's 20-ms re-send timeout, or than a run) under --verify:
# a late request of an op the client has completed, or a datagram of an
# earlier run (another size) arriving in the next one, is no wrong byte.
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
