#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest's --cpu_util and -W/--report-counters through rdx-perf on the
# software device (apps/rdx-perf/host_stats.c; lib/stats rdx_cpu.c and
# lib/dev rdx_dev_sysfs.c are unit-tested): the CPU_Util[%] column parsed
# as perftest's scripts parse it, the JSON figure, the table and JSON
# agreeing, -W's one line on the software device, and the CAS swaps
# that took effect and failed in every CAS report, --keys/--key-stride on
# the atomics, write and read, --lcore-sweep and --tx-depth-sweep.
source "$(dirname "$0")/lib.sh"
export RDX_EAL="--no-huge -l 0"

# --cpu_util: one column more, the last, a number in 0..100; the JSON
# total row carries it
if run cpu 60 ib_write_bw -d sw --loopback -D 1 --cpu_util --out_json_file "$TMP/cpu.json" &&
   got=$(python3 - "$TMP/cpu.out" "$TMP/cpu.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = [l.split() for l in lines if l.lstrip().startswith("#bytes")]
assert len(head) == 1 and head[0][-1] == "CPU_Util[%]", head
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert len(rows) == 1, rows
cpu = float(rows[0][5])
assert 0 <= cpu <= 100, rows
tot = [r for r in json.load(open(sys.argv[2]))["results"] if r["lcore"] == -1][0]
assert abs(tot["cpu_util_pct"] - cpu) <= 0.0051, (tot["cpu_util_pct"], cpu)
print("%.2f%%" % cpu)
PY
2>"$TMP/cpu.py"); then
    pass "--cpu_util -D 1: CPU_Util[%] column $got, the JSON's cpu_util_pct the same"
else
    fail "--cpu_util: $(tail -c 300 "$TMP/cpu.py") $(head -c 300 "$TMP/cpu.err") $(sed -n '/#bytes/,$p' "$TMP/cpu.out" | head -c 600)"
fi
# latency table and a sweep: every row has the column; rows shorter than a
# clock tick print 0.00 (as perftest) and the footer says why
if run cpua 60 ib_write_lat -d sw --loopback -a -n 100 --cpu_util &&
   python3 - "$TMP/cpua.out" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head = [l.split() for l in lines if l.lstrip().startswith("#bytes")][0]
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert head[-1] == "CPU_Util[%]" and len(rows) == 23, (head, len(rows))
for r in rows:
    # the last figure, before the row's SHORT / CUT marks
    while r[-1] in ("SHORT", "CUT"):
        r.pop()
    assert len(r) == 10 and 0 <= float(r[9]) <= 100, r
assert any("CPU_Util: user / (user + idle)" in l for l in lines), lines[-5:]
PY
then
    pass "ib_write_lat -a --cpu_util: 23 rows, each with CPU_Util[%] in the column of the header"
else
    fail "--cpu_util -a: $(sed -n '/#bytes/,$p' "$TMP/cpua.out" | head -c 600)"
fi
# without --cpu_util: no column, no JSON figure
if run nocpu 60 ib_write_bw -d sw --loopback -n 2000 --out_json_file "$TMP/nocpu.json" &&
   ! grep -q "CPU_Util" "$TMP/nocpu.out" && ! grep -q cpu_util_pct "$TMP/nocpu.json"; then
    pass "no --cpu_util: no CPU_Util column, no cpu_util_pct"
else
    fail "no --cpu_util: $(grep CPU "$TMP/nocpu.out" | head -c 300)"
fi

# -W on the software device: the run goes on; one line says why no counters
if run wsw 60 ib_write_bw -d sw --loopback -n 2000 -W counters/port_xmit_data,counters/port_rcv_data &&
   [ "$(wc -l <"$TMP/wsw.err")" -eq 1 ] &&
   grep -q "^rdx-perf: -W: port counters are not available on the software device" "$TMP/wsw.err" &&
   grep -qE "^ 65536 +2000 " "$TMP/wsw.out" && ! grep -q "port_xmit_data=" "$TMP/wsw.out"; then
    pass "-W on sw: $(cat "$TMP/wsw.err")"
