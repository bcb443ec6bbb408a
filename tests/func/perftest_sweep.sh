#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest's --cpu_util and -W/--report-counters through rdx-perf on the
# software device (apps/rdx-perf/host_stats.c; lib/stats rdx_cpu.c and
# lib/dev rdx_dev_sysfs.c are unit-tested): the CPU_Util[%] column parsed
# as perftest's scripts parse it, the JSON figure, the table and JSON
# agreeing, and -W's one line on the software device.
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
finish
