#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-plot on real rdx-perf output: build/apps/rdx-plot/rdx-plot exists and
# runs; every plot kind renders a non-empty PNG whose text metadata names
# the kind and the device ("software device"); two reports overlay in one
# figure (both inputs and both legends' sources in it); the latency CDF is
# drawn from the report's histogram buckets; -o logs plot; rows with
# offered_ops_per_s give latency-vs-load with the knee found where p99 passes
# twice its lowest-load value; the flows figure (rdx-flows --json) names the
# logs' device; an -a run gives the default set (lat-size, bw-size, a
# lat-cdf of 5 sizes) in MiB/s (Gb/s with --report_gbits), and a report
# without buckets says its CDF is drawn through percentiles. A one-WR log
# plots; bad input is one line, exit 2; stdout on a full disk one line, exit 1.
source "$(dirname "$0")/lib.sh"

PLOT=$(cd "$(dirname "$PERF")/../rdx-plot" && pwd)/rdx-plot
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -x "$PLOT" ]; then
    fail "no executable $PLOT (apps/rdx-plot/meson.build copies it there)"
    finish
fi
if ! "$PY" -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: matplotlib is missing for $PY (Debian: apt-get install python3-matplotlib)"
    exit 77
fi
export MPLCONFIGDIR=$TMP/mpl

# png_check FILE KIND DEVICE_REGEX [INPUTS_REGEX]: a PNG, non-empty, whose
# text chunks say rdx-kind=KIND and name the device(s) (and inputs).
png_check() {
    "$PY" - "$@" <<'PY'
import re, struct, sys, zlib
path, kind, dev = sys.argv[1:4]
inputs = sys.argv[4] if len(sys.argv) > 4 else None
d = open(path, "rb").read()
assert len(d) > 1000 and d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
i, text = 8, {}
while i + 8 <= len(d):
    n, t = struct.unpack(">I", d[i:i + 4])[0], d[i + 4:i + 8]
    body = d[i + 8:i + 8 + n]
    i += 12 + n
    if t == b"tEXt":
        k, v = body.split(b"\0", 1)
        text[k.decode("latin-1")] = v.decode("latin-1")
    elif t == b"zTXt":
        k, v = body.split(b"\0", 1)
        text[k.decode("latin-1")] = zlib.decompress(v[1:]).decode("latin-1")
    elif t == b"iTXt":
        k, v = body.split(b"\0", 1)
        comp, v = v[0], v[2:]
        v = v.split(b"\0", 2)[2]
        text[k.decode("latin-1")] = (zlib.decompress(v) if comp else v).decode("utf-8")
assert text.get("rdx-kind") == kind, "rdx-kind %r" % text.get("rdx-kind")
assert re.search(dev, text.get("rdx-devices", "")), "rdx-devices %r" % text.get("rdx-devices")
assert re.search(dev, text.get("Title", "")), "Title %r" % text.get("Title")
if inputs:
    assert re.search(inputs, text.get("rdx-inputs", "")), "rdx-inputs %r" % text.get("rdx-inputs")
print("%s: %d bytes, Title %r" % (path.rsplit("/", 1)[-1], len(d), text["Title"]))
PY
}

# 1. Two real reports, the software device inline and with its progress
#    thread, latency at three sizes and bandwidth over a QP sweep
if run lat1 120 "${EAL[@]}" -- --test write --mode lat --sizes 8,4K,64K -n 3000 --dev sw \
        --label inline --json "$TMP/lat1.json" &&
   run lat2 120 "${EAL[@]}" -- --test write --mode lat --sizes 8,4K,64K -n 3000 \
        --dev sw:progress=thread --label thread --json "$TMP/lat2.json" &&
   run bw1 120 "${EAL[@]}" -- --test write --mode bw --sizes 64,4K -n 3000 --qp-sweep 1-2 \
        --dev sw --json "$TMP/bw1.json" &&
   run log1 120 "${EAL[@]}" -- --test write --mode bw -s 4K -n 3000 --dev sw --label A \
        -o "$TMP/a.log" &&
   run log2 120 "${EAL[@]}" -- --test write --mode bw -s 4K -n 3000 --dev sw --label B \
        -o "$TMP/b.log" &&
   run log3 120 "${EAL[@]}" -- --test write --mode bw -s 4K -n 3000 -q 2 --dev sw --label Q \
        -o "$TMP/q.log"; then
    pass "rdx-perf: two latency reports, a QP sweep and two -o logs"
