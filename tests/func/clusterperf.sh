#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf --clusterperf on lib/rpc against clusterperf's own format: the
# names, order, descriptions and columns of tests/func/data/
# clusterperf_format.txt (clusterperf_check.py) for echo, basic.read and
# basic.write (--verify) on each transport, with the "concurrentOps N
# servers S" line when not 1, and for the raw-QP echo (rc, ud); the
# checker itself fails on a renamed line.
source "$(dirname "$0")/lib.sh"
SAMPLE=$HERE/data/clusterperf_format.txt
CHECK=$HERE/clusterperf_check.py
TRANSPORTS=(infrc basic+infud homa+infud)
CP=100,1K,10K,100K,1M

# cp NAME TEST TRANSPORT CONC SERVERS [ARGS...]: run and diff against the sample
cp_run() {
    local name=$1 test=$2 t=$3 conc=$4 srv=$5; shift 5
    run "$name" 120 "${EAL[@]}" -- --test "$test" --transport "$t" --dev sw --sizes "$CP" \
        -n 40 --warmup 5 --concurrent-ops "$conc" --servers "$srv" --clusterperf "$@"
    local rc=$?
    if [ $rc -eq 0 ] && python3 "$CHECK" "$SAMPLE" "$test" "$t" "$TMP/$name.out" "$conc" "$srv" \
        >"$TMP/$name.chk" 2>&1; then
        pass "$test $t concurrentOps $conc servers $srv: $(cat "$TMP/$name.chk")"
    else
        fail "$test $t concurrentOps $conc servers $srv: exit $rc: $(head -n 4 "$TMP/$name.chk" | tr '\n' '|') $(tail -n 2 "$TMP/$name.err" | tr '\n' '|')"
    fi
}

for t in "${TRANSPORTS[@]}"; do
    cp_run "echo-${t%%+*}" echo "$t" 1 1
done
cp_run echo-c2s2 echo basic+infud 2 2

# the raw-QP echo (no lib/rpc) prints the same lines under its
# transport's name: rc against the sample; ud (one datagram: up to 1K here)
# by its names
run raw-rc 120 "${EAL[@]}" -- --test echo --transport rc --dev sw --sizes "$CP" \
    -n 40 --warmup 5 --clusterperf
rc=$?
if [ $rc -eq 0 ] && python3 "$CHECK" "$SAMPLE" echo rc "$TMP/raw-rc.out" >"$TMP/raw-rc.chk" 2>&1; then
    pass "raw-QP echo over rc: $(cat "$TMP/raw-rc.chk")"
else
    fail "raw-QP echo over rc: exit $rc: $(head -n 4 "$TMP/raw-rc.chk" | tr '\n' '|') $(tail -n 2 "$TMP/raw-rc.err" | tr '\n' '|')"
fi
run raw-ud 60 "${EAL[@]}" -- --test echo --transport ud --dev sw --sizes 100,1K -n 40 --warmup 5 \
    --clusterperf
rc=$?
if [ $rc -eq 0 ] && grep -qx ud "$TMP/raw-ud.out" && grep -Eq "^echo100 .* median( \[SHORT\])?$" "$TMP/raw-ud.out" &&
   grep -Eq "^echo1K\.999 .* 99\.9%( \[SHORT\])?$" "$TMP/raw-ud.out" &&
   grep -Eq "^echoBw1K .* bandwidth receiving 1KB messages( \[SHORT\])?$" "$TMP/raw-ud.out" &&
   ! grep -q "^echo100\.50 " "$TMP/raw-ud.out"; then
    pass "raw-QP echo over ud: clusterperf's names under 'ud'"
else
    fail "raw-QP echo over ud: exit $rc: $(sed -n '/^ud$/,$p' "$TMP/raw-ud.out" | head -n 4 | tr '\n' '|')"
fi

# basic.read / basic.write: the KV service's table filled by the client,
# random objects read (every byte checked) and written, on each transport,
# one and two servers, one and two calls in flight
for t in "${TRANSPORTS[@]}"; do
    for f in read write; do
        cp_run "$f-${t%%+*}" "basic.$f" "$t" 1 1 --verify
        cp_run "$f-${t%%+*}-c2s2" "basic.$f" "$t" 2 2 --verify
    done
done
for f in "$TMP"/read-*.err "$TMP"/write-*.err; do
    grep -q "every response byte checked: OK" "$f" || fail "$(basename "$f" .err): --verify did not check the objects"
