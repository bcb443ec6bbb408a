#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/softroce/side_by_side.py's rdx-perf runs, on the host: the server
# and client command lines it builds are run as they are, with the two
# rxe devices replaced by the software device, so a command line rdx-perf
# refuses (every rdx-perf row of the soft-RoCE table would read "failed")
# shows here without a guest. One latency and one bandwidth row, as
# side_by_side.py measures them.
source "$(dirname "$0")/lib.sh"

SBS_DIR=$SRC/tests/softroce
python3 - "$SBS_DIR" "$PERF" >"$TMP/out" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import side_by_side as sbs
sbs.SERVER_DEV = sbs.CLIENT_DEV = "sw"
knobs = {"tx_depth": 32, "cq_mod": 8, "post_list": 1}
for mode, size, iters in (("lat", 8, 2000), ("bw", 4096, 3000)):
    res = sbs.rdx_perf(sys.argv[2], "write", mode, size, iters, knobs)
    if res is None or not res.get("mops"):
        print("RESULT write %s: no result" % mode)
    else:
        print("RESULT write %s: %.4f Mop/s" % (mode, res["mops"]))
PY
rc=$?
for mode in lat bw; do
    if grep -q "^RESULT write $mode: [0-9.]* Mop/s" "$TMP/out"; then
        pass "side_by_side.py's rdx-perf write $mode pair runs and reports"
    else
        fail "side_by_side.py's rdx-perf write $mode pair (exit $rc):"
        sed 's/^/    /' "$TMP/out" | tail -n 20
    fi
done
finish