else
    fail "rdx-perf runs: $(cat "$TMP"/*.err | tail -n 3 | tr '\n' '|')"
    finish
fi

# the JSON carries the histogram: non-empty buckets that add up to the count
if "$PY" - "$TMP/lat1.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    b = r["lat"]["buckets"]
    assert b and sum(c for _, _, c in b) == r["lat"]["count"], r["size"]
    assert all(lo <= hi for lo, hi, _ in b) and all(c > 0 for _, _, c in b)
    assert b[0][0] <= r["lat"]["p50"] <= b[-1][1]
PY
then pass "lat.buckets: non-empty buckets summing to lat.count, around p50"
else fail "lat.buckets missing or inconsistent in $TMP/lat1.json"
fi

# 2. latency vs offered load: the rows an open-loop --rate-sweep is to write
#    (doc/apps.md, rdx-plot): p99 doubles its lowest-load value at 3 Mop/s
"$PY" - "$TMP/lat1.json" "$TMP/load.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
base = [r for r in doc["results"] if r["lcore"] == -1][0]
rows = []
for rate, p50, p99, ach in ((0.5e6, 1.0, 2.0, 0.5), (1e6, 1.1, 2.5, 1.0), (2e6, 1.3, 3.5, 2.0),
                            (3e6, 2.0, 9.0, 2.6), (4e6, 9.0, 60.0, 2.7)):
    r = dict(base, offered_ops_per_s=rate, mops=ach)
    r["lat"] = dict(base["lat"], p50=p50 * 1e3, p99=p99 * 1e3)
    del r["lat"]["buckets"]
    rows.append(r)
doc["results"] = rows
doc["knobs"]["label"] = "load"
json.dump(doc, open(sys.argv[2], "w"))
PY

expect_png() { # NAME FILE KIND DEVICE_REGEX [INPUTS_REGEX]
    local name=$1; shift
    if out=$(png_check "$@" 2>&1); then pass "$name: $out"; else fail "$name: $out"; fi
}
for kind in lat-cdf lat-size bw-size mops-qps latency-vs-load wrlog-cdf; do
    if "$PLOT" --kind $kind "$TMP/lat1.json" "$TMP/lat2.json" "$TMP/bw1.json" "$TMP/load.json" \
            "$TMP/a.log" "$TMP/b.log" -o "$TMP/k-$kind" >"$TMP/k-$kind.out" 2>"$TMP/k-$kind.err"; then
        n=$(ls "$TMP/k-$kind" | wc -l)
        [ "$n" -ge 1 ] && pass "--kind $kind: $n PNG file(s)" || fail "--kind $kind: no file"
    else
        fail "--kind $kind: exit $?: $(cat "$TMP/k-$kind.err")"
    fi
done
SW='software device \(sw\)'
expect_png "overlay lat-cdf" "$TMP/k-lat-cdf/lat_cdf_write_lat.png" lat-cdf "$SW" \
    'inline=lat1.json; thread=lat2.json'
expect_png "overlay lat-size" "$TMP/k-lat-size/lat_size_write_lat.png" lat-size "$SW" \
    'inline=lat1.json; thread=lat2.json'
expect_png "bw-size" "$TMP/k-bw-size/bw_size_write_bw.png" bw-size "$SW"
expect_png "mops-qps" "$TMP/k-mops-qps/mops_qps_write_bw.png" mops-qps "$SW"
expect_png "latency-vs-load" "$TMP/k-latency-vs-load/latency_vs_load_write_lat.png" \
    latency-vs-load "$SW"
expect_png "wrlog-cdf overlay" "$TMP/k-wrlog-cdf/wrlog_cdf_write_bw.png" wrlog-cdf "$SW" \
    'A=a.log; B=b.log'
grep -q "^load write lat 8 B: knee at 2 Mop/s offered (p99 3.500 us)" "$TMP/k-latency-vs-load.out" &&
    pass "knee: $(grep knee "$TMP/k-latency-vs-load.out")" ||
    fail "knee: $(cat "$TMP/k-latency-vs-load.out")"