done

# --mix (no clusterperf test has one): rdx's lines per size and mix
run mix 60 "${EAL[@]}" -- --test echo --transport homa+infud --dev sw --mix 100:9,100K:1 -n 100 \
    --clusterperf
rc=$?
if [ $rc -eq 0 ] && grep -q "^mix100\.50 " "$TMP/mix.out" && grep -q "^mix100K\.99 " "$TMP/mix.out"; then
    pass "--mix keeps its per-size lines"
else
    fail "--mix: exit $rc: $(sed -n '/^homa+infud$/,$p' "$TMP/mix.out" | head -n 3 | tr '\n' '|')"
fi

# the knobs of clusterperf's optimisation list, printed with the results:
# server memory, the UD MTU and signalling interval (--rpc signal=N)
cp_run knobs basic.read basic+infud 1 1 --verify --mem huge --rpc signal=1,mtu=2048
if grep -qx "# server memory huge, mtu 2048, signal 1 (every packet)" "$TMP/knobs.out"; then
    pass "knob line: server memory huge, mtu 2048, signal 1"
else
    fail "knob line: $(grep '^#' "$TMP/knobs.out" | head -n 2 | tr '\n' '|')"
fi
cp_run knobs16 echo homa+infud 1 1
if grep -qx "# mtu [0-9]*, signal 16" "$TMP/knobs16.out"; then
    pass "knob line: lib/rpc's default signalling interval 16"
else
    fail "knob line (defaults): $(grep '^#' "$TMP/knobs16.out" | head -n 2 | tr '\n' '|')"
fi
run sig-big 20 "${EAL[@]}" -- --test echo --transport basic+infud --dev sw -n 10 --rpc signal=1000
rc=$?
if [ $rc -eq 2 ] && grep -q "sig_interval 1000 out of range" "$TMP/sig-big.err"; then
    pass "--rpc signal beyond queue_depth / 2: refused in one line"
else
    fail "--rpc signal=1000: exit $rc: $(head -n 3 "$TMP/sig-big.err" | tr '\n' '|')"
fi

# two processes: the --server's endpoints serve the KV table too
for t in "${TRANSPORTS[@]}"; do
    for f in read write; do
        n="two-$f-${t%%+*}"
        pair_split "$n" --transport "$t" --test echo :: --transport "$t" \
            --test "basic.$f" --sizes "$CP" -n 40 --warmup 5 --verify --concurrent-ops 2 --servers 2 \
            --clusterperf
        if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
           grep -q "every response byte checked: OK" "$TMP/$n.c.err" &&
           python3 "$CHECK" "$SAMPLE" "basic.$f" "$t" "$TMP/$n.c.out" 2 2 >"$TMP/$n.chk"; then
            pass "two processes, basic.$f $t: $(cat "$TMP/$n.chk")"
        else
            fail "two processes, basic.$f $t: client $CRC server $SRC_RC: $(head -n 3 "$TMP/$n.chk" 2>/dev/null | tr '\n' '|') $(tail -n 2 "$TMP/$n.c.err" | tr '\n' '|')"
        fi
    done
done

# bad input: one line, exit 2
run kv-raw 20 "${EAL[@]}" -- --test basic.read --dev sw -n 10
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/kv-raw.err")" -eq 1 ] && grep -q "runs on lib/rpc" "$TMP/kv-raw.err"; then
    pass "basic.read without an rpc transport: one line, exit 2"
else
    fail "basic.read without an rpc transport: exit $rc: $(head -n 3 "$TMP/kv-raw.err" | tr '\n' '|')"
fi

# the checker is not blind: a renamed line and a moved description fail it
if [ -s "$TMP/echo-basic.out" ]; then
    sed 's/^echo100\.9 /echo100.90/' "$TMP/echo-basic.out" >"$TMP/renamed.out"
    sed -E 's/ 90%( \[SHORT\])?$/ p90/' "$TMP/echo-basic.out" >"$TMP/redesc.out"
    if ! python3 "$CHECK" "$SAMPLE" echo basic+infud "$TMP/renamed.out" >/dev/null &&
       ! python3 "$CHECK" "$SAMPLE" echo basic+infud "$TMP/redesc.out" >/dev/null; then
        pass "the check fails on a renamed line and on a changed description"
    else
        fail "the check passed a renamed line or a changed description"
    fi
fi
finish
