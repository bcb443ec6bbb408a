#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --qp-sweep repeats the run per QP count; -o writes the per-WR log with one
# line per WR in the rdx-wrlog v1 format.
source "$(dirname "$0")/lib.sh"

if run sweep 120 "${EAL[@]}" -- --test write --mode bw -s 256 -n 100 --qp-sweep 1-3 --dev sw \
        --json "$TMP/sweep.json" &&
   python3 - "$TMP/sweep.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tot = [x for x in r["results"] if x["lcore"] == -1]
assert [x["qps"] for x in tot] == [1, 2, 3], [x["qps"] for x in tot]
assert [x["ops"] for x in tot] == [100, 200, 300], [x["ops"] for x in tot]
PY
then
    pass "--qp-sweep 1-3: one run per QP count, ops scale"
else
    fail "--qp-sweep 1-3: $(tail -n 2 "$TMP/sweep.err" | tr '\n' '|')"
fi

# geometric sweep: 1, 8, 64, 512 QPs (one send and one receive CQ per lcore)
if run gsweep 120 "${EAL[@]}" -- --test write --mode bw -s 64 -n 20 --qp-sweep 1-512*8 --dev sw \
        --json "$TMP/gsweep.json" &&
   python3 - "$TMP/gsweep.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tot = [x for x in r["results"] if x["lcore"] == -1]
assert [x["qps"] for x in tot] == [1, 8, 64, 512], [x["qps"] for x in tot]
assert [x["ops"] for x in tot] == [20, 160, 1280, 10240], [x["ops"] for x in tot]
PY
then
    pass "--qp-sweep 1-512*8: one run per QP count 1, 8, 64, 512"
else
    fail "--qp-sweep 1-512*8: $(tail -n 2 "$TMP/gsweep.err" | tr '\n' '|')"
fi

for spec in "write bw 4K 300 -q 2 -l 4 -Q 8" "read lat 64 150" "echo lat 100 120"; do
    set -- $spec
    t=$1 m=$2 s=$3 n=$4; shift 4
    log=$TMP/$t-$m.log
    if ! run "log-$t" 120 "${EAL[@]}" -- --test "$t" --mode "$m" --sizes "$s" -n "$n" "$@" \
            --dev sw -o "$log" --label flowA; then
        fail "-o $t $m: exit status: $(tail -n 1 "$TMP/log-$t.err")"
        continue
    fi
    q=1; [ "${1:-}" = "-q" ] && q=$2
    if out=$(python3 - "$log" "$t" "$m" "$((n * q))" "$q" <<'PY'
import sys
path, test, mode, n, q = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
lines = open(path).read().splitlines()
assert lines[0] == "# rdx-wrlog v1", lines[0]
hdr = dict(kv.split("=", 1) for kv in lines[1][2:].split())
assert hdr["test"] == test and hdr["mode"] == mode and hdr["flow"] == "flowA", hdr
assert int(hdr["tsc_hz"]) > 0 and hdr["dev"], hdr
rows = [l.split() for l in lines if not l.startswith("#")]
assert len(rows) == n, "%d WR lines, %d expected" % (len(rows), n)
qps = set()
for i, r in enumerate(rows):
    op, qp, post, done, nbytes = map(int, r)
    assert op == i, "op %d on line %d" % (op, i)
    assert done >= post > 1600000000 * 10**9, r
    qps.add(qp)
    prev = post
assert len(qps) == q, qps
posts = [int(r[2]) for r in rows]
assert posts == sorted(posts), "not in post order"
PY
    ); then
        pass "-o $t $m: $((n * q)) WR lines"
    else
        fail "-o $t $m: $out"
    fi
done
finish
