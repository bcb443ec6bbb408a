#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The reported percentiles (JSON) against exact ones computed from the -o
# per-WR log of the same run, for a ping-pong lat run (write: the report
# halves the round trip), an RTT lat run (read) and a bw run (write), on the
# software device.
#
# Allowed error (lib/stats/rdx_hist.h): a percentile is its bucket's
# midpoint, within 1/256 of the exact order statistic (nearest rank), plus
# 2 ns because the log converts post and completion times to ns separately
# (each truncated) while the histogram converts the cycle difference.
# The log always holds what the requester saw (complete_ns - post_ns = a full
# round trip for ping-pong); its header says lat_kind and report_div, and
# the report must equal the log's values divided by report_div: the check is
# also made against the undivided values, which must NOT match for write lat.
# Then rdx-flows over the write lat log must show the report's p50, and
# the logs' host= and dev_id= tell rdx-flows whether they shared a device.
source "$(dirname "$0")/lib.sh"

FLOWS=$(dirname "$PERF")/../rdx-flows/rdx-flows

check() { # NAME: compare $TMP/NAME.json with $TMP/NAME.log; print one line per failure
    python3 - "$TMP/$1.json" "$TMP/$1.log" "$2" <<'PY'
import json, math, re, sys
rep, log, want_div = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
lines = open(log).read().splitlines()
hdr = dict(kv.split("=", 1) for kv in lines[1][2:].split())
bad = []
if hdr.get("lat_kind") != rep["knobs"]["lat_kind"].replace(" ", "_"):
    bad.append("log lat_kind %r, report %r" % (hdr.get("lat_kind"), rep["knobs"]["lat_kind"]))
div = int(hdr.get("report_div", "0"))
if div != want_div:
    bad.append("report_div %d, expected %d" % (div, want_div))
full = sorted(int(l.split()[3]) - int(l.split()[2]) for l in lines[3:]
              if not l.startswith("#") and l.split()[3] != "0")
tot = [r for r in rep["results"] if r["lcore"] == -1][0]
lat = tot["lat"]
if lat["count"] != len(full):
    bad.append("report has %d latencies, the log %d completed WRs" % (lat["count"], len(full)))
def exact(vals, p):   # nearest rank, in integers (99.9 / 100 * 3000 is 2997.0000000000005)
    pp = round(p * 1000000)
    r = max(1, -(-pp * len(vals) // 100000000))
    return vals[r - 1]
def compare(vals, d):
    errs = []
    for key, p in (("min", 0), ("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("max", 100)):
        e = exact(vals, p) / d
        tol = e / 256.0 + 2.0
        if abs(lat[key] - e) > tol:
            errs.append("%s: report %.1f ns, exact %.1f ns (log / %d), allowed +-%.1f"
                        % (key, lat[key], e, d, tol))
    return errs
bad += compare(full, div)
if div == 2 and not compare(full, 1):
    bad.append("the report matches the undivided log: the half RTT is not halved")
for b in bad:
    print(b)
PY
}

# 1. write lat: ping-pong, reported as half the round trip
for t in "wlat write lat 2" "rlat read lat 1" "wbw write bw 1"; do
    set -- $t
    if ! run "$1" 60 "${EAL[@]}" -- --test "$2" --mode "$3" -s 8 -n 3000 --dev sw \
            --json "$TMP/$1.json" -o "$TMP/$1.log"; then
        fail "$2 $3: rdx-perf exit: $(tail -n 1 "$TMP/$1.err")"
        continue
    fi
    out=$(check "$1" "$4")
    if [ -z "$out" ]; then
        pass "$2 $3: reported percentiles = exact ones from the -o log / $4 (within 1/256 + 2 ns)"
    else
        fail "$2 $3: $out"
    fi
done

# 2. rdx-flows on the write lat log shows what the report shows (half RTT)
if [ -x "$FLOWS" ] && [ -f "$TMP/wlat.json" ]; then
    cp "$TMP/wlat.log" "$TMP/wlat2.log"
    p50=$("$FLOWS" "$TMP/wlat.log" "$TMP/wlat2.log" | awk '$1 == "0" { print $(NF - 1) }')
    rep=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([x for x in r["results"] if x["lcore"] == -1][0]["lat"]["p50"] / 1e3)' "$TMP/wlat.json")
    if python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= b / 256 + 0.011 else 1)' "${p50:-nan}" "$rep"; then
        pass "rdx-flows p50 $p50 us = report p50 $rep us (half RTT)"
    else
        fail "rdx-flows p50 '${p50}' us, report p50 $rep us"
    fi
else
    fail "rdx-flows not built at $FLOWS (or no write lat report)"
fi

# 3. The logs' device identity (host=, dev_id=): the two lcores of one
#    process ran on one model of the software device (one segment): the
#    same dev_id, no warning from rdx-flows; two processes at once each ran
#    on a model of their own: different dev_ids, one warning line naming them
if [ -x "$FLOWS" ] &&
   timeout -k 5 60 "$PERF" --no-huge --lcores 0@0,1@1,2@0 -- --test write --mode bw --dev sw \
       --loopback -n 20000 -o "$TMP/one.log" >/dev/null 2>"$TMP/one.err" &&
   id1=$(sed -n '2s/.* dev_id=\([^ ]*\).*/\1/p' "$TMP/one.log.1") &&
   [ -n "$id1" ] && [ "$id1" = "$(sed -n '2s/.* dev_id=\([^ ]*\).*/\1/p' "$TMP/one.log.2")" ] &&
   grep -q "^# .* host=[^ ]" "$TMP/one.log.1" &&
   "$FLOWS" "$TMP/one.log.1" "$TMP/one.log.2" >/dev/null 2>"$TMP/one.flows" && [ ! -s "$TMP/one.flows" ]; then
    pass "two lcores of one process: one dev_id ($id1), rdx-flows does not warn"
else
    fail "one process, two logs: $(head -c 300 "$TMP/one.err") $(sed -n 2p "$TMP/one.log.1" 2>/dev/null) $(cat "$TMP/one.flows" 2>/dev/null)"
fi
timeout -k 5 60 "$PERF" --no-huge -l 0 -- --test write --mode bw --dev sw --loopback -D 1 \
    -o "$TMP/pa.log" >/dev/null 2>"$TMP/pa.err" &
pa=$!
timeout -k 5 60 "$PERF" --no-huge -l 1 -- --test write --mode bw --dev sw --loopback -D 1 \
    -o "$TMP/pb.log" >/dev/null 2>"$TMP/pb.err"
pbrc=$?
wait "$pa"; parc=$?
if [ "$parc" -eq 0 ] && [ "$pbrc" -eq 0 ] &&
   "$FLOWS" "$TMP/pa.log" "$TMP/pb.log" >/dev/null 2>"$TMP/p.flows" &&
   [ "$(wc -l <"$TMP/p.flows")" -eq 1 ] &&
   grep -q "^rdx-flows: warning: the logs ran on different devices (.*pa.log: dev_id sw:rdx-sw-[0-9]*-0, .*pb.log: dev_id sw:rdx-sw-[0-9]*-0), models of the software device in different processes" "$TMP/p.flows"; then
    pass "two processes at once: $(cat "$TMP/p.flows")"
else
    fail "two processes: exit $parc/$pbrc: $(head -c 300 "$TMP/pa.err" "$TMP/pb.err") $(cat "$TMP/p.flows" 2>/dev/null)"
fi
finish
