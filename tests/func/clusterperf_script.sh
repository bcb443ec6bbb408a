#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/clusterperf.sh on part of its matrix (basic.read and echo over
# basic+infud: concurrentOps 1 / servers 1, concurrentOps 2, servers 2):
# one progress line per run, every section of clusterperf.txt in
# clusterperf's format (clusterperf_check.py), clusterperf.json with every
# figure, the knob line and rdx-perf's report of each run; a bad value is
# refused in one line, exit 2.
source "$(dirname "$0")/lib.sh"
CHECK=$HERE/clusterperf_check.py
SAMPLE=$HERE/data/clusterperf_format.txt
export RDX_PERF=$PERF

timeout -k 5 200 "$SRC/scripts/clusterperf.sh" -o "$TMP/cp" --tests echo,basic.read \
    --transports basic+infud -- -n 50 --warmup 5 >"$TMP/cp.out" 2>"$TMP/cp.err"
rc=$?
n=$(grep -c '^clusterperf.sh: \[ *[0-9]*/6\] .* ok$' "$TMP/cp.err")
if [ $rc -eq 0 ] && [ "$n" -eq 6 ]; then
    pass "6 runs, a progress line each"
else
    fail "exit $rc, $n progress lines: $(tail -n 3 "$TMP/cp.err" | tr '\n' '|')"
fi
# each section of the report against the format sample
awk -v d="$TMP" 'BEGIN { k = 0 } /^$/ { k++; next } { print > (d "/sec" k) }' "$TMP/cp/clusterperf.txt"
k=0
for cfg in "echo 1 1" "echo 2 1" "echo 1 2" "basic.read 1 1" "basic.read 2 1" "basic.read 1 2"; do
    read -r test c s <<<"$cfg"
    if python3 "$CHECK" "$SAMPLE" "$test" basic+infud "$TMP/sec$k" "$c" "$s" >"$TMP/chk$k" 2>&1; then
        pass "section $((k + 1)): $test concurrentOps $c servers $s: $(cat "$TMP/chk$k")"
    else
        fail "section $((k + 1)): $test concurrentOps $c servers $s: $(head -n 3 "$TMP/chk$k" | tr '\n' '|')"
    fi
    k=$((k + 1))
done
if python3 - "$TMP/cp/clusterperf.json" >"$TMP/json.chk" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
bad = []
if [(r["test"], r["concurrent_ops"], r["servers"]) for r in runs] != [
        ("echo", 1, 1), ("echo", 2, 1), ("echo", 1, 2),
        ("basic.read", 1, 1), ("basic.read", 2, 1), ("basic.read", 1, 2)]:
    bad.append("runs %s" % [(r["test"], r["concurrent_ops"], r["servers"]) for r in runs])
for r in runs:
    if len(r["figures"]) != 40 or any(f["value"] <= 0 for f in r["figures"]):
        bad.append("%s: %d figures" % (r["test"], len(r["figures"])))
    if not r["knobs"] or "signal 16" not in r["knobs"] or r["status"] != "completed":
        bad.append("%s: knobs %r status %r" % (r["test"], r["knobs"], r["status"]))
    if not r["report"] or len([x for x in r["report"]["results"] if x["lcore"] == -1]) != 5:
        bad.append("%s: no rdx-perf report of 5 rows" % r["test"])
print("; ".join(bad) if bad else "%d runs, %d figures" % (len(runs), sum(len(r["figures"]) for r in runs)))
sys.exit(1 if bad else 0)
PY
then
    pass "clusterperf.json: $(cat "$TMP/json.chk")"
else
    fail "clusterperf.json: $(cat "$TMP/json.chk")"
fi

"$SRC/scripts/clusterperf.sh" -o "$TMP/bad" --transports rc >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && [ ! -e "$TMP/bad" ]; then
    pass "--transports rc: one line, exit 2"
else
    fail "--transports rc: exit $rc: $(head -n 2 "$TMP/bad.err" | tr '\n' '|')"
fi
finish