else
    fail "-W on sw: $(head -c 300 "$TMP/wsw.err")"
fi
# -W on a kernel RDMA device (rdma_rxe or a NIC): the counters' changes
# under the row, as perftest prints them
ibdev=$(ls /sys/class/infiniband 2>/dev/null | head -n 1)
if [ -z "$ibdev" ]; then
    echo "skip -W on a kernel RDMA device: none in /sys/class/infiniband (the reader is unit-tested: rdx_dev_sysfs_ut)"
elif run wnic 60 ib_write_bw -d "$ibdev" --driver verbs --loopback -n 2000 -W counters/port_xmit_data &&
     grep -qE "^	counters/port_xmit_data=[0-9]+$" "$TMP/wnic.out"; then
    pass "-W on $ibdev: $(grep port_xmit_data= "$TMP/wnic.out")"
else
    fail "-W on $ibdev: $(head -c 300 "$TMP/wnic.err")"
fi
# a plain --server (measures nothing) with --cpu_util and -W: perftest's
# server reports them too. After its last line, one CPU_Util[%] line over
# the runs it served, a number in 0..100 (send: its lcore polls the
# receives); -W's one line on the software device, the run goes on
sp=$(free_port)
timeout -k 5 60 "$PERF" ib_send_bw -d sw -p "$sp" --cpu_util -W counters/port_xmit_data \
    >"$TMP/scpu.out" 2>"$TMP/scpu.err" &
spid=$!
for _ in $(seq 200); do ss -Hltn "sport = :$sp" | grep -q . && break; sleep 0.1; done
RDX_EAL="--no-huge -l 1" timeout -k 5 60 "$PERF" ib_send_bw -d sw -p "$sp" -D 1 127.0.0.1 \
    >"$TMP/ccpu.out" 2>"$TMP/ccpu.err"
ccrc=$?
wait "$spid"; scrc=$?
if [ "$ccrc" -eq 0 ] && [ "$scrc" -eq 0 ] &&
   got=$(python3 - "$TMP/scpu.out" <<'PY' 2>"$TMP/scpu.py"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = [k for k, l in enumerate(lines) if l.startswith("rdx-perf: served 1 run(s) of send")]
assert len(i) == 1, lines[-4:]
m = re.match(r"^ CPU_Util\[%\]: (\d+\.\d\d) \(the server's lcores' CPUs 0 over the 1 run\(s\) it served, [0-9.]+ s", lines[i[0] + 1])
assert m and 0 <= float(m.group(1)) <= 100, lines[i[0] + 1]
print(m.group(1))
PY
) && [ "$(grep -c . "$TMP/scpu.err")" -eq 1 ] &&
   grep -q "^rdx-perf: -W: port counters are not available on the software device" "$TMP/scpu.err"; then
    pass "--server --cpu_util -W: CPU_Util[%] $got over the run served; -W: $(grep -- -W: "$TMP/scpu.err")"
else
    fail "--server --cpu_util: client $ccrc server $scrc: $(tail -c 300 "$TMP/scpu.py") $(tail -n 3 "$TMP/scpu.out") $(head -c 300 "$TMP/scpu.err")"
fi
# -b across two processes with --cpu_util: each process's row has its own
# CPUs' figure (the server's own loop measured on its side); the client's
# copy of the server's row and the sum say 0.00 and the footer says why
# (a row of under 0.1 s ends with SHORT)
bp=$(free_port)
timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$bp" -b --cpu_util >"$TMP/bs.out" 2>"$TMP/bs.err" &
bpid=$!
for _ in $(seq 200); do ss -Hltn "sport = :$bp" | grep -q . && break; sleep 0.1; done
RDX_EAL="--no-huge -l 1" timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$bp" -b --cpu_util -n 5000 \
    127.0.0.1 >"$TMP/bc.out" 2>"$TMP/bc.err"
