#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-flows end to end on crafted logs with known answers, and bad input.
# usage: flows_test.sh PATH/TO/rdx-flows
set -u
FLOWS=$1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/rdx-flows-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok()   { echo "ok   - $1"; }
bad()  { echo "FAIL - $1"; fails=$((fails + 1)); }

# gen FILE LABEL START_OFFSET_NS PERIOD_NS COUNT BYTES: op i is posted at
# START + i * PERIOD and completes one PERIOD later (one op in flight).
# Times are 1700000000 s + offset, printed as text (awk doubles cannot hold them).
gen() {
    awk -v lbl="$2" -v s="$3" -v p="$4" -v n="$5" -v b="$6" '
    function t(o) { return sprintf("%d%09d", 1700000000 + int(o / 1e9), o % 1e9) }
    BEGIN {
        print "# rdx-wrlog v1"
        printf "# test=write mode=bw size=%d lcore=1 qps=1 flow=%s dev=rdx_sw0 tsc_hz=2600000000\n", b, lbl
        print "# op qp post_ns complete_ns bytes"
        for (i = 0; i < n; i++) printf "%d 0 %s %s %d\n", i, t(s + i * p), t(s + (i + 1) * p), b
    }' > "$1"
}

# expect_line NAME OUTPUT REGEX: some line of OUTPUT matches REGEX
expect_line() {
    if grep -Eq -- "$3" <<< "$2"; then ok "$1"; else bad "$1: no line matching /$3/"; echo "$2"; fi
}

# 1. Same start; A completes 1 MB every 10 ms, B every 5 ms: B gets exactly 2x A.
gen "$T/a.log" A 0 10000000 200 1000000       # 0 .. 2 s
gen "$T/b.log" B 0 5000000 200 1000000        # 0 .. 1 s: finishes first
out=$("$FLOWS" "$T/a.log" "$T/b.log"); rc=$?
[ $rc -eq 0 ] && ok "two flows: exit 0" || bad "two flows: exit $rc"
expect_line "first finisher is B at +1 s" "$out" '^first to finish: flow 1 \(B\) at \+1\.000000 s$'
expect_line "common interval 1 s" "$out" '^common interval: \+0\.000000 s \.\. \+1\.000000 s = 1\.000000 s'
#            flow label ops ops@finish bytes@finish ops_in bytes_in MB/s Gb/s share%
expect_line "A: 100 ops by B's finish, 100 MB/s, 33.33%" "$out" \
    '^ +0 A +200 +100 +100000000 +100 +100000000 +100\.000 +0\.8000 +33\.33 '
expect_line "B: 200 ops, 200 MB/s, 66.67%" "$out" \
    '^ +1 B +200 +200 +200000000 +200 +200000000 +200\.000 +1\.6000 +66\.67 '
expect_line "Jain index 0.9 for shares 1:2" "$out" "^Jain's fairness index: 0\.900000 "
expect_line "per-op latency p50 10 ms for A" "$out" '^ +0 A .* 10000\.00 +10000\.00$'

# 2. Staggered: A runs 0 .. 2 s (10 ms/op); B starts at 0.5 s, ends at 1.5 s
#    (5 ms/op). Common interval (0.5, 1.5]: A completes 100 ops there, 150 by B's end.
gen "$T/b2.log" B 500000000 5000000 200 1000000
out=$("$FLOWS" "$T/a.log" "$T/b2.log")
expect_line "staggered: interval from B's first post" "$out" \
    '^common interval: \+0\.500000 s \.\. \+1\.500000 s = 1\.000000 s \(from the latest first post, flow 1 \(B\)'
expect_line "staggered: A did 150 ops by B's finish, 100 in the interval" "$out" \
    '^ +0 A +200 +150 +150000000 +100 +100000000 +100\.000 +0\.8000 +33\.33 '

