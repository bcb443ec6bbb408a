#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-selfcheck on the software device: every check passes and exits 0, the
# JSON report has the documented fields (doc/getting-started.md), a WQE
# byte flipped through the test-only --test-wqe-flip hook fails the WQE
# check naming the field (exit 1), the doorbell check posts from every
# worker lcore, and bad input is one line and exit 2. Then scripts/bench.sh's
# gate, in a copy of the tree with a fake rdx-perf whose device check runs
# on the mlx5 driver and a fake rdx-selfcheck: a failed self-check stops
# the suite before any figure, naming the failing rows.
# Usage: selfcheck.sh PATH/TO/rdx-selfcheck
source "$(dirname "$0")/lib.sh"
SC=$PERF

sc() { # name timeout args...: run rdx-selfcheck, outputs in $TMP/name.{out,err}
    local name=$1 t=$2; shift 2
    timeout -k 5 "$t" "$SC" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# 1. every check passes on the software device
sc all 120 --no-huge -l 0 -- --dev sw --json "$TMP/all.json"
rc=$?
if [ $rc -eq 0 ] && grep -q '^verdict: PASS' "$TMP/all.out"; then
    pass "software device: verdict PASS, exit 0"
else
    fail "software device: exit $rc"; cat "$TMP/all.out" "$TMP/all.err"
fi
for row in card limits wqe.rc wqe.ud cqe.rc cqe.ud cqe.error doorbell; do
    if grep -Eq "^  $row +PASS " "$TMP/all.out"; then pass "row $row: PASS"
    else fail "row $row not PASS:"; grep -E "^  $row " "$TMP/all.out"; fi
done
grep -Eq '^  cqe.verbs +skip +one driver only' "$TMP/all.out" &&
    pass "cqe.verbs: skipped with its reason" || fail "cqe.verbs: no skip line"
# one screen: a header, the rows, the verdict
n=$(wc -l <"$TMP/all.out")
[ "$n" -le 24 ] && pass "the table fits one screen ($n lines)" || fail "the table has $n lines"

# 2. the JSON report
python3 - "$TMP/all.json" <<'PY' && pass "JSON report: documented fields, WQEs compared" || fail "JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tool"] == "rdx-selfcheck" and r["format"] == 1 and r["verdict"] == "pass", r
d = r["devices"][0]
assert d["name"] == "sw" and d["driver"] == "sw" and d["software"] is True and d["verdict"] == "pass"
for k in ("max_qp_wr", "max_inline", "max_sge", "max_dm_size", "active_mtu", "link_layer"):
    assert k in d["card"], k
rows = {c["check"]: c for c in d["checks"]}
for c in d["checks"]:
    assert c["verdict"] in ("pass", "fail", "skip") and c["detail"], c
w = rows["wqe.rc"]["data"]
assert w["reference"] == "model" and w["wqes"] > 1000 and w["failed"] == 0 and w["diffs"] == [], w
assert rows["wqe.ud"]["data"]["wqes"] > 500
res = rows["cqe.rc"]["data"]["results"]
assert {x["op"] for x in res} >= {"WRITE", "WRITE_IMM", "SEND", "SEND_IMM", "READ", "CAS", "FAA"}
assert all(x["ok"] and x["status"] == 0 for x in res), res
assert rows["cqe.error"]["data"]["results"][0]["status"] == 10   # IBV_WC_REM_ACCESS_ERR
db = rows["doorbell"]["data"]
assert db["lost"] == 0 and db["duplicated"] == 0 and db["wrs_per_qp"] == 4096, db
PY

# 3. a wrong WQE byte (test-only hook) fails the check and names the field
for t in "3 ctrl.opcode" "12 ctrl.imm" "11 ctrl.fm_ce_se"; do
    set -- $t
    sc "flip$1" 120 --no-huge -l 0 -- --dev sw --test-wqe-flip "$1" --json "$TMP/flip$1.json"
    rc=$?
    if [ $rc -eq 1 ] && grep -Eq "^  wqe.rc +FAIL .*: $2 \(byte $1\)" "$TMP/flip$1.out" &&
       grep -q '^verdict: FAIL' "$TMP/flip$1.out" &&
       python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); rows={c["check"]: c for c in r["devices"][0]["checks"]}; d=rows["wqe.rc"]["data"]["diffs"][0]; assert r["verdict"]=="fail" and d["field"]==sys.argv[2] and d["byte"]==int(sys.argv[3]), d' \
           "$TMP/flip$1.json" "$2" "$1"; then
        pass "byte $1 flipped: exit 1, wqe.rc FAIL names $2 (table and JSON)"
    else
        fail "byte $1 flipped: exit $rc"; cat "$TMP/flip$1.out"
    fi
done
# the QPN is not compared (it must differ between two QPs)
sc flip5 120 --no-huge -l 0 -- --dev sw --test-wqe-flip 5
[ $? -eq 0 ] && pass "byte 5 (QPN) flipped: not compared, exit 0" || fail "byte 5 flipped: $(grep wqe "$TMP/flip5.out")"

# 4. doorbells from several posting lcores (more lcores than cores is fine)
sc lcores 120 --no-huge --lcores '0@0,1@0,2@0,3@0' -- --dev sw --db-wrs 2000
grep -Eq '^  doorbell +PASS +3 lcore\(s\) x 2 QPs x 2000 WRs: 0 lost, 0 duplicated' "$TMP/lcores.out" &&
    pass "doorbells from 3 worker lcores: 0 lost, 0 duplicated" ||
    { fail "doorbells from 3 lcores"; cat "$TMP/lcores.out"; }