bcrc=$?
wait "$bpid"; bsrc=$?
if [ "$bcrc" -eq 0 ] && [ "$bsrc" -eq 0 ] &&
   grep -qE "^ 65536 +5000 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{2} server \(this process\)( SHORT)?$" "$TMP/bs.out" &&
   grep -qE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0\.00 server( SHORT)?$" "$TMP/bc.out" &&
   grep -qE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{2} client \(this process\)( SHORT)?$" "$TMP/bc.out" &&
   grep -q "^ CPU_Util: the client's lcores' CPUs (/proc/stat); the server and sum rows 0.00: the server prints its own$" "$TMP/bc.out" &&
   ! grep -q "^ CPU_Util\[%\]:" "$TMP/bs.out"; then
    pass "-b --cpu_util: each process's row its own CPU_Util[%]: $(grep "server (this process)" "$TMP/bs.out" | awk '{print $6}') (server), $(grep "client (this" "$TMP/bc.out" | awk '{print $6}') (client)"
else
    fail "-b --cpu_util: client $bcrc server $bsrc: $(grep -E "^ 65536|CPU" "$TMP/bs.out" "$TMP/bc.out" | head -c 600) $(head -c 300 "$TMP/bs.err" "$TMP/bc.err")"
fi
# CAS: every report counts the swaps that took effect and those that
# failed (the key had changed); they add up to the measured ops. One QP
# with one op in flight always finds its own last value: none fails.
cas_check() { # NAME WANT_FAIL_ZERO
    python3 - "$TMP/$1.out" "$TMP/$1.json" "$2" <<'PY'
import json, re, sys
out, js, zero = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3] == "1"
m = re.search(r"^ CAS: (\d+) swapped, (\d+) failed \(the key no longer held the compare value\)$", out, re.M)
assert m, out[-600:]
tot = [r for r in js["results"] if r["lcore"] == -1][0]
ok, bad = int(m.group(1)), int(m.group(2))
assert (ok, bad) == (tot["cas_swapped"], tot["cas_failed"]), (ok, bad, tot)
assert ok + bad == tot["ops"] and ok > 0, (ok, bad, tot["ops"])
if zero:
    assert bad == 0, bad
print("%d swapped, %d failed" % (ok, bad))
PY
}
if run caslat 60 ib_atomic_lat -d sw --loopback -A CMP_AND_SWAP -n 2000 --out_json_file "$TMP/caslat.json" &&
   got=$(cas_check caslat 1 2>"$TMP/caslat.py"); then
    pass "ib_atomic_lat -A CMP_AND_SWAP: CAS $got (footer and JSON agree, sum = ops)"
else
    fail "CAS counts, lat: $(tail -c 300 "$TMP/caslat.py") $(head -c 300 "$TMP/caslat.err")"
fi
if run casbw 60 ib_atomic_bw -d sw --loopback -A CMP_AND_SWAP -q 4 -n 2000 --out_json_file "$TMP/casbw.json" &&
   got=$(cas_check casbw 0 2>"$TMP/casbw.py"); then
    pass "ib_atomic_bw -A CMP_AND_SWAP -q 4: CAS $got (footer and JSON agree, sum = ops)"
else
    fail "CAS counts, bw: $(tail -c 300 "$TMP/casbw.py") $(head -c 300 "$TMP/casbw.err")"
fi
if run faa 60 ib_atomic_bw -d sw --loopback -n 2000 --out_json_file "$TMP/faa.json" &&
   ! grep -q "^ CAS:" "$TMP/faa.out" && ! grep -q cas_swapped "$TMP/faa.json"; then
    pass "ib_atomic_bw (FETCH_AND_ADD): no CAS counts"
else
    fail "faa: CAS counts where there is no CAS: $(grep CAS "$TMP/faa.out")"
