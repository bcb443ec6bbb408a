#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-plot end to end: a report from lib/stats (gen_report) -> PNG files
# (checked by their magic bytes); bad input -> one line, exit 2.
# usage: plot_test.sh PATH/TO/rdx-plot PATH/TO/gen_report
# (tests/func/plot.sh runs it on rdx-perf's own reports and logs)
set -u
PLOT=$1
GEN=$2
# rdx-plot runs on Debian's python3 (its shebang): use that one here too.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import matplotlib' 2> /dev/null; then
    echo "SKIP: matplotlib is missing for $PY (Debian: apt-get install python3-matplotlib)"
    exit 77
fi
T=$(mktemp -d /tmp/rdx-plot-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
export MPLCONFIGDIR=$T/mpl
fails=0
ok()  { echo "ok   - $1"; }
bad() { echo "FAIL - $1"; fails=$((fails + 1)); }

"$GEN" "$T/r.json" > /dev/null || { echo "FAIL: gen_report"; exit 1; }
out=$("$PY" "$PLOT" "$T/r.json" -o "$T/png" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "rdx-plot exit 0" || { bad "rdx-plot exit $rc: $out"; }
for f in lat_cdf_echo_lat lat_size_echo_lat bw_size_echo_lat bw_size_write_bw mops_qps_write_bw; do
    p="$T/png/$f.png"
    if [ -s "$p" ] && [ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
        ok "$f.png is a PNG"
    else
        bad "$f.png missing or not a PNG"
    fi
done
n=$(ls "$T/png" | wc -l)
[ "$n" -eq 5 ] && ok "5 PNG files" || bad "$n files in $T/png: $(ls "$T/png")"

# Several reports overlay in one figure, each named after its file
# (numbered when two files have the same name): the PNG's rdx-inputs text
# says which. Tiny one-row reports keep this quick.
tiny() { # FILE TITLE
    cat > "$1" <<JSON
{"rdx_version": "0.1.0", "title": "$2", "knobs": {}, "results": [
 {"test": "write", "mode": "bw", "name": "", "desc": "", "lat_kind": "completion", "size": 4096,
  "lcore": -1, "qps": 1, "ops": 1000, "bytes": 4096000, "seconds": 0.001, "mops": 1.0,
  "mbytes_per_s": 4096.0, "gbits_per_s": 32.768, "busy_pct": -1.0, "has_lat": false,
  "lat": null, "has_perf": false, "perf": null}]}
JSON
}
mkdir -p "$T/d1" "$T/d2"
tiny "$T/d1/a.json" one; tiny "$T/d2/b.json" two; tiny "$T/d2/a.json" three
"$PY" "$PLOT" "$T/d1/a.json" "$T/d2/b.json" -o "$T/png2" > /dev/null 2>&1
[ "$(ls "$T/png2")" = "bw_size_write_bw.png" ] && grep -aq "a=a.json; b=b.json" "$T/png2/bw_size_write_bw.png" &&
    ok "two reports -> one overlaid figure" || bad "two reports: $(ls "$T/png2")"
"$PY" "$PLOT" "$T/d1/a.json" "$T/d2/a.json" -o "$T/png3" > /dev/null 2>&1
grep -aq "1: a=a.json; 2: a=a.json" "$T/png3/bw_size_write_bw.png" &&
    ok "same file names -> numbered" || bad "same file names: $(ls "$T/png3")"

# An rdx-flows window table (rdx-flows --window MS --csv FILE): bandwidth over time.
cat > "$T/w.csv" <<'CSV'
window,start_ms,end_ms,common,A_gbps,B_gbps,total_gbps
0,0.000000,250.000000,1,0.800000,1.600000,2.400000
1,250.000000,500.000000,1,0.800000,1.600000,2.400000
2,500.000000,750.000000,0,0.800000,0.000000,0.800000
CSV
"$PY" "$PLOT" "$T/w.csv" -o "$T/png4" > /dev/null 2>&1
[ "$(head -c 8 "$T/png4/flows_w.png" 2> /dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
    ok "flows window table -> flows_w.png" || bad "flows window table: $(ls "$T/png4")"
{ head -2 "$T/w.csv"; echo "2,500.0,750.0,0,0.8"; } > "$T/wbad.csv"

expect_fail() { # NAME ARGS...
    local name=$1 err rc; shift
    err=$("$PY" "$PLOT" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ -n "$err" ] && [ "$(wc -l <<< "$err")" -eq 1 ]; then
        ok "bad input: $name -> exit 2: $err"
    else
        bad "bad input: $name: exit $rc, stderr: $err"
    fi
}
echo '{"results": [' > "$T/trunc.json"
echo '[1, 2]' > "$T/array.json"
echo '{"results": [{"test": "echo", "mode": "lat", "size": "8", "lcore": -1, "qps": 1}]}' > "$T/type.json"
echo '{"rdx_version": "0.1.0", "title": "t", "knobs": {}, "results": []}' > "$T/norows.json"
expect_fail "missing file" "$T/nope.json" -o "$T/x"
expect_fail "truncated JSON" "$T/trunc.json" -o "$T/x"
expect_fail "not a report" "$T/array.json" -o "$T/x"
expect_fail "wrong field type" "$T/type.json" -o "$T/x"
expect_fail "no rows" "$T/norows.json" -o "$T/x"
expect_fail "flows table with a short row" "$T/wbad.csv" -o "$T/x"
expect_fail "no -o" "$T/r.json"
expect_fail "no report" -o "$T/x"

echo "$fails failure(s)"
[ $fails -eq 0 ]