# 5. bad input: one line, exit 2; a device that cannot be opened fails
for a in "--db-wrs 0" "--test-wqe-flip x" "--bogus" "stray"; do
    sc bad 30 --no-huge -l 0 -- $a
    rc=$?
    lines=$(grep -vc '^rdx: no hugepages' "$TMP/bad.err")
    if [ $rc -eq 2 ] && [ "$lines" -le 2 ] && ! grep -q 'verdict' "$TMP/bad.out"; then
        pass "'$a': exit 2, $(head -1 "$TMP/bad.err")"
    else
        fail "'$a': exit $rc, $lines lines"; cat "$TMP/bad.err"
    fi
done
for a in "-l 0" "--no-huge"; do
    sc eal 30 -- $a
    rc=$?
    if [ $rc -eq 2 ] && grep -q "^rdx-selfcheck: EAL options go before \"--\": rdx-selfcheck ${a%% *} " "$TMP/eal.err"; then
        pass "EAL's '$a' after '--': exit 2, $(grep 'EAL options' "$TMP/eal.err")"
    else
        fail "EAL's '$a' after '--': exit $rc: $(tr '\n' '|' <"$TMP/eal.err")"
    fi
done
sc nodev 30 --no-huge -l 0 -- --dev nosuch0
[ $? -eq 1 ] && grep -Eq '^  open +FAIL +cannot open nosuch0' "$TMP/nodev.out" &&
    pass "an unknown device: open FAIL, exit 1" || fail "unknown device: $(cat "$TMP/nodev.out")"
# 6. scripts/bench.sh's gate (fakes: no NIC here)
T=$TMP/tree
FB=$TMP/fb
mkdir -p "$T/scripts" "$T/bench" "$T/out" "$FB/apps/rdx-perf" "$FB/apps/rdx-selfcheck" "$TMP/bin"
cp "$SRC/scripts/bench.sh" "$T/scripts/bench.sh"
for s in echo_calib sw_scaling callgrind; do printf '#!/bin/sh\nexit 0\n' >"$T/bench/$s.sh"; chmod +x "$T/bench/$s.sh"; done
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/ninja"
chmod +x "$TMP/bin/ninja"
touch "$FB/build.ninja"
cat >"$FB/apps/rdx-perf/rdx-perf" <<'FAKE'
#!/usr/bin/env bash
# fake rdx-perf: the device check (-n 1) reports FAKE_DRIVER's device; a
# suite run writes a one-row report
echo "rdx-perf $*" >>"$FAKE_CALLS"
args=" $* " json=
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
case "$args" in
*" -n 1 "*) echo "{\"knobs\": {\"driver\": \"$FAKE_DRIVER\", \"dev\": \"${FAKE_DRIVER}_0\"}}" >"$json" ;;
*) echo '{"knobs": {"dev": "mlx5_0", "device_kind": "hardware"}, "results": []}' >"$json" ;;
esac
FAKE
cat >"$FB/apps/rdx-selfcheck/rdx-selfcheck" <<'FAKE'
#!/usr/bin/env bash
# fake rdx-selfcheck: its report says FAKE_SC (pass or fail)
echo "rdx-selfcheck $*" >>"$FAKE_CALLS"
json=
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
if [ "$FAKE_SC" = pass ]; then v=pass; rc=0; else v=fail; rc=1; fi
cat >"$json" <<J
{"verdict": "$v", "devices": [{"name": "mlx5_0", "checks": [{"check": "card", "verdict": "pass"},
 {"check": "wqe.rc", "verdict": "$v"}, {"check": "doorbell", "verdict": "$v"}]}]}
J
exit $rc
FAKE
chmod +x "$FB/apps/rdx-perf/rdx-perf" "$FB/apps/rdx-selfcheck/rdx-selfcheck"
gate() { # driver selfcheck-verdict
    : >"$TMP/calls"
    (cd "$T" && PATH="$TMP/bin:$PATH" RDX_NO_SETUP=1 RDX_BUILD=$FB FAKE_CALLS=$TMP/calls \
        FAKE_DRIVER=$1 FAKE_SC=$2 timeout -k 5 60 scripts/bench.sh --quick >"$TMP/gate.out" 2>"$TMP/gate.err")
}
gate mlx5 fail
rc=$?
if [ $rc -eq 1 ] &&
   grep -q '^bench.sh: mlx5_0 failed the self-check (wqe.rc doorbell): no figures for it; send out/selfcheck.json' "$TMP/gate.err" &&
   [ "$(grep -c '^rdx-perf ' "$TMP/calls")" -eq 1 ] && ! grep -q '^=== echo' "$TMP/gate.out" &&
   grep -q '^rdx-selfcheck -l 0-1 -- --dev mlx5_0 --json out/selfcheck.json$' "$TMP/calls"; then
    pass "bench.sh on mlx5, self-check failed: exit 1, rows named, no run"
else
    fail "bench.sh gate (failed self-check): exit $rc"; cat "$TMP/gate.err" "$TMP/calls"
fi
gate mlx5 pass
rc=$?
grep -q '^rdx-selfcheck ' "$TMP/calls" && grep -q '^=== echo: ' "$TMP/gate.out" &&
    [ "$(grep -c '^rdx-perf ' "$TMP/calls")" -gt 10 ] &&
    pass "bench.sh on mlx5, self-check passed: the suite runs (exit $rc)" ||
    { fail "bench.sh gate (passed self-check): exit $rc"; tail -n 5 "$TMP/gate.err"; }
gate sw fail
rc=$?
! grep -q '^rdx-selfcheck ' "$TMP/calls" && grep -q '^=== echo: ' "$TMP/gate.out" &&
    pass "bench.sh on the software device: no self-check gate (exit $rc)" ||
    { fail "bench.sh on sw ran the self-check"; cat "$TMP/calls"; }
finish