fi
# --keys and --key-stride: faa over 4 keys 64 bytes apart, each key then
# read back at its offset (--verify): a stride not applied fails it
if run fk 60 ib_atomic_bw -d sw --loopback -n 4000 -q 2 --keys 4 --key-stride 64 --verify \
       --out_json_file "$TMP/fk.json" &&
   grep -q "every payload byte and key value checked: OK" "$TMP/fk.err" &&
   python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["knobs"]; assert (k["keys"], k["key_stride"]) == ("4", "64"), k' "$TMP/fk.json"; then
    pass "faa --keys 4 --key-stride 64 --verify: every key right at its offset; knobs keys 4, key_stride 64"
else
    fail "faa --key-stride: $(head -c 300 "$TMP/fk.err")"
fi
# write and read: many addresses (--keys 64, one message apart) and one
# address (--keys 1 --key-stride 8); the table's row as usual
for kc in "write|ib_write_bw|--keys 64" "write1|ib_write_bw|--keys 1 --key-stride 8" "read|ib_read_bw|--keys 16 --key-stride 4096"; do
    IFS='|' read -r kn prog ka <<<"$kc"
    read -ra kargs <<<"$ka"
    if run "k$kn" 60 "$prog" -d sw --loopback -s 64 -n 5000 "${kargs[@]}" &&
       grep -qE "^ 64 +5000 +[0-9.]+ +[0-9.]+ +[0-9.]+" "$TMP/k$kn.out"; then
        pass "$prog -s 64 $ka: runs, one row"
    else
        fail "$prog $ka: $(head -c 300 "$TMP/k$kn.err")"
    fi
done
# across two processes the keys must fit the server's buffer (planned
# from -s, -t and --keys): 64 keys one message apart run, 64 keys 64 KiB
# apart are refused
kp=$(free_port)
timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$kp" -s 64 >"$TMP/ks.out" 2>"$TMP/ks.err" &
kspid=$!
for _ in $(seq 200); do ss -Hltn "sport = :$kp" | grep -q . && break; sleep 0.1; done
RDX_EAL="--no-huge -l 1" timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$kp" -s 64 -n 2000 --keys 64 \
    127.0.0.1 >"$TMP/kc.out" 2>"$TMP/kc.err"
kcrc=$?
wait "$kspid"; ksrc=$?
kp=$(free_port)
timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$kp" -s 64 >"$TMP/ks2.out" 2>"$TMP/ks2.err" &
kspid=$!
for _ in $(seq 200); do ss -Hltn "sport = :$kp" | grep -q . && break; sleep 0.1; done
RDX_EAL="--no-huge -l 1" timeout -k 5 60 "$PERF" ib_write_bw -d sw -p "$kp" -s 64 -n 2000 --keys 64 \
    --key-stride 65536 127.0.0.1 >"$TMP/kc2.out" 2>"$TMP/kc2.err"
kc2rc=$?
wait "$kspid"
if [ "$kcrc" -eq 0 ] && [ "$ksrc" -eq 0 ] && grep -qE "^ 64 +2000 " "$TMP/kc.out" && [ "$kc2rc" -eq 2 ] &&
   grep -q "span 4128832 bytes; the server's buffer holds [0-9]* (across two processes" "$TMP/kc2.err"; then
    pass "--keys across processes: 64 keys 64 B apart run; 64 KiB apart: $(cat "$TMP/kc2.err")"
else
    fail "--keys across processes: client $kcrc server $ksrc, mismatch $kc2rc: $(head -c 300 "$TMP/kc.err" "$TMP/kc2.err")"
fi
kbad() { # WHAT PATTERN ARGS..
    local d=$1 pat=$2; shift 2
    timeout -k 2 30 "$PERF" "$@" >/dev/null 2>"$TMP/kb.err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/kb.err")" -eq 1 ] && grep -q -- "$pat" "$TMP/kb.err"; then
        pass "$d: $(cat "$TMP/kb.err")"
    else
        fail "$d: exit $rc: $(head -c 300 "$TMP/kb.err" | tr '\n' '|')"
    fi
}
kbad "--cpu_util on lib/rpc" "--cpu_util with echo on lib/rpc (--transport infrc|basic+infud|homa+infud) is not implemented" \
    --no-huge -l 0 -- --test echo --transport infrc --dev sw --loopback --cpu_util