# 3. a real open-loop --rate-sweep of rdx-perf drawn as latency vs load
#    (the curve's rows carry offered_ops_per_s; the knee depends on the load
#    of the machine, so only the figure and its labels are asserted here)
if run sweep 120 "${EAL[@]}" -- --test write --mode bw -s 64 --dev sw \
        --rate-sweep 20K,40K,80K -D 0.2 --json "$TMP/sweep.json" &&
   "$PLOT" --kind latency-vs-load "$TMP/sweep.json" -o "$TMP/k-sweep" >"$TMP/k-sweep.out" \
        2>"$TMP/k-sweep.err"; then
    f=$(ls "$TMP"/k-sweep/latency_vs_load_*.png 2>/dev/null | head -n 1)
    [ -n "$f" ] && expect_png "latency-vs-load of a real --rate-sweep" "$f" latency-vs-load "$SW" ||
        fail "latency-vs-load of a real --rate-sweep: no PNG ($(ls "$TMP/k-sweep" 2>&1))"
else
    fail "--rate-sweep + latency-vs-load: $(tail -n 3 "$TMP"/sweep.err "$TMP/k-sweep.err" 2>/dev/null | tr '\n' '|')"
fi
# the flows window table of two QPs (rdx-flows --window --json): the
# device line names the logs' device
FLOWS=$(dirname "$PERF")/../rdx-flows/rdx-flows
if "$FLOWS" --by-qp --window 0.5 --json "$TMP/w.json" "$TMP/q.log" >"$TMP/flows.out" 2>&1; then
    "$PLOT" --kind flows "$TMP/w.json" -o "$TMP/k-flows" >/dev/null 2>"$TMP/k-flows.err"
    expect_png "flows" "$TMP/k-flows/flows_w.png" flows "$SW"
    grep -aq "not in the table" "$TMP/k-flows/flows_w.png" && fail "flows: devices not named" ||
        pass "flows: the device line names the device"
else
    fail "rdx-flows --by-qp on a 2-QP log: $(tail -n 1 "$TMP/flows.out")"
fi

# 4. An -a run: the default set is latency and bandwidth against size, and
#    a latency CDF of at most 5 sizes (smallest to largest); bandwidth in
#    the table's MiB/s (Gb/s with --report_gbits); SHORT rows marked
if run alat 120 "${EAL[@]}" -- --test write --mode lat -a -n 100 --dev sw --json "$TMP/alat.json" \
        -o "$TMP/alog" &&
   "$PLOT" "$TMP/alat.json" -o "$TMP/k-a" >"$TMP/k-a.out" 2>"$TMP/k-a.err"; then
    got=$(cd "$TMP/k-a" && ls | tr '\n' ' ')
    [ "$got" = "bw_size_write_lat.png lat_cdf_write_lat.png lat_size_write_lat.png " ] &&
        pass "-a: the default set: $got" || fail "-a: PNGs '$got'"
    for k in lat-size bw-size lat-cdf; do
        expect_png "-a $k" "$TMP/k-a/${k/-/_}_write_lat.png" $k "$SW"
    done
    if "$PY" - "$TMP/k-a/lat_cdf_write_lat.png" "$TMP/k-a/bw_size_write_lat.png" <<'PY'
import sys
cdf, bw = (open(p, "rb").read() for p in sys.argv[1:3])
assert b"rdx-cdf-sizes\x002,128,4096,262144,8388608" in cdf, "CDF sizes"
assert b"rdx-cdf-from\x00histogram" in cdf
assert b"rdx-bw-unit\x00MiB/s" in bw
PY
    then pass "-a: CDF of 2 B, 128 B, 4 KiB, 256 KiB, 8 MiB; bandwidth in MiB/s"
    else fail "-a: CDF sizes or bandwidth unit"; fi
    "$PLOT" --report_gbits --kind bw-size "$TMP/alat.json" -o "$TMP/k-g" >/dev/null 2>&1
    grep -aq "rdx-bw-unit.Gb/s" "$TMP/k-g/bw_size_write_lat.png" && pass "--report_gbits: Gb/s" ||
        fail "--report_gbits: no Gb/s"
    # its 23 -o logs (alog.s<size>): a per-WR CDF of the same 5 sizes
    "$PLOT" "$TMP"/alog.s* -o "$TMP/k-al" >/dev/null 2>"$TMP/k-al.err"
    grep -aq "rdx-cdf-sizes.2,128,4096,262144,8388608" "$TMP/k-al/wrlog_cdf_write_lat.png" 2>/dev/null &&
        pass "-a -o: wrlog-cdf of 5 of the 23 logs" ||
        fail "-a -o: wrlog-cdf: $(ls "$TMP"/alog.* | wc -l) logs, $(tail -n 1 "$TMP/k-al.err")"
    # a report without buckets: the CDF says it is drawn through percentiles
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for r in d["results"]: r["lat"].pop("buckets", None)
json.dump(d, open(sys.argv[2], "w"))' "$TMP/alat.json" "$TMP/pct.json"
    "$PLOT" --kind lat-cdf --cdf-sizes 8,4K "$TMP/pct.json" -o "$TMP/k-p" >/dev/null 2>&1
    grep -aq "rdx-cdf-from.percentiles" "$TMP/k-p/lat_cdf_write_lat.png" &&
        grep -aq "rdx-cdf-sizes.8,4096" "$TMP/k-p/lat_cdf_write_lat.png" &&
        pass "no buckets: the CDF says percentiles; --cdf-sizes 8,4K" ||
        fail "no buckets / --cdf-sizes"
