#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every test x mode on the software device with --verify: exit 0, every
# payload byte checked, the JSON report valid against the schema with
# monotone percentiles, exactly the ops and bytes asked for, labelled
# "software device".
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

# The main lcore alone (no worker), duration mode with percentiles.
if run main-only 60 --no-huge -l 0 -- --test read --mode lat -s 64 -D 0.5 --warmup 0.1s \
        --dev sw --json "$TMP/main.json" &&
   python3 "$HERE/check_report.py" "$TMP/main.json" "$SCHEMA" --runs 1 >/dev/null; then
    pass "read lat -D on the main lcore"
else
    fail "read lat -D on the main lcore: $(tail -n 1 "$TMP/main-only.err")"
fi

# The table and the clusterperf lines are on stdout; CSV has a header + rows.
if run tables 60 "${EAL[@]}" -- --test echo --sizes 100 -n 100 --dev sw --csv "$TMP/e.csv" &&
   grep -q "echo100" "$TMP/tables.out" && [ "$(wc -l <"$TMP/e.csv")" -ge 3 ]; then
    pass "table, clusterperf lines and CSV"
else
    fail "table, clusterperf lines and CSV"
fi
finish