kbad "-W on lib/rpc" "-W with echo on lib/rpc" \
    --no-huge -l 0 -- --test echo --transport infrc --dev sw --loopback -W counters/port_xmit_data
kbad "--keys on write lat" "apply to the atomics (cas, faa), read and write --mode bw, not write --mode lat" \
    ib_write_lat -d sw --loopback --keys 4
kbad "--keys on send" "not send --mode bw" ib_send_bw -d sw --loopback --keys 4
kbad "--keys --verify on write" "ops to one key overwrite each other's bytes" \
    ib_write_bw -d sw --loopback --keys 4 --verify
kbad "--key-stride 12 on faa" "atomics need 8-byte aligned keys" ib_atomic_bw -d sw --loopback --key-stride 12
kbad "--keys x --key-stride too large" "spans 1099494916096 bytes at size 65536: at most 33554432" \
    ib_write_bw -d sw --loopback --keys 65536 --key-stride 16M
kbad "--key-stride 0" "bad value '0' for --key-stride" ib_write_bw -d sw --loopback --key-stride 0
# --lcore-sweep: one QP per lcore per step, the ConnectX-6 QP-bottleneck
# experiment's shape; two worker lcores on two CPUs (EAL --lcores), a row
# per step with #qps 1 then 2, the header naming the sweep; the JSON has
# one lcore row in the first step and two in the second
if run lsw 120 --no-huge --lcores 0@0,1@1,2@0 -- --test write --mode bw --dev sw --loopback -n 20000 \
       --lcore-sweep 1-2 --json "$TMP/lsw.json" &&
   grep -q "| 1-2 (--lcore-sweep) lcore(s) x 1 QP(s) |" "$TMP/lsw.out" &&
   got=$(python3 - "$TMP/lsw.out" "$TMP/lsw.json" <<'PY' 2>"$TMP/lsw.py"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = [l.split() for l in lines if l.lstrip().startswith("#bytes")]
assert len(head) == 1 and head[0][-1] == "#qps", head
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert [r[5] for r in rows] == ["1", "2"], rows
res = json.load(open(sys.argv[2]))["results"]
per = [r for r in res if r["lcore"] != -1]
tot = [r for r in res if r["lcore"] == -1]
assert [t["qps"] for t in tot] == [1, 2] and len(per) == 3, (tot, per)
assert tot[1]["ops"] == 2 * tot[0]["ops"] == 40000, tot
assert json.load(open(sys.argv[2]))["knobs"]["lcore_sweep"] == "1-2"
print("rows #qps 1, 2; %d lcore rows" % len(per))
PY
); then
    pass "--lcore-sweep 1-2: header says the sweep, $got"
else
    fail "--lcore-sweep: $(tail -c 300 "$TMP/lsw.py") $(head -c 300 "$TMP/lsw.err") $(grep -E "lcore|^ 65536" "$TMP/lsw.out" | head -c 400)"
fi
kbad "--lcore-sweep beyond the lcores" "bad value '1-3' for --lcore-sweep: 2 worker lcore(s) (EAL -l)" \
    --no-huge --lcores 0@0,1@1,2@0 -- --test write --mode bw --dev sw --loopback --lcore-sweep 1-3
kbad "--lcore-sweep with --qp-sweep" "--lcore-sweep with --qp-sweep (one sweep at a time) is not implemented" \
    --no-huge -l 0 -- --test write --mode bw --dev sw --loopback --lcore-sweep 1-2 --qp-sweep 1-2
kbad "--lcore-sweep bad range" "bad value '2-1' for --lcore-sweep" \
    --no-huge -l 0 -- --test write --mode bw --dev sw --loopback --lcore-sweep 2-1