else
    fail "-a run or its plots: $(tail -n 2 "$TMP/alat.err" "$TMP/k-a.err" 2>/dev/null | tr '\n' '|')"
fi

# a device other than the software device is named as a NIC
sed 's/"device_kind": "software device"/"device_kind": "hardware"/; s/"dev": "sw"/"dev": "rxe0"/' \
    "$TMP/lat1.json" > "$TMP/rxe.json"
"$PLOT" --kind lat-cdf "$TMP/lat1.json" "$TMP/rxe.json" -o "$TMP/nic" >/dev/null 2>&1
expect_png "two devices in one figure" "$TMP/nic/lat_cdf_write_lat.png" lat-cdf \
    "software device \(sw\); NIC rxe0"

# bad input: one line, exit 2
bad() { # NAME ARGS...
    local name=$1 err rc; shift
    err=$("$PLOT" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <<< "$err")" -eq 1 ]; then pass "bad input: $name: $err"
    else fail "bad input: $name: exit $rc: $err"; fi
}
{ head -3 "$TMP/a.log"; echo "0 0 5 3 4096"; } > "$TMP/back.log"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["results"][0]["lat"]["buckets"]=[[1,0,3]]; json.dump(d,open(sys.argv[2],"w"))' \
    "$TMP/lat1.json" "$TMP/badb.json"
bad "unknown kind" --kind pie "$TMP/lat1.json" -o "$TMP/x"
bad "completion before post in a log" "$TMP/back.log" -o "$TMP/x"
bad "bad buckets" "$TMP/badb.json" -o "$TMP/x"
bad "more labels than inputs" -L a -L b "$TMP/lat1.json" -o "$TMP/x"
bad "nothing of that kind" --kind mops-qps "$TMP/lat1.json" -o "$TMP/x"
# qp or bytes that are not numbers in a real log (rdx-flows refuses them too)
{ cat "$TMP/a.log"; echo "3000 0 1000 2000 zz"; } > "$TMP/zz.log"
{ cat "$TMP/a.log"; echo "3000 x 1000 2000 8"; } > "$TMP/xq.log"
bad "log bytes that are no number" "$TMP/zz.log" -o "$TMP/x"
bad "a log qp that is no number" "$TMP/xq.log" -o "$TMP/x"
# an I/O failure: one line, exit 1 (no traceback)
if [ -w /dev/full ]; then
    err=$("$PLOT" "$TMP/lat1.json" -o "$TMP/full" 2>&1 > /dev/full); rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && pass "stdout on a full disk: exit 1: $err" ||
        fail "stdout on a full disk: exit $rc: $err"
fi

# rdx-perf's own log of a single WR is valid input: it is drawn
if run n1 60 "${EAL[@]}" -- --test write --dev sw -n 1 -o "$TMP/n1.log"; then
    if "$PLOT" "$TMP/n1.log" -o "$TMP/n1" >"$TMP/n1p.out" 2>"$TMP/n1p.err"; then
        expect_png "a one-WR -o log" "$TMP/n1/wrlog_cdf_write_lat.png" wrlog-cdf "$SW"
    else
        fail "a one-WR -o log: exit $?: $(tr '\n' '|' < "$TMP/n1p.err" | tail -c 300)"
    fi
else
    fail "rdx-perf -n 1 -o: $(tail -n 1 "$TMP/n1.err")"
fi
finish
