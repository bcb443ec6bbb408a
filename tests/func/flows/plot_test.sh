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

# rdx-flows --window MS --json FILE: bandwidth over time, the devices of
# its logs in the title; its CSV (no devices) is refused in one line.
cat > "$T/w.json" <<'JSON'
{"rdx_flows": 1, "logs": [
  {"path": "a.log", "label": "A", "device_kind": "hardware", "fields": {"dev": "mlx5_0"}},
  {"path": "b.log", "label": "B", "device_kind": "software_rdma_device", "fields": {"dev": "rxe0"}}],
 "shared_device": false, "not_shared_reason": "the logs ran on different devices",
 "analysis": {"flows": [{"label": "A"}, {"label": "B"}]},
 "windows": {"window_ms": 250, "rows": [[0, 0.0, 250.0, 1, 0.8, 1.6], [1, 250.0, 500.0, 1, 0.8, 1.6],
   [2, 500.0, 750.0, 0, 0.8, 0.0]]}}
JSON
"$PY" "$PLOT" "$T/w.json" -o "$T/png4" > /dev/null 2>&1
if [ "$(head -c 8 "$T/png4/flows_w.png" 2> /dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
   grep -aq "NIC mlx5_0; software RDMA device rxe0" "$T/png4/flows_w.png" &&
   grep -aq "the logs ran on different devices" "$T/png4/flows_w.png"; then
    ok "rdx-flows JSON -> flows_w.png naming both devices and the warning"
else bad "rdx-flows JSON: $(ls "$T/png4")"; fi
sed 's/\[2, 500.0, 750.0, 0, 0.8, 0.0\]/[2, 500.0, 750.0, 0, 0.8]/' "$T/w.json" > "$T/wbad.json"
printf 'window,start_ms,end_ms,common,A_gbps,total_gbps\n0,0,1,1,1,1\n' > "$T/w.csv"

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
expect_fail "flows JSON with a short row" "$T/wbad.json" -o "$T/x"
expect_fail "an rdx-flows CSV (no devices)" "$T/w.csv" -o "$T/x"
expect_fail "no -o" "$T/r.json"
expect_fail "no report" -o "$T/x"

# Malformed values in a report (each used to end in a Python traceback,
# exit 1): one line naming the field, exit 2.
mutate() { # OUT PYTHON-STATEMENTS: r.json with d (the document) changed
    "$PY" -c "import json, sys
d = json.load(open(sys.argv[1]))
rows = d['results']
lat = [r for r in rows if r.get('lat')]
$2
json.dump(d, open(sys.argv[2], 'w'))" "$T/r.json" "$1"
}
mutate "$T/zerob.json" "for r in lat: r['lat']['buckets'] = [[1.0, 2.0, 0]]"
mutate "$T/hugesize.json" "for r in rows: r['size'] = 10**400"
mutate "$T/hugecount.json" "lat[0]['lat']['buckets'][0][2] = 10**400"
mutate "$T/hugerate.json" "rows[-1]['mbytes_per_s'] = 1.7e308"
mutate "$T/kindnum.json" "d['knobs']['device_kind'] = 5"
mutate "$T/devnum.json" "d['knobs']['device'] = 5"
mutate "$T/labelnum.json" "d['knobs']['label'] = 5"
mutate "$T/qps.json" "rows[0]['qps'] = -1"
mutate "$T/neglat.json" "lat[0]['lat']['p50'] = -5.0"
"$PY" -c 'import sys; sys.stdout.write("[" * 100000)' > "$T/deep.json"
expect_fail "every bucket count 0" "$T/zerob.json" -o "$T/x"
expect_fail "size 10^400" "$T/hugesize.json" -o "$T/x"
expect_fail "bucket count 10^400" "$T/hugecount.json" -o "$T/x"
expect_fail "mbytes_per_s 1.7e308" "$T/hugerate.json" -o "$T/x"
expect_fail "knobs.device_kind a number" "$T/kindnum.json" -o "$T/x"
expect_fail "knobs.device a number" "$T/devnum.json" -o "$T/x"
expect_fail "knobs.label a number" "$T/labelnum.json" -o "$T/x"
expect_fail "qps -1" "$T/qps.json" -o "$T/x"
expect_fail "a negative latency" "$T/neglat.json" -o "$T/x"
expect_fail "100000 nested [" "$T/deep.json" -o "$T/x"
# a latency-vs-load row with offered_ops_per_s but no mops: drawn (a gap)
mutate "$T/nomops.json" "r = dict(lat[0], offered_ops_per_s=1000.0); del r['mops']; d['results'] = [r]"
out=$("$PY" "$PLOT" -k latency-vs-load "$T/nomops.json" -o "$T/png5" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -s "$T/png5/latency_vs_load_echo_lat.png" ] &&
    ok "latency-vs-load row without mops: drawn" || bad "latency-vs-load without mops: exit $rc: $out"

# -o logs: one WR plots; fields are checked as rdx-flows checks them; the
# header is read as rdx-flows reads it (flow= runs to the last " dev=").
wrlog() { # FILE LABEL LINE...: a log of the given WR lines
    local f=$1 l=$2; shift 2
    { echo "# rdx-wrlog v1"
      echo "# test=write mode=lat size=8 lcore=0 qps=1 flow=$l dev=sw tsc_hz=2600000000 lat_kind=completion report_div=1 device_kind=software_device capacity=1048576 unlogged=0"
      echo "# op qp post_ns complete_ns bytes"
      printf '%s\n' "$@"; } > "$f"
}
wrlog "$T/one.log" A "0 0 1700000000000000000 1700000000000001000 8"
out=$("$PY" "$PLOT" "$T/one.log" -o "$T/png6" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -s "$T/png6/wrlog_cdf_write_lat.png" ] &&
    ok "a log of one WR: drawn" || bad "a log of one WR: exit $rc: $out"
wrlog "$T/zero.log" A "0 0 1700000000000000000 1700000000000000000 8"
out=$("$PY" "$PLOT" "$T/zero.log" -o "$T/png7" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -s "$T/png7/wrlog_cdf_write_lat.png" ] &&
    ok "a log of one 0-ns WR: drawn (linear axis)" || bad "a log of one 0-ns WR: exit $rc: $out"
wrlog "$T/blank1.log" "run A" "0 0 1700000000000000000 1700000000000001000 8" \
    "1 0 1700000000000002000 1700000000000003000 8"
wrlog "$T/blank2.log" "run B" "0 0 1700000000000000000 1700000000000002000 8" \
    "1 0 1700000000000002000 1700000000000004000 8"
"$PY" "$PLOT" "$T/blank1.log" "$T/blank2.log" -o "$T/png8" > /dev/null 2>&1
grep -aq "run A=blank1.log; run B=blank2.log" "$T/png8/wrlog_cdf_write_lat.png" 2> /dev/null &&
    ok "labels with a blank: read whole" || bad "labels with a blank: $(ls "$T/png8" 2>&1)"
big=$("$PY" -c 'print(10**400)')
good="0 0 1000 3000 8"     # a first WR that is fine: two WRs plotted before
wrlog "$T/bignum.log" A "$good" "1 0 1 $big 8"
wrlog "$T/bytes64.log" A "$good" "1 0 1000 2000 18446744073709551615"
wrlog "$T/qpword.log" A "$good" "1 x 1000 2000 8"
wrlog "$T/byteword.log" A "$good" "1 0 1000 2000 zz"
wrlog "$T/plus.log" A "$good" "1 +0 1000 2000 8"
wrlog "$T/opback.log" A "$good" "0 0 1000 2000 8"
wrlog "$T/dupkey.log" A "$good" "1 0 1000 2000 8"
sed -i '2s/$/ report_div=2/' "$T/dupkey.log"
expect_fail "a log time of 10^400" "$T/bignum.log" -o "$T/x"
expect_fail "log bytes over 2^32-1" "$T/bytes64.log" -o "$T/x"
expect_fail "a log qp that is no number" "$T/qpword.log" -o "$T/x"
expect_fail "log bytes that are no number" "$T/byteword.log" -o "$T/x"
expect_fail "a log field with a sign" "$T/plus.log" -o "$T/x"
expect_fail "log ops out of order" "$T/opback.log" -o "$T/x"
expect_fail "a key twice in a log header" "$T/dupkey.log" -o "$T/x"

# I/O failures: one line, exit 1; never a traceback
expect_io() { # NAME REDIRECT_TO ARGS...
    local name=$1 to=$2 err rc; shift 2
    err=$("$PY" "$PLOT" "$@" 2>&1 >"$to"); rc=$?
    if [ $rc -eq 1 ] && [ -n "$err" ] && [ "$(wc -l <<< "$err")" -eq 1 ]; then
        ok "I/O failure: $name -> exit 1: $err"
    else
        bad "I/O failure: $name: exit $rc, stderr: $err"
    fi
}
if [ -w /dev/full ]; then
    expect_io "stdout on a full disk" /dev/full "$T/d1/a.json" -o "$T/png9"
else
    ok "SKIP: no /dev/full"
fi
mkdir -p "$T/png10/bw_size_write_bw.png"     # the PNG's path is a directory
expect_io "a PNG that cannot be written" /dev/null "$T/d1/a.json" -o "$T/png10"
err=$("$PY" "$PLOT" "$T/d1/a.json" -o "$T/png11" 2>&1 >&-); rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && ok "stdout closed -> exit 1: $err" ||
    bad "stdout closed: exit $rc: $err"

# Anything else unexpected is still one line (naming the input), exit 2:
# here a matplotlib that fails in a way rdx-plot does not foresee.
mkdir -p "$T/fakempl/matplotlib"
echo 'def use(*a, **k): raise RuntimeError("no backend at all")' > "$T/fakempl/matplotlib/__init__.py"
err=$(PYTHONPATH=$T/fakempl "$PY" "$PLOT" "$T/d1/a.json" -o "$T/png12" 2>&1 > /dev/null); rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && grep -q "a.json: .*no backend at all" <<< "$err"; then
    ok "an unexpected failure -> one line, exit 2: $err"
else
    bad "an unexpected failure: exit $rc: $err"
fi

echo "$fails failure(s)"
[ $fails -eq 0 ]
