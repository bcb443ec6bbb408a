#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf --clusterperf on lib/rpc against clusterperf's own format: the
# names, order, descriptions and columns of tests/func/data/
# clusterperf_format.txt (clusterperf_check.py), for each transport, with
# the "concurrentOps N servers S" line when not 1; the checker itself
# fails on a renamed line.
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