# 3. Three equal flows (label from the file name when flow= is missing): index 1, 33.33% each.
for f in x y z; do gen "$T/$f.log" "$f" 0 1000000 1000 4096; done
sed -i '2s/ flow=[^ ]*//' "$T/z.log"
out=$("$FLOWS" "$T/x.log" "$T/y.log" "$T/z.log")
expect_line "equal flows: Jain index 1" "$out" "^Jain's fairness index: 1\.000000 "
expect_line "equal flows: 33.33% each" "$out" '^ +2 z\.log +1000 +1000 +4096000 +1000 +4096000 +4\.096 +0\.0328 +33\.33 '

# 3b. rdx-perf writes complete_ns 0 for a WR that never completed, flow=- for
#     no label: the op is left out (and said so), the flow is named after its file.
awk 'NR == 2 { sub(/flow=A/, "flow=-") } NR == 4 { $4 = 0 } { print }' "$T/a.log" > "$T/inc.log"
out=$("$FLOWS" "$T/inc.log" "$T/b.log"); rc=$?
[ $rc -eq 0 ] && ok "incomplete WR: exit 0" || bad "incomplete WR: exit $rc"
expect_line "incomplete WR reported" "$out" '^    1 of 200 work requests never completed \(complete_ns 0\): left out$'
expect_line "incomplete WR left out; label from the file" "$out" \
    '^ +0 inc\.log +200 +99 +99000000 +99 +99000000 +99\.000 '

# 4. --window 250: per-window Gb/s (windows (start, end]); --csv writes them.
out=$("$FLOWS" --window 250 --csv "$T/w.csv" "$T/a.log" "$T/b.log"); rc=$?
[ $rc -eq 0 ] && ok "--window: exit 0" || bad "--window: exit $rc"
expect_line "window 0: A 0.8 Gb/s, B 1.6 Gb/s, in the common interval" "$out" \
    '^ +0 +0\.000 +250\.000 \* +0\.800 +1\.600 +2\.400$'
expect_line "window 7: A alone" "$out" '^ +7 +1750\.000 +2000\.000   +0\.800 +0\.000 +0\.800$'
if [ "$(grep -c '^ *[0-9]\+ \+[0-9.]\+ \+[0-9.]\+ ' <<< "$out")" -eq 8 ]; then
    ok "8 windows over 2 s"; else bad "window count"; echo "$out"; fi
if [ "$(head -1 "$T/w.csv")" = "window,start_ms,end_ms,common,A_gbps,B_gbps,total_gbps" ] &&
   [ "$(wc -l < "$T/w.csv")" -eq 9 ] &&
   grep -qx '3,750.000000,1000.000000,1,0.800000,1.600000,2.400000' "$T/w.csv"; then
    ok "--csv window table"; else bad "--csv window table"; cat "$T/w.csv"; fi
"$FLOWS" --csv "$T/f.csv" "$T/a.log" "$T/b.log" > /dev/null
if head -1 "$T/f.csv" | grep -q '^flow,label,file,ops,' &&
   grep -q '^1,B,.*,200,200,200000000,200,200000000,1.000000000,200.000000,1.600000,66.6667,' "$T/f.csv"; then
    ok "--csv flow table"; else bad "--csv flow table"; cat "$T/f.csv"; fi

# 4b. --by-qp: one log, two QPs (qp 0 every 10 ms, qp 1 every 5 ms, 1 MB each):
#     qp 1 gets 2x qp 0 over the first second.
{ head -3 "$T/a.log"
  { tail -n +4 "$T/a.log" | awk '{ print $3, 0, $4, $5 }'
    tail -n +4 "$T/b.log" | awk '{ print $3, 1, $4, $5 }'; } | sort -k1,1 -k2,2n |
  awk '{ print NR - 1, $2, $1, $3, $4 }'; } > "$T/qps.log"
out=$("$FLOWS" --by-qp "$T/qps.log"); rc=$?
[ $rc -eq 0 ] && ok "--by-qp: exit 0" || bad "--by-qp: exit $rc"
expect_line "--by-qp: qp 0 33.33%" "$out" '^ +0 A\.qp0 +200 +100 +100000000 +100 +100000000 +100\.000 +0\.8000 +33\.33 '
expect_line "--by-qp: qp 1 66.67%" "$out" '^ +1 A\.qp1 +200 +200 +200000000 +200 +200000000 +200\.000 +1\.6000 +66\.67 '
expect_line "--by-qp: Jain 0.9" "$out" "^Jain's fairness index: 0\.900000 "

