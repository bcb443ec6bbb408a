#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every test x mode on the software device with --verify: exit 0, every
# payload byte checked, the JSON report valid against the schema with
# monotone percentiles, exactly the ops and bytes asked for, labelled
# "software device". UD (--transport ud) runs of send and echo, with and
# without the software device's loss injection.
source "$(dirname "$0")/lib.sh"

N=200
for t in echo write write_imm read send cas faa; do
    for m in lat bw; do
        case $t in
        echo) sz=(--sizes 100,1K) ; runs=2 ;;
        cas|faa) sz=(--keys 4) ; runs=1 ;;
        *) sz=(--sizes 8,4K) ; runs=2 ;;
        esac
        name=$t-$m
        run "$name" 120 "${EAL[@]}" -- --test "$t" --mode "$m" --dev sw --verify -n $N \
            "${sz[@]}" -t 8 --json "$TMP/$name.json"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            fail "$name: exit status $rc ($(tail -n 2 "$TMP/$name.err" | tr '\n' ' '))"
            continue
        fi
        if ! grep -q -- "--verify: every payload byte" "$TMP/$name.err"; then
            fail "$name: no verification line"; continue
        fi
        if out=$(python3 "$HERE/check_report.py" "$TMP/$name.json" "$SCHEMA" --sw \
                 --ops-per-run $N --runs $runs); then
            pass "$name"
        else
            fail "$name: $out"
        fi
    done
done

# Two QPs on one worker lcore, post lists and selective signaling.
if run q2 120 "${EAL[@]}" -- --test write --mode bw -s 1K -q 2 -t 16 -l 4 -Q 4 -n 400 \
        --dev sw --verify --json "$TMP/q2.json" &&
   python3 "$HERE/check_report.py" "$TMP/q2.json" "$SCHEMA" --ops-per-run 800 --runs 1 >/dev/null; then
    pass "write bw -q 2 -l 4 -Q 4"
else
    fail "write bw -q 2 -l 4 -Q 4: $(tail -n 1 "$TMP/q2.err")"
fi

# Ping-pong write past the receive slots (the marker of a reused slot must
# not pass for a new one), and completion events.
# Duration mode with selective signaling (the drain retires the unsignaled
# tail), device memory, a window below -Q.
for a in "write lat -n 1500" "send lat -n 300 -e" "write bw -n 300 -e" "write bw -D 0.3 -Q 16 -t 64" \
         "read bw -n 300 --mem dm" "write lat -n 300 --mem dm" "faa bw -n 300 --mem dm -s 8" \
         "write_imm bw -n 300 -t 4 -Q 16" "send bw -n 300 -t 8 -Q 3 -l 2"; do
    set -- $a
    if run "$1-$2-x" 60 "${EAL[@]}" -- --test "$1" --mode "$2" -s 64 --warmup 0 "${@:3}" \
            --dev sw --verify; then
        pass "$a --verify"
    else
        fail "$a --verify: $(tail -n 1 "$TMP/$1-$2-x.err")"
    fi
done

# Loopback with the server ends on the main lcore (the model on its own
# thread), every test.
for t in echo write write_imm read send faa; do
    if run "split-$t" 60 "${EAL[@]}" -- --test "$t" --mode lat -n 300 --loopback-lcores split \
            --sw-progress thread --dev sw --verify; then
        pass "--loopback-lcores split: $t"
    else
        fail "--loopback-lcores split: $t: $(tail -n 1 "$TMP/split-$t.err")"
    fi
done

# A completion error is named (status and operation) and the exit is non-zero.
for t in write read faa; do
    run "err-$t" 60 "${EAL[@]}" -- --test "$t" --mode bw -n 50 --dev sw --inject-bad-rkey
    rc=$?
    op=$(case $t in write) echo RDMA_WRITE ;; read) echo RDMA_READ ;; faa) echo ATOMIC_FA ;; esac)
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
       grep -q "$op failed: remote access error" "$TMP/err-$t.err"; then
        pass "completion error: $(head -n 1 "$TMP/err-$t.err")"
    else
        fail "completion error $t: exit $rc: $(head -n 2 "$TMP/err-$t.err" | tr '\n' '|')"
    fi
