#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf echo on lib/rpc (--transport infrc|basic+infud|homa+infud) on the
# software device: every clusterperf size (100 B .. 1 MB responses to 30 B
# requests) over each transport in one process and in two, with --verify;
# 1% UD loss (sw:ud_drop=0.01,seed=1): every call completes with correct
# bytes, retransmissions > 0, errors 0; a mixed workload (--mix) with
# several clients reports percentiles per size and the grants it took.
source "$(dirname "$0")/lib.sh"
TRANSPORTS=(infrc basic+infud homa+infud)
CP=100,1K,10K,100K,1M

# jcheck FILE ROWS OPS [RETX]: the JSON report has ROWS total rows, each
# with OPS measured calls (0: any > 0) and percentiles in order; RETX
# "retx": its rpc_retransmits knob is > 0; the failed calls knob is 0
jcheck() {
    python3 - "$@" <<'EOF'
import json, sys
f, rows, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want_retx = len(sys.argv) > 4
r = json.load(open(f))
k = r["knobs"]
tot = [x for x in r["results"] if x["lcore"] == -1]
bad = []
if len(tot) != rows:
    bad.append("%d total rows, want %d" % (len(tot), rows))
for x in tot:
    if (ops and x["ops"] != ops) or x["ops"] <= 0:
        bad.append("%s: %d ops, want %d" % (x["name"], x["ops"], ops))
    l = x.get("lat", {})
    seq = [l.get(p, 0) for p in ("min", "p50", "p90", "p99", "p999", "max")]
    if seq != sorted(seq) or seq[0] <= 0:
        bad.append("%s: percentiles out of order %s" % (x["name"], seq))
if k.get("device_kind") != "software device":
    bad.append("device_kind %r" % k.get("device_kind"))
if int(k.get("rpc_calls_failed", "1")) != 0:
    bad.append("rpc_calls_failed %s" % k.get("rpc_calls_failed"))
if want_retx and int(k.get("rpc_retransmits", "0")) <= 0:
    bad.append("rpc_retransmits %s, want > 0" % k.get("rpc_retransmits"))
print("; ".join(bad) if bad else "retransmits %s, grants %s" % (k.get("rpc_retransmits"), k.get("rpc_grants_sent")))
sys.exit(1 if bad else 0)
EOF
}

# one process: every clusterperf size, --verify
for t in "${TRANSPORTS[@]}"; do
    n=${t%%+*}
    run "one-$n" 120 "${EAL[@]}" -- --test echo --transport "$t" --dev sw --sizes "$CP" -n 60 \
        --warmup 10 --verify --json "$TMP/one-$n.json"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "every response byte checked: OK" "$TMP/one-$n.err" &&
       jcheck "$TMP/one-$n.json" 5 60 >"$TMP/one-$n.chk"; then
        pass "one process, $t, $CP --verify: $(cat "$TMP/one-$n.chk")"
    else
        fail "one process, $t: exit $rc: $(cat "$TMP/one-$n.chk" 2>/dev/null) $(tail -n 2 "$TMP/one-$n.err" | tr '\n' '|')"
    fi
done

# two server endpoints, a client each (--servers 2: -q follows)
run servers 60 "${EAL[@]}" -- --test echo --transport basic+infud --dev sw --servers 2 \
    --sizes 100,10K -n 50 --warmup 5 --verify --json "$TMP/servers.json"
rc=$?
if [ $rc -eq 0 ] && grep -q "every response byte checked: OK" "$TMP/servers.err" &&
   grep -q '"servers": "2"' "$TMP/servers.json" && jcheck "$TMP/servers.json" 2 100 >"$TMP/servers.chk"; then
    pass "one process, --servers 2: $(cat "$TMP/servers.chk")"
else
    fail "one process, --servers 2: exit $rc: $(cat "$TMP/servers.chk" 2>/dev/null) $(tail -n 2 "$TMP/servers.err" | tr '\n' '|')"
fi

# the device's model on its own thread: the clients on the worker lcore,
# the server polled by the main lcore
run thread 120 "${EAL[@]}" -- --test echo --transport homa+infud --dev sw --sw-progress thread \
    --sizes 100,1M -n 40 --warmup 5 --verify --json "$TMP/thread.json"