# 5. A cut log (capacity=, unlogged=): the flow ran on after its log ends, so
#    its end is not its finish. A cut at 100 of its 300 WRs ends at +1 s,
#    before B (+1.5 s): refused; with --allow-truncated it is analysed and
#    flagged (first to finish, the flow, the TRUNCATED summary, the CSV).
cut() { # IN OUT CAPACITY UNLOGGED: IN's first CAPACITY WRs, the header saying so
    { sed -n 1p "$1"; sed -n 2p "$1" | sed "s/\$/ capacity=$3 unlogged=$4/"; sed -n 3p "$1";
      sed -n "4,$(( $3 + 3 ))p" "$1"; } > "$2"
}
cut "$T/a.log" "$T/acut.log" 100 200
err=$("$FLOWS" "$T/acut.log" "$T/b2.log" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && grep -q "cut at its capacity of 100 WRs (200 more" <<< "$err"; then
    ok "cut log refused: $err"
else
    bad "cut log: exit $rc: $err"
fi
out=$("$FLOWS" --allow-truncated --csv "$T/cut.csv" "$T/acut.log" "$T/b2.log"); rc=$?
[ $rc -eq 0 ] && ok "--allow-truncated: exit 0" || bad "--allow-truncated: exit $rc"
expect_line "the cut flow is flagged" "$out" '^    TRUNCATED: rdx-perf cut this log at 100 WRs \(200 more not logged\)'
expect_line "its end is not taken for a finish" "$out" \
    '^first to finish: flow 0 \(A\) at \+1\.000000 s \[TRUNCATED log'
expect_line "summary" "$out" '^TRUNCATED: 1 of 2 logs were cut'
[ "$(awk -F, 'NR == 1 { print $NF } NR > 1 { print $NF }' "$T/cut.csv" | tr '\n' ' ')" = "truncated 1 0 " ] &&
    ok "flow CSV: truncated column 1, 0" || bad "flow CSV: $(cat "$T/cut.csv")"
cut "$T/a.log" "$T/afull.log" 200 0     # exactly at capacity, nothing left out: whole
out=$("$FLOWS" "$T/afull.log" "$T/b.log"); rc=$?
[ $rc -eq 0 ] && ! grep -q TRUNCATED <<< "$out" && ok "a full log with unlogged=0 is whole" ||
    bad "full log, unlogged=0: exit $rc"
cut "$T/a.log" "$T/abadcap.log" 100 x
{ sed -n 1,2p "$T/a.log" | sed '2s/$/ capacity=10 unlogged=0/'; sed -n '3,$p' "$T/a.log"; } > "$T/aover.log"

# 6. Bad input: one line on stderr, exit 2.
printf '# rdx-wrlog v2\n' > "$T/hdr.log"
{ head -3 "$T/a.log"; echo "0 0 1700000000100000000 1700000000200000000 10";
  echo "1 0 1700000000000000000 1700000000300000000 10"; } > "$T/back.log"
{ head -3 "$T/a.log"; echo "0 0 1700000000100000000 1700000000000000000 10"; } > "$T/early.log"
{ head -3 "$T/a.log"; echo "0 0 17000000001 x 10"; } > "$T/junk.log"
{ head -3 "$T/a.log"; echo "0 0 -5 1 10"; } > "$T/neg.log"
{ head -3 "$T/a.log"; echo "5 0 1 2 10"; echo "5 0 3 4 10"; } > "$T/dupop.log"
head -3 "$T/a.log" > "$T/empty.log"
{ head -3 "$T/a.log"; echo "0 0 1700000000100000000 0 10"; } > "$T/none.log"
head -2 "$T/a.log" > "$T/short.log"
: > "$T/zero.log"
gen "$T/late.log" L 3000000000 1000000 10 100   # starts after A ended
expect_fail() { # NAME ARGS...
    local name=$1 err rc; shift
    err=$("$FLOWS" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ -n "$err" ] && [ "$(wc -l <<< "$err")" -eq 1 ]; then
        ok "bad input: $name -> exit 2: $err"
    else
        bad "bad input: $name: exit $rc, stderr: $err"
    fi
}
expect_fail "missing file" "$T/a.log" "$T/nope.log"
expect_fail "one log" "$T/a.log"
expect_fail "no log" 
expect_fail "wrong header" "$T/a.log" "$T/hdr.log"
expect_fail "post_ns going back" "$T/a.log" "$T/back.log"
expect_fail "completion before post" "$T/a.log" "$T/early.log"
expect_fail "junk field" "$T/a.log" "$T/junk.log"
expect_fail "negative number" "$T/a.log" "$T/neg.log"
expect_fail "repeated op" "$T/a.log" "$T/dupop.log"
expect_fail "no work requests" "$T/a.log" "$T/empty.log"
expect_fail "no completed work request" "$T/a.log" "$T/none.log"
expect_fail "truncated header" "$T/a.log" "$T/short.log"
expect_fail "empty file" "$T/a.log" "$T/zero.log"
expect_fail "flows that never overlap" "$T/a.log" "$T/late.log"
expect_fail "bad --window" --window 0 "$T/a.log" "$T/b.log"
expect_fail "bad --window text" --window abc "$T/a.log" "$T/b.log"
expect_fail "tiny --window" --window 0.000001 "$T/a.log" "$T/b.log"
expect_fail "--by-qp with one QP" --by-qp "$T/a.log"
expect_fail "unknown option" --bogus "$T/a.log" "$T/b.log"
expect_fail "bad unlogged=" "$T/abadcap.log" "$T/b.log"
expect_fail "more WRs than capacity=" "$T/aover.log" "$T/b.log"
expect_fail "unwritable --csv" --csv /nonexistent/dir/x.csv "$T/a.log" "$T/b.log"

# 7. The key=value line is read whole (any length) and flow= (the --label)
#    runs to the last " dev=": a long label, a label with blanks or holding
#    key=value text never hides or overrides the fields after it.
#    A and B below: 100 ops, 1000 ns and 2000 ns each, report_div=2.
hdr_gen() { # FILE LABEL PERIOD_NS [EXTRA]: a half-rtt log (report_div=2)
    gen "$1" "$2" 0 "$3" 100 8
    sed -i "2s/\$/ lat_kind=half-rtt report_div=2${4:-} capacity=1048576 unlogged=0/" "$1"
}
long=A$(printf 'x%.0s' $(seq 460))
hdr_gen "$T/la.log" "$long" 1000
hdr_gen "$T/lb.log" "B" 2000
out=$("$FLOWS" "$T/la.log" "$T/lb.log" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "long label: exit 0" || bad "long label: exit $rc: $out"
expect_line "long label: read whole" "$out" "^first to finish: flow 0 \\($long\\) at "
[ "$(grep -c '^    latency columns: (complete_ns - post_ns) / 2, lat_kind half-rtt ' <<< "$out")" -eq 2 ] &&
    ok "long label: report_div=2 and lat_kind past 511 characters still read" ||
    { bad "long label: the fields after it"; echo "$out"; }
expect_line "long label: p50 0.50 us (half of 1000 ns), not 1.00" "$out" '^ +0 A(x)+ .* 0\.50 +0\.50$'
hdr_gen "$T/sa.log" "run A" 1000
hdr_gen "$T/sb.log" "run B" 2000
out=$("$FLOWS" "$T/sb.log" "$T/sa.log" 2>&1)
expect_line "label with a blank: read whole" "$out" '^first to finish: flow 1 \(run A\) at '
expect_line "label with a blank: its own row" "$out" '^ +0 run B +100 '
# a label holding "report_div=1" is the label: the real report_div=2 holds
hdr_gen "$T/inj.log" "x report_div=1" 1000
out=$("$FLOWS" "$T/inj.log" "$T/lb.log" 2>&1)
expect_line "label holding key=value: the label" "$out" '^first to finish: flow 0 \(x report_div=1\) at '
expect_line "label holding key=value: report_div=2 still applies" "$out" \
    '^ +0 x report_div=1 +100 .* 0\.50 +0\.50$'
hdr_gen "$T/dupkey.log" "A" 1000 " report_div=1"
hdr_gen "$T/word.log" "A" 1000 " stray"
hdr_gen "$T/cr.log" "A" 1000 $' note=a\rb'
{ sed -n 1p "$T/la.log"; printf '# test=write flow=A dev=rdx_sw0\000 report_div=2\n'; sed -n '3,$p' "$T/la.log"; } \
    > "$T/nul.log"
expect_fail "a key twice in the header" "$T/dupkey.log" "$T/lb.log"
expect_fail "a header word that is not key=value" "$T/word.log" "$T/lb.log"
expect_fail "a CR inside the header" "$T/cr.log" "$T/lb.log"
expect_fail "a NUL byte inside the header" "$T/nul.log" "$T/lb.log"

# 8. bytes: rdx-perf logs 32-bit counts; 2^64-1 used to wrap the totals
{ head -3 "$T/b.log"; tail -n +4 "$T/b.log" | awk '{ $5 = "18446744073709551615"; print }'; } > "$T/huge.log"
{ head -3 "$T/b.log"; tail -n +4 "$T/b.log" | awk '{ $5 = "4294967295"; print }'; } > "$T/max32.log"
expect_fail "bytes over 2^32-1" "$T/huge.log" "$T/a.log"
out=$("$FLOWS" "$T/max32.log" "$T/a.log"); rc=$?
[ $rc -eq 0 ] && ok "bytes 2^32-1: accepted" || bad "bytes 2^32-1: exit $rc"
expect_line "bytes 2^32-1: exact 64-bit totals" "$out" '^ +0 B +200 +200 +858993459000 +200 +858993459000 '

# 9. the same file twice is one flow, not two; --csv onto a log would destroy it
expect_fail "the same log twice" "$T/a.log" "$T/a.log"
ln -s a.log "$T/alink.log"
expect_fail "the same log twice (a symlink)" "$T/a.log" "$T/alink.log"
expect_fail "the same log twice (./)" "$T/a.log" "$T/./a.log"
cp "$T/b.log" "$T/bcopy.log"
expect_fail "--csv onto an input log" --csv "$T/bcopy.log" "$T/a.log" "$T/bcopy.log"
cmp -s "$T/b.log" "$T/bcopy.log" && ok "--csv onto a log: the log is intact" ||
    bad "--csv onto a log: the log was overwritten"
expect_fail "--window beyond 2^63 ns" --window 1e300 "$T/a.log" "$T/b.log"

# 10. I/O failures: one line, exit 1 (a full disk is not bad input)
expect_io() { # NAME REDIRECT_TO ARGS...
    local name=$1 to=$2 err rc; shift 2
    err=$("$FLOWS" "$@" 2>&1 >"$to"); rc=$?
    if [ $rc -eq 1 ] && [ -n "$err" ] && [ "$(wc -l <<< "$err")" -eq 1 ]; then
        ok "I/O failure: $name -> exit 1: $err"
    else
        bad "I/O failure: $name: exit $rc, stderr: $err"
    fi
}
if [ -w /dev/full ]; then
    expect_io "stdout on a full disk" /dev/full "$T/a.log" "$T/b.log"
    expect_io "--csv on a full disk" /dev/null --csv /dev/full "$T/a.log" "$T/b.log"
    expect_io "--window --csv on a full disk" /dev/null --window 250 --csv /dev/full "$T/a.log" "$T/b.log"
else
    ok "SKIP: no /dev/full"
fi

# 11. The logs' device: one warning line (stderr; the figures still computed)
#     when they did not share one, none when they did.
warn_of() { "$FLOWS" "$@" 2>&1 >/dev/null; }
for f in a b; do sed '2s/dev=rdx_sw0/dev=mlx5_0 device_kind=hardware/' "$T/$f.log" > "$T/hw_$f.log"; done
sed '2s/dev=rdx_sw0/dev=rxe0 device_kind=software_rdma_device/' "$T/b.log" > "$T/rxe_b.log"
for f in a b; do sed '2s/dev=rdx_sw0/dev=sw device_kind=software_device/' "$T/$f.log" > "$T/sw_$f.log"; done
sed '2s/$/ host=h1/' "$T/hw_a.log" > "$T/h1_a.log"; sed '2s/$/ host=h2/' "$T/hw_b.log" > "$T/h2_b.log"
sed '2s/$/ host=h1/' "$T/hw_b.log" > "$T/h1_b.log"
err=$(warn_of "$T/hw_a.log" "$T/hw_b.log")
[ -z "$err" ] && ok "one NIC (mlx5_0) for both logs: no warning" || bad "shared NIC warned: $err"
err=$(warn_of "$T/h1_a.log" "$T/h1_b.log")
[ -z "$err" ] && ok "one NIC on one host: no warning" || bad "shared NIC, one host, warned: $err"
err=$(warn_of "$T/hw_a.log" "$T/rxe_b.log")
[ "$(wc -l <<< "$err")" -eq 1 ] && grep -q "^rdx-flows: warning: the logs ran on different devices (.*hw_a.log: dev mlx5_0, .*rxe_b.log: dev rxe0)" <<< "$err" &&
    ok "two devices: one warning line: $err" || bad "two devices: '$err'"
out=$("$FLOWS" "$T/hw_a.log" "$T/rxe_b.log" 2>/dev/null)
expect_line "two devices: still computed, flagged" "$out" \
    "^Jain's fairness index: 0\.900000 .*\[the logs need not have shared a device"
err=$(warn_of "$T/h1_a.log" "$T/h2_b.log")
grep -q "^rdx-flows: warning: the logs ran on different hosts" <<< "$err" &&
    ok "two hosts: warned" || bad "two hosts: '$err'"
err=$(warn_of "$T/sw_a.log" "$T/sw_b.log")
grep -q "^rdx-flows: warning: 2 logs on the software device (dev sw): each rdx-perf process has a model of its own" <<< "$err" &&
    ok "two software-device logs: warned (a model per process)" || bad "two sw logs: '$err'"
# logs with the device's identity (dev_id=, rdx-perf's logs since it has
# it): one model segment (two lcores of one process) shares, two do not,
# an older log beside a newer one is unknown
sed '2s/$/ host=h1 dev_id=sw:rdx-sw-7-0/' "$T/sw_a.log" > "$T/id7_a.log"
sed '2s/$/ host=h1 dev_id=sw:rdx-sw-7-0/' "$T/sw_b.log" > "$T/id7_b.log"
sed '2s/$/ host=h1 dev_id=sw:rdx-sw-8-0/' "$T/sw_b.log" > "$T/id8_b.log"
err=$(warn_of "$T/id7_a.log" "$T/id7_b.log")
[ -z "$err" ] && ok "two logs of one model (dev_id sw:rdx-sw-7-0): no warning" || bad "one model warned: $err"
err=$(warn_of "$T/id7_a.log" "$T/id8_b.log")
[ "$(wc -l <<< "$err")" -eq 1 ] &&
grep -q "^rdx-flows: warning: the logs ran on different devices (.*id7_a.log: dev_id sw:rdx-sw-7-0, .*id8_b.log: dev_id sw:rdx-sw-8-0), models of the software device in different processes" <<< "$err" &&
    ok "two models: one warning line" || bad "two models: '$err'"
err=$(warn_of "$T/id7_a.log" "$T/sw_b.log")
grep -q "^rdx-flows: warning: 1 of the 2 logs do not record their host" <<< "$err" &&
    ok "a log without host=/dev_id= beside one with: warned (unknown)" || bad "old + new: '$err'"
sed '2s/$/ host=h1/' "$T/sw_b.log" > "$T/h1sw_b.log"
err=$(warn_of "$T/id7_a.log" "$T/h1sw_b.log")
grep -q "^rdx-flows: warning: 1 of the 2 logs do not record their device's identity (dev_id=)" <<< "$err" &&
    ok "a log without dev_id= beside one with: warned (unknown)" || bad "no dev_id + dev_id: '$err'"
sed '2s/dev=rdx_sw0/dev=sw device_kind=software_device/' "$T/qps.log" > "$T/sw_qps.log"
err=$(warn_of --by-qp "$T/sw_qps.log")
[ -z "$err" ] && ok "--by-qp on one log (one process, one model): no warning" || bad "--by-qp one log warned: $err"

# 12. CSV through lib/stats' writer: a field with a comma, a quote, or a
#     leading or trailing blank is quoted, '"' doubled.
gen "$T/q1.log" 'x' 0 10000000 200 1000000
gen "$T/q2.log" 'y' 0 5000000 200 1000000
sed -i '2s/flow=x /flow=trail  /' "$T/q1.log"                # label "trail "
sed -i '2s/flow=y /flow= lead,"q" /' "$T/q2.log"             # label ' lead,"q"'
"$FLOWS" --csv "$T/q.csv" "$T/q1.log" "$T/q2.log" > /dev/null 2>&1
if grep -q '^0,"trail ",' "$T/q.csv" && grep -q '^1," lead,""q""",' "$T/q.csv"; then
    ok "CSV quoting as lib/stats' (leading/trailing blanks, comma, quote)"
else bad "CSV quoting: $(cat "$T/q.csv")"; fi

# 13. --json: the logs as read and the analysis; --parse-only: one log, no analysis
if "$FLOWS" --window 250 --json "$T/f.json" "$T/a.log" "$T/b.log" > /dev/null &&
   "$PY" - "$T/f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["logs"]
assert a["label"] == "A" and a["wrs"] == 200 and len(a["wr_ns"]) == 200, a["label"]
assert set(a["wr_ns"]) == {10000000}, "A: every WR 10 ms"
assert a["fields"]["dev"] == "rdx_sw0" and a["report_div"] == 1
an = d["analysis"]
assert abs(an["jain"] - 0.9) < 1e-9 and an["first_to_finish"] == 1, an
assert [f["bytes_in_interval"] for f in an["flows"]] == [100000000, 200000000]
w = d["windows"]
assert len(w["rows"]) == 8 and w["rows"][0] == [0, 0.0, 250.0, 1, 0.8, 1.6], w["rows"][0]
assert d["shared_device"] is True
PY
then ok "--json: logs, per-WR latencies, analysis, windows"; else bad "--json: $(head -c 300 "$T/f.json")"; fi
if "$FLOWS" --parse-only --json "$T/p.json" "$T/acut.log" > "$T/p.out" 2>&1 && [ ! -s "$T/p.out" ] &&
   "$PY" -c 'import json,sys; l=json.load(open(sys.argv[1]))["logs"]; assert len(l)==1 and l[0]["truncated"] and l[0]["unlogged"]==200 and len(l[0]["wr_ns"])==100' "$T/p.json"; then
    ok "--parse-only: one (cut) log, flagged, nothing on stdout"
else bad "--parse-only: $(cat "$T/p.out")"; fi
expect_fail "--parse-only without --json" --parse-only "$T/a.log"
expect_fail "--parse-only with --window" --parse-only --json "$T/x.json" --window 5 "$T/a.log"
expect_fail "--json onto an input log" --json "$T/bcopy.log" "$T/a.log" "$T/bcopy.log"
if [ -w /dev/full ]; then
    expect_io "--json on a full disk" /dev/null --parse-only --json /dev/full "$T/a.log"
fi

echo "$fails failure(s)"
[ $fails -eq 0 ]