done

# UD (--transport ud): send and echo, lat and bw, --verify, one process and
# two; every datagram arrives on a lossless device (the report's knobs say
# so), the transport is in the report.
ud_knob() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["knobs"].get(sys.argv[2], ""))' "$@"; }
for t in send echo; do
    for m in lat bw; do
        name=ud-$t-$m
        run "$name" 120 "${EAL[@]}" -- --test "$t" --mode "$m" --transport ud --dev sw --verify \
            -n $N --sizes 8,1K -t 8 --json "$TMP/$name.json"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            fail "$name: exit status $rc ($(tail -n 2 "$TMP/$name.err" | tr '\n' ' '))"; continue
        fi
        if ! grep -q -- "--verify: every payload byte checked: OK" "$TMP/$name.err"; then
            fail "$name: no verification line"; continue
        fi
        if ! out=$(python3 "$HERE/check_report.py" "$TMP/$name.json" "$SCHEMA" --sw \
                   --ops-per-run $N --runs 2); then
            fail "$name: $out"; continue
        fi
        sent=$(ud_knob "$TMP/$name.json" ud_sent); got=$(ud_knob "$TMP/$name.json" ud_arrived)
        if [ "$(ud_knob "$TMP/$name.json" transport)" = ud ] && [ -n "$sent" ] &&
           [ "$sent" -gt 0 ] && [ "$sent" = "$got" ] &&
           [ "$(ud_knob "$TMP/$name.json" sw_ud_recv)" = "$got" ]; then
            pass "$name ($sent datagrams, all arrived)"
        else
            fail "$name: transport '$(ud_knob "$TMP/$name.json" transport)', sent '$sent', arrived '$got'"
        fi
    done
done
ud_pair() { # name, args (both ends)
    local name=$1; shift
    local port; port=$(free_port)
    timeout -k 5 60 "$PERF" --no-huge -l 0 -- --server -p "$port" "$@" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    sleep 0.5
    timeout -k 5 60 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" "$@" \
        --json "$TMP/$name.json" >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC_RC=$?
}
for a in "send lat" "send bw" "echo lat" "echo bw"; do
    set -- $a
    ud_pair "ud2-$1-$2" --test "$1" --mode "$2" --transport ud --dev sw --verify -n $N -s 1K
    if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
       grep -q -- "--verify: every payload byte checked: OK" "$TMP/ud2-$1-$2.c.err" &&
       python3 "$HERE/check_report.py" "$TMP/ud2-$1-$2.json" "$SCHEMA" --ops-per-run $N \
           --runs 1 >/dev/null &&
       [ "$(ud_knob "$TMP/ud2-$1-$2.json" ud_sent)" = "$(ud_knob "$TMP/ud2-$1-$2.json" ud_arrived)" ]; then
        pass "two processes: $a --transport ud --verify"
    else
        fail "two processes: $a --transport ud: client $CRC server $SRC_RC: $(tail -n 1 "$TMP/ud2-$1-$2.c.err") / $(tail -n 1 "$TMP/ud2-$1-$2.s.err")"
    fi
done