rc=$?
if [ $rc -eq 0 ] && grep -q "every response byte checked: OK" "$TMP/thread.err" &&
   grep -q '"server_lcore": "main"' "$TMP/thread.json" && jcheck "$TMP/thread.json" 2 40 >"$TMP/thread.chk"; then
    pass "one process, --sw-progress thread, server on the main lcore: $(cat "$TMP/thread.chk")"
else
    fail "one process, --sw-progress thread: exit $rc: $(cat "$TMP/thread.chk" 2>/dev/null) $(tail -n 2 "$TMP/thread.err" | tr '\n' '|')"
fi

# two processes over the TCP bootstrap; calls may wait 30 s for progress
# (not lib/rpc's 5 s): on the shared 2-core machine a process can lose the
# CPU for seconds, and a call that completes late still completes
LONG=(--rpc call_timeout_us=30000000)
pair() { # name, args (both sides)
    local name=$1; shift
    local port; port=$(free_port)
    timeout -k 5 150 "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw "$@" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    timeout -k 5 150 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw "$@" \
        --json "$TMP/$name.json" >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRV_RC=$?
}
for t in "${TRANSPORTS[@]}"; do
    n=${t%%+*}
    pair "two-$n" --test echo --transport "$t" --sizes "$CP" -n 40 --warmup 5 --verify "${LONG[@]}"
    if [ $CRC -eq 0 ] && [ $SRV_RC -eq 0 ] &&
       grep -q "every response byte checked: OK" "$TMP/two-$n.c.err" &&
       jcheck "$TMP/two-$n.json" 5 40 >"$TMP/two-$n.chk"; then
        pass "two processes, $t, $CP --verify: $(cat "$TMP/two-$n.chk")"
    else
        fail "two processes, $t: client $CRC server $SRV_RC: $(cat "$TMP/two-$n.chk" 2>/dev/null) $(tail -n 2 "$TMP/two-$n.c.err" | tr '\n' '|') / $(tail -n 1 "$TMP/two-$n.s.err")"
    fi
done

# 1% loss on UD: every call completes, bytes correct, retransmissions seen
for t in basic+infud homa+infud; do
    n=${t%%+*}
    run "loss-$n" 120 "${EAL[@]}" -- --test echo --transport "$t" --dev sw:ud_drop=0.01,seed=1 \
        --sizes 100,10K,100K,1M -n 40 --warmup 5 --concurrent-ops 4 --verify --json "$TMP/loss-$n.json"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "every response byte checked: OK" "$TMP/loss-$n.err" &&
       ! grep "rdx-perf: rpc" "$TMP/loss-$n.err" | grep -qv "; errors 0$" &&
       jcheck "$TMP/loss-$n.json" 4 40 retx >"$TMP/loss-$n.chk"; then
        pass "1% loss, $t --verify: $(cat "$TMP/loss-$n.chk")"
    else
        fail "1% loss, $t: exit $rc: $(cat "$TMP/loss-$n.chk" 2>/dev/null) $(grep "rdx-perf: rpc" "$TMP/loss-$n.err" | tail -n 2 | tr '\n' '|') $(tail -n 1 "$TMP/loss-$n.err")"
    fi
done

# mixed workload: three clients, 90% 100 B and 10% 1 MB responses; rows
# per size, and homa grants
run mix 120 "${EAL[@]}" -- --test echo --transport homa+infud --dev sw --mix 100:90,1M:10 \
    -q 3 --mode bw --concurrent-ops 4 -n 60 --warmup 5 --verify --json "$TMP/mix.json"
rc=$?
if [ $rc -eq 0 ] && jcheck "$TMP/mix.json" 3 0 >"$TMP/mix.chk" &&
   python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); n=[x["name"] for x in r["results"]]; k=r["knobs"]; sys.exit(0 if "mix100" in n and "mix1M" in n and k["mix"]=="100:90,1M:10" and int(k["rpc_grants_sent"])>0 and sum(x["ops"] for x in r["results"] if x["name"]=="mix")==180 else 1)' "$TMP/mix.json"; then
    pass "--mix 100:90,1M:10, 3 clients, homa+infud: rows mix100, mix1M, mix; $(cat "$TMP/mix.chk")"
else
    fail "--mix: exit $rc: $(cat "$TMP/mix.chk" 2>/dev/null) $(tail -n 2 "$TMP/mix.err" | tr '\n' '|')"
fi
finish
