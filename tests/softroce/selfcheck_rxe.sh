#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-selfcheck on soft-RoCE, inside the guest (tests/softroce/guest-run.sh):
# rxe0 through the verbs driver has no WQEs of rdx's, so the WQE check says
# "needs an mlx5 device" (skip); the card, the limits, the completions (RC,
# UD, a provoked remote access error) and the doorbells from two lcores
# must pass, the exit be 0, and the JSON report say the same. Without a
# --dev it checks every device present (rxe0 and rxe1).
#
#   selfcheck_rxe.sh RDX_SELFCHECK      (exit 77 outside the guest / without rxe)
set -uo pipefail
SC=${1:?usage: selfcheck_rxe.sh RDX_SELFCHECK}
[ -x "$SC" ] || { echo "selfcheck_rxe: no executable $SC" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "selfcheck_rxe: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
TMP=$(mktemp -d /tmp/rdxsc.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "PASS: $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

# rxe0, two lcores (one posting worker); fewer doorbell WRs under TCG
timeout -k 5 300 "$SC" --no-huge -l 0-1 -- --dev rxe0 --db-wrs 500 --json "$TMP/rxe0.json" \
    >"$TMP/rxe0.out" 2>"$TMP/rxe0.err"
rc=$?
cat "$TMP/rxe0.out"
[ $rc -eq 0 ] && grep -q '^verdict: PASS' "$TMP/rxe0.out" && pass "rxe0: verdict PASS, exit 0" ||
    { fail "rxe0: exit $rc"; cat "$TMP/rxe0.err"; }
grep -Eq '^  wqe +skip +needs an mlx5 device' "$TMP/rxe0.out" &&
    pass "rxe0: the WQE check says it needs an mlx5 device" || fail "rxe0: no 'needs an mlx5 device' line"
for row in card limits cqe.rc cqe.ud cqe.error doorbell; do
    grep -Eq "^  $row +PASS " "$TMP/rxe0.out" && pass "rxe0: $row PASS" || fail "rxe0: $row not PASS"
done
python3 - "$TMP/rxe0.json" <<'PY' && pass "rxe0: JSON report agrees" || fail "rxe0: JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
d = r["devices"][0]
assert r["verdict"] == "pass" and d["name"] == "rxe0" and d["driver"] == "verbs", r
rows = {c["check"]: c for c in d["checks"]}
assert rows["wqe"]["verdict"] == "skip"
assert all(x["ok"] for x in rows["cqe.rc"]["data"]["results"])
assert rows["cqe.error"]["data"]["results"][0]["status"] == 10
assert rows["doorbell"]["data"]["lost"] == 0 and rows["doorbell"]["data"]["duplicated"] == 0
PY

# every device present
timeout -k 5 300 "$SC" --no-huge -l 0 -- --db-wrs 200 >"$TMP/all.out" 2>"$TMP/all.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^device rxe0 ' "$TMP/all.out" && grep -q '^device rxe1 ' "$TMP/all.out" &&
    grep -q '^verdict: PASS (2 devices' "$TMP/all.out" && pass "no --dev: rxe0 and rxe1 checked, PASS" ||
    { fail "no --dev: exit $rc"; cat "$TMP/all.out" "$TMP/all.err"; }

echo "selfcheck_rxe: $npass passed, $nfail failed"
[ $nfail -eq 0 ]