# UD with the software device's loss injection (5 % of datagrams dropped,
# seeded): no hang, the ping-pong re-sends what was lost and still completes
# every op, the losses are counted and agree with the device's own counter;
# a stream counts what arrived. One process and two.
ud_loss_check() { # name, json, stream(0/1), what
    local sent got resent drops
    sent=$(ud_knob "$2" ud_sent); got=$(ud_knob "$2" ud_arrived)
    resent=$(ud_knob "$2" ud_resent); drops=$(ud_knob "$2" sw_ud_inject_drop)
    if [ -z "$sent" ] || [ -z "$drops" ] || [ "$drops" -eq 0 ]; then
        fail "$4: no drops injected (sent '$sent', sw_ud_inject_drop '$drops')"; return
    fi
    # a stream's losses are exactly the device's drops; a ping-pong may end
    # with the answer to a request sent again still unread (>=)
    if [ "$1" != two ] && { [ $((sent - got)) -lt "$drops" ] ||
       { [ "$3" -eq 1 ] && [ $((sent - got)) -ne "$drops" ]; }; }; then
        fail "$4: $sent sent - $got arrived vs $drops dropped by the device"; return
    fi
    if [ "$3" -eq 0 ] && [ "$resent" -eq 0 ]; then
        fail "$4: datagrams lost but no request sent again"; return
    fi
    pass "$4: $sent sent, $got arrived, $drops dropped, $resent re-sent"
}
LOSS=sw:ud_drop=0.05,seed=1
for a in "send lat 0" "echo bw 0" "send bw 1"; do
    set -- $a
    name=udloss-$1-$2
    if ! run "$name" 120 "${EAL[@]}" -- --test "$1" --mode "$2" --transport ud --dev $LOSS \
            --verify -n 400 -s 256 --json "$TMP/$name.json"; then
        fail "$name: exit $? $(tail -n 1 "$TMP/$name.err")"; continue
    fi
    if [ "$3" -eq 0 ] && ! python3 "$HERE/check_report.py" "$TMP/$name.json" "$SCHEMA" \
            --ops-per-run 400 --runs 1 >/dev/null; then
        fail "$name: ping-pong did not complete every op"; continue
    fi
    ud_loss_check one "$TMP/$name.json" "$3" "UD loss $1 $2 --dev $LOSS"
done
ud_pair udloss2 --test send --mode lat --transport ud --dev $LOSS --verify -n 300 -s 64
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ]; then
    ud_loss_check two "$TMP/udloss2.json" 0 "two processes: UD loss send lat"
else
    fail "two processes: UD loss send lat: client $CRC server $SRC_RC: $(tail -n 1 "$TMP/udloss2.c.err")"
fi

# The main lcore alone (no worker), duration mode with percentiles.
if run main-only 60 --no-huge -l 0 -- --test read --mode lat -s 64 -D 0.5 --warmup 0.1s \
        --dev sw --json "$TMP/main.json" &&
   python3 "$HERE/check_report.py" "$TMP/main.json" "$SCHEMA" --runs 1 >/dev/null; then
    pass "read lat -D on the main lcore"
else
    fail "read lat -D on the main lcore: $(tail -n 1 "$TMP/main-only.err")"
fi

# Default stdout: perftest's compact table only (total rows: one per size);
# --verbose adds the knobs and per-lcore table, --clusterperf its lines;
# CSV has a header + rows.
if run tables 60 "${EAL[@]}" -- --test echo --sizes 100 -n 100 --dev sw --csv "$TMP/e.csv" &&
   grep -q "t_typical\[usec\]" "$TMP/tables.out" && grep -qE "^ 100 +100 " "$TMP/tables.out" &&
   ! grep -q "echo100" "$TMP/tables.out" && [ "$(wc -l <"$TMP/tables.out")" -le 12 ] &&
   [ "$(wc -l <"$TMP/e.csv")" -ge 3 ]; then
    pass "compact table ($(wc -l <"$TMP/tables.out") lines) and CSV"
else
    fail "compact table and CSV: $(head -c 600 "$TMP/tables.out")"
fi
if run tables2 60 "${EAL[@]}" -- --test echo --sizes 100 -n 100 --dev sw --verbose --clusterperf &&
   grep -q "^echo100.99 " "$TMP/tables2.out" && grep -q "^echoBw100 " "$TMP/tables2.out" &&
   grep -q " sq_depth " "$TMP/tables2.out" &&
   grep -q "MB/s(1e6)" "$TMP/tables2.out"; then
    pass "--verbose table and --clusterperf lines"
else
    fail "--verbose / --clusterperf: $(head -c 600 "$TMP/tables2.out")"
fi
finish