# --tx-depth-sweep: one row per -t step with a #tx_depth column (JSON
# tx_depth), the header saying the sweep, every step its -n ops
if run tsw 120 ib_write_bw -d sw --loopback -n 3000 --tx-depth-sweep '1-16*4' --out_json_file "$TMP/tsw.json" &&
   grep -q -- "^ -t 1-16\*4 (--tx-depth-sweep) -Q 100 " "$TMP/tsw.out" &&
   grep -qF " TX depth        : 1..16 (swept: --tx-depth-sweep 1-16*4)" "$TMP/tsw.out" &&
   got=$(python3 - "$TMP/tsw.out" "$TMP/tsw.json" <<'PY' 2>"$TMP/tsw.py"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = [l.split() for l in lines if l.lstrip().startswith("#bytes")]
assert len(head) == 1 and head[0][-1] == "#tx_depth", head
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert [r[5] for r in rows] == ["1", "4", "16"], rows
tot = [r for r in json.load(open(sys.argv[2]))["results"] if r["lcore"] == -1]
assert [t["tx_depth"] for t in tot] == [1, 4, 16], tot
assert json.load(open(sys.argv[2]))["knobs"]["tx_depth_sweep"] == "1-16*4"
assert not any("defaults that differ" in l for l in lines), "the sweep sets -t"
assert all(t["ops"] == 3000 for t in tot), tot
print("rows -t 1, 4, 16")
PY
); then
    pass "--tx-depth-sweep 1-16*4: header says the sweep, $got, JSON tx_depth"
else
    fail "--tx-depth-sweep: $(tail -c 300 "$TMP/tsw.py") $(head -c 300 "$TMP/tsw.err") $(grep -E "^ -t|^ 65536" "$TMP/tsw.out" | head -c 400)"
fi
# perftest's block of a sweep says the swept range, not its largest
# count: --qp-sweep (one lcore, the steps' QPs) and --lcore-sweep in the
# perftest form (-q 1 per lcore: 1..2 QPs), each row with its own #qps
if run pqs 60 ib_write_bw -d sw --loopback -n 500 --qp-sweep '1-4*2' &&
   grep -qF " Number of qps   : 1..4 (swept: --qp-sweep 1-4*2)" "$TMP/pqs.out" &&
   [ "$(awk '$1 == "65536" { printf "%s,", $6 }' "$TMP/pqs.out")" = "1,2,4," ]; then
    pass "ib_write_bw --qp-sweep 1-4*2: Number of qps 1..4 (swept), rows #qps 1, 2, 4"
else
    fail "perftest block of --qp-sweep: $(grep -E "Number of qps|^ 65536" "$TMP/pqs.out" | head -c 400) $(head -c 300 "$TMP/pqs.err")"
fi
if RDX_EAL="--no-huge --lcores 0@0,1@1,2@0" run pls 120 ib_write_bw -d sw --loopback -n 5000 --lcore-sweep 1-2 &&
   grep -qF " Number of qps   : 1..2 (swept: --lcore-sweep 1-2, 1 per lcore)" "$TMP/pls.out" &&
   [ "$(awk '$1 == "65536" { printf "%s,", $6 }' "$TMP/pls.out")" = "1,2," ]; then
    pass "ib_write_bw --lcore-sweep 1-2: Number of qps 1..2 (swept), rows #qps 1, 2"
else
    fail "perftest block of --lcore-sweep: $(grep -E "Number of qps|^ 65536" "$TMP/pls.out" | head -c 400) $(head -c 300 "$TMP/pls.err")"
fi
kbad "--tx-depth-sweep with -t" "--tx-depth-sweep with -t (the sweep sets it) is not implemented" \
    ib_write_bw -d sw --loopback --tx-depth-sweep 1-8 -t 8
kbad "--tx-depth-sweep in lat" "--tx-depth-sweep with --mode lat (one op in flight) is not implemented" \
    ib_write_lat -d sw --loopback --tx-depth-sweep 1-8
kbad "--tx-depth-sweep and -l" "bad value '4' for -l: a post list longer than the sweep's first -t 1" \
    ib_write_bw -d sw --loopback --tx-depth-sweep 1-8 -l 4
finish
