#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf as a perftest user drives it, on the software device: perftest's
# flags with perftest's meaning, the compact table, the server that waits
# until Ctrl-C and survives a stray connection, and the open-loop load
# (--rate, --rate-sweep). Each check asserts something that can fail.
source "$(dirname "$0")/lib.sh"
PEER=$HERE/hostile_peer.py
W=(--test write --dev sw)
L=(--no-huge -l 0)
# absolute: two checks run it from another directory
PERFA=$(cd "$(dirname "$PERF")" && pwd)/$(basename "$PERF")

# refused NAME PATTERN ARGS..: exit 2, exactly one stderr line matching PATTERN
refused() {
    local d=$1 pat=$2; shift 2
    timeout -k 2 30 "$PERF" "${L[@]}" -- "$@" >/dev/null 2>"$TMP/err"
    local rc=$? lines
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
        pass "$d: $(cat "$TMP/err")"
    else
        fail "$d: exit $rc, $lines line(s): $(head -c 300 "$TMP/err" | tr '\n' '|')"
    fi
}
wait_listen() { # PORT
    for _ in $(seq 200); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
    return 1
}

# --- the compact table is what a perftest user reads first
if run lat 60 "${L[@]}" -- "${W[@]}" -d sw -n 2000 &&
   grep -q "#bytes  #iterations t_min\[usec\]  t_max\[usec\]  t_typical\[usec\]  t_avg\[usec\]  t_stdev\[usec\]  99% percentile\[usec\]  99.9% percentile\[usec\]" "$TMP/lat.out" &&
   grep -qE "^ 8 +2000 +[0-9.]+ " "$TMP/lat.out" && grep -q "defaults that differ from perftest's: -s 8 (perftest 2)" "$TMP/lat.out" &&
   grep -qx " status: completed" "$TMP/lat.out" && [ "$(wc -l <"$TMP/lat.out")" -le 11 ]; then
    pass "-d sw: latency table in perftest's columns ($(wc -l <"$TMP/lat.out") lines)"
else
    fail "latency table: $(head -c 800 "$TMP/lat.out")"
fi
if run bw 60 "${L[@]}" -- "${W[@]}" --mode bw -n 20000 &&
   grep -q "#bytes     #iterations    BW peak\[MiB/sec\]     BW average\[MiB/sec\]    MsgRate\[Mpps\]" "$TMP/bw.out" &&
   grep -q "defaults that differ from perftest's: -t 64 (perftest 128), -Q 16 (perftest 100)" "$TMP/bw.out"; then
    pass "bandwidth table in MiB/s with MsgRate, differing defaults named"
else
    fail "bandwidth table: $(head -c 800 "$TMP/bw.out")"
fi
# MiB/s is bytes/s / 2^20: the table against the JSON's exact bytes_per_s
if run bwj 60 "${L[@]}" -- "${W[@]}" --mode bw -n 20000 --out_json_file "$TMP/bw.json" &&
   python3 - "$TMP/bw.json" "$TMP/bwj.out" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
tot = [r for r in rep["results"] if r["lcore"] == -1][0]
row = [l.split() for l in open(sys.argv[2]) if re.match(r"^ 65536 ", l)][0]
mib = tot["bytes_per_s"] / 2**20
assert abs(float(row[3]) - mib) <= 0.01 + 1e-6 * mib, (row, mib)
assert int(row[1]) == tot["ops"], (row, tot["ops"])
assert "bytes_per_s" in rep["units"] and "MiB" in rep["units"]["mbytes_per_s"]
PY
then
    pass "BW average[MiB/sec] = JSON bytes_per_s / 2^20; JSON names its units"
else
    fail "MiB/s against the JSON"
fi
if run gb 60 "${L[@]}" -- "${W[@]}" --mode bw -n 20000 --report_gbits &&
   grep -q "BW average\[Gb/sec\]" "$TMP/gb.out"; then
    pass "--report_gbits: Gb/sec columns"
else
    fail "--report_gbits: $(head -c 400 "$TMP/gb.out")"
fi
# -a: one row per size, not a knob dump and per-lcore rows
if run all 120 "${L[@]}" -- "${W[@]}" -a -n 200 && [ "$(grep -cE '^ [0-9]+ +200 ' "$TMP/all.out")" -eq 23 ] &&
   [ "$(wc -l <"$TMP/all.out")" -le 32 ]; then
    pass "-a: 23 rows in $(wc -l <"$TMP/all.out") lines"
else
    fail "-a: $(wc -l <"$TMP/all.out") lines"
fi

# --- --output=bandwidth|latency|message_rate: the figure alone, no file made
mkdir -p "$TMP/cwd"
( cd "$TMP/cwd" && timeout -k 5 60 "$PERFA" "${L[@]}" -- "${W[@]}" --mode bw -n 20000 --output=bandwidth ) \
    >"$TMP/ob.out" 2>"$TMP/ob.err"
orc=$?
if [ "$orc" -eq 0 ] && [ "$(wc -l <"$TMP/ob.out")" -eq 1 ] && grep -qE '^[0-9]+\.[0-9]{6}$' "$TMP/ob.out" &&
   [ -z "$(ls -A "$TMP/cwd")" ] && grep -q "SOFTWARE mlx5 device" "$TMP/ob.err"; then
    pass "--output=bandwidth: '$(cat "$TMP/ob.out")' alone, no file written, device kind on stderr"
else
    fail "--output=bandwidth: exit $orc, out '$(head -c 200 "$TMP/ob.out")', files: $(ls -A "$TMP/cwd")"
fi
if run ol 60 "${L[@]}" -- "${W[@]}" --sizes 2,8 -n 2000 --output=latency &&
   [ "$(grep -cE '^[0-9]+\.[0-9]{6}$' "$TMP/ol.out")" -eq 2 ] && [ "$(wc -l <"$TMP/ol.out")" -eq 2 ]; then
    pass "--output=latency: one figure per size ($(tr '\n' ' ' <"$TMP/ol.out"))"
else
    fail "--output=latency: $(head -c 200 "$TMP/ol.out")"
fi
if run om 60 "${L[@]}" -- "${W[@]}" --mode bw -n 20000 --output=message_rate &&
   grep -qE '^[0-9]+\.[0-9]{6}$' "$TMP/om.out" && [ "$(wc -l <"$TMP/om.out")" -eq 1 ]; then
    pass "--output=message_rate: $(cat "$TMP/om.out") Mpps"
else
    fail "--output=message_rate: $(head -c 200 "$TMP/om.out")"
fi
# the per-WR log keeps -o and gets its own long name
if run wl 60 "${L[@]}" -- "${W[@]}" -n 200 --wr-log "$TMP/wr.log" && grep -q "^# rdx-wrlog v1" "$TMP/wr.log"; then
    pass "--wr-log FILE: the per-WR log"
else
    fail "--wr-log"
fi

# --- --out_json (default file in the working directory) and --out_json_file
mkdir -p "$TMP/cwd2"
if ( cd "$TMP/cwd2" && timeout -k 5 60 "$PERFA" "${L[@]}" -- "${W[@]}" -n 500 --out_json ) >/dev/null 2>&1 &&
   python3 "$HERE/check_report.py" "$TMP/cwd2/rdx-perf.json" "$SCHEMA" --sw --runs 1 --ops-per-run 500; then
    pass "--out_json: rdx-perf.json written and valid"
else
    fail "--out_json: $(ls "$TMP/cwd2")"
fi

# --- -b: both ends of each pair post (one process); rows sum both ways
if run bidir 120 "${L[@]}" -- "${W[@]}" --mode bw -n 5000 -b --verify &&
   grep -qE "^ 65536 +10000 " "$TMP/bidir.out" && grep -q "every payload byte checked: OK" "$TMP/bidir.err"; then
    pass "-b: 2 x 5000 writes counted, --verify OK"
else
    fail "-b: $(head -c 400 "$TMP/bidir.out") $(tail -n 2 "$TMP/bidir.err")"
fi

# --- -F accepted and noted; -i 1 -x N accepted (the GID is unused on sw)
if run fx 60 "${L[@]}" -- "${W[@]}" -n 200 -F -i 1 -x 3 --verbose &&
   grep -q "cpu_freq .*-F given" "$TMP/fx.out" && grep -q "gid_index .*: 3 (the software device has no GID table" "$TMP/fx.out"; then
    pass "-F, -i 1, -x 3 accepted and printed"
else
    fail "-F/-i/-x: $(grep -E 'cpu_freq|gid' "$TMP/fx.out")"
fi

# --- perftest's flags rdx-perf does not implement: refused by name
# -R (rdma_cm, apps/rdx-perf/rdmacm.c) runs on the verbs driver, between two
# processes (tests/softroce/rdx_perf_rdmacm.sh drives it on soft-RoCE)
refused "-R one process"  "-R (rdma_cm) connects two processes" "${W[@]}" -R
refused "-R sw server"    "-R (rdma_cm) needs the verbs driver: device sw runs driver sw" "${W[@]}" -R --server -p 18911
refused "-R sw client"    "-R (rdma_cm) needs the verbs driver: device sw runs driver sw" "${W[@]}" -R 127.0.0.1 -p 18911
refused "-R -c UD"        "-R (rdma_cm) connects RC QPs" --test send --dev sw -R --server -c UD
refused "--source_ip w/o -R" "--source_ip applies to -R" "${W[@]}" --server --source_ip 127.0.0.1
refused "-C"              "perftest's -C/--report-cycles is not implemented" "${W[@]}" -C
refused "--rate_limit"    "perftest's --rate_limit is not implemented by rdx-perf: use --rate" "${W[@]}" --rate_limit=10
refused "-c XRC"          "perftest's UC, XRC, DC and SRD are not implemented" "${W[@]}" -c XRC
refused "-H"              "perftest's -H/--report-histogram is not implemented" "${W[@]}" -H
refused "--output=foo"    "expected bandwidth, latency or message_rate" "${W[@]}" --output=foo
refused "-b lat"          "-b applies to --mode bw" "${W[@]}" -b
refused "-b send"         "-b is implemented for --test write and read" --test send --mode bw --dev sw -b
# -b across two processes runs (tests/func/bidir.sh); over UD it does not
refused "-b two procs UD" "-b across two processes over --transport ud" --test send --mode bw --dev sw \
    -b --transport ud 127.0.0.1
refused "-i 2 on sw"      "the software device has one port" "${W[@]}" -i 2
refused "infinite -n"     "--run_infinitely prints a line every -D seconds" "${W[@]}" --run_infinitely -n 5
refused "--rate -Q 16"    "every WR is signaled (-Q 1)" "${W[@]}" --mode bw --rate 1000 -Q 16
refused "--rate-sweep down" "rates must increase" "${W[@]}" --rate-sweep 2K,1K
refused "--rate below 1/QP" "below 1 op/s for each of the 4 QPs" "${W[@]}" -q 4 --rate 2
if run ver 10 -V && grep -q "^rdx-perf [0-9]" "$TMP/ver.out"; then
    pass "-V: $(cat "$TMP/ver.out")"
else
    fail "-V"
fi

# --- the server: positional host and -p; HOST without :PORT; Ctrl-C; strays
port=$(free_port)
timeout -k 5 120 "$PERF" "${L[@]}" -- "${W[@]}" --server -p "$port" -n 500 --verify \
    >"$TMP/s1.out" 2>"$TMP/s1.err" &
spid=$!
wait_listen "$port"
timeout 20 python3 "$PEER" client "$port" garbage >/dev/null 2>&1
# past the 10 s the server used to give up after
sleep 11
alive=0; kill -0 "$spid" 2>/dev/null && alive=1
timeout -k 5 60 "$PERF" "${L[@]}" -- "${W[@]}" -n 500 --verify -p "$port" 127.0.0.1 \
    >"$TMP/c1.out" 2>"$TMP/c1.err"
crc=$?
wait "$spid"; src=$?
if [ "$alive" -eq 1 ] && [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] &&
   [ "$(grep -c "ignored a connection" "$TMP/s1.err")" -eq 1 ] &&
   grep -q "until Ctrl-C" "$TMP/s1.out" && grep -q "every payload byte checked: OK" "$TMP/c1.err"; then
    pass "server: a garbage connection (one line), still listening after 11 s, then the client '127.0.0.1 -p PORT' ran"
else
    fail "server: alive $alive client $crc server $src: $(tr '\n' '|' <"$TMP/s1.err" | head -c 300) / $(tail -n 1 "$TMP/c1.err")"
fi
port=$(free_port)
timeout -k 5 60 "$PERF" "${L[@]}" -- "${W[@]}" --server -p "$port" -n 300 >/dev/null 2>"$TMP/s2.err" &
spid=$!
wait_listen "$port"
if timeout -k 5 60 "$PERF" "${L[@]}" -- "${W[@]}" -n 300 -p "$port" --connect 127.0.0.1 >"$TMP/c2.out" 2>"$TMP/c2.err" &&
   wait "$spid" && grep -qE "^ 8 +300 " "$TMP/c2.out"; then
    pass "--connect HOST without :PORT takes -p"
else
    fail "--connect HOST -p: $(tail -n 1 "$TMP/c2.err") / $(tail -n 1 "$TMP/s2.err")"
fi
port=$(free_port)
"$PERF" "${L[@]}" -- "${W[@]}" --server -p "$port" >/dev/null 2>"$TMP/s3.err" &
spid=$!
wait_listen "$port"
sleep 0.5
kill -INT "$spid"
wait "$spid"; src=$?
if [ "$src" -eq 0 ] && [ "$(wc -l <"$TMP/s3.err")" -eq 1 ]; then
    pass "Ctrl-C ends a waiting server: exit 0, '$(cat "$TMP/s3.err")'"
else
    fail "Ctrl-C on a waiting server: exit $src: $(head -c 300 "$TMP/s3.err")"
fi

# --- --run_infinitely: a row every -D seconds until SIGINT
"$PERF" "${L[@]}" -- "${W[@]}" --mode bw --run_infinitely -D 0.3 >"$TMP/inf.out" 2>"$TMP/inf.err" &
ipid=$!
# SIGINT once three rows are out (start-up under ASan on a loaded machine
# can take seconds: wait for the rows, at most 60 s, not a fixed time)
for _ in $(seq 600); do
    [ "$(grep -cE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ " "$TMP/inf.out")" -ge 3 ] && break
    kill -0 "$ipid" 2>/dev/null || break
    sleep 0.1
done
kill -INT "$ipid"
wait "$ipid"; irc=$?
rows=$(grep -cE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ " "$TMP/inf.out")
if [ "$irc" -eq 0 ] && [ "$rows" -ge 3 ] && [ "$(grep -c "#bytes" "$TMP/inf.out")" -eq 1 ]; then
    pass "--run_infinitely -D 0.3: $rows rows before SIGINT, one header, exit 0 on SIGINT"
else
    fail "--run_infinitely: exit $irc, $rows rows: $(head -c 500 "$TMP/inf.out")"
fi

# ... and against a server: the client's Ctrl-C ends it with its rows, exit 0;
# the server ends with at most one line (exit 1 only when the client left
# while the server acknowledged a run)
port=$(free_port)
timeout -k 5 60 "$PERF" "${L[@]}" -- "${W[@]}" --mode bw --server -p "$port" >/dev/null 2>"$TMP/is.err" &
spid=$!
wait_listen "$port"
"$PERF" --no-huge -l 1 -- "${W[@]}" --mode bw --run_infinitely -D 0.3 -p "$port" 127.0.0.1 \
    >"$TMP/ic.out" 2>"$TMP/ic.err" &
cpid=$!
for _ in $(seq 600); do
    [ "$(grep -cE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ " "$TMP/ic.out")" -ge 2 ] && break
    kill -0 "$cpid" 2>/dev/null || break
    sleep 0.1
done
kill -INT "$cpid"
wait "$cpid"; crc=$?
wait "$spid"; src=$?
rows=$(grep -cE "^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+ " "$TMP/ic.out")
if [ "$crc" -eq 0 ] && [ "$rows" -ge 2 ] && [ ! -s "$TMP/ic.err" ] && [ "$(wc -l <"$TMP/is.err")" -le 1 ] &&
   { [ "$src" -eq 0 ] || grep -q "the client left before the end of the run was acknowledged" "$TMP/is.err"; }; then
    pass "--run_infinitely against a server: $rows rows, client exit 0 on SIGINT, server exit $src"
else
    fail "--run_infinitely two processes: client $crc ($rows rows) server $src: $(cat "$TMP/ic.err" "$TMP/is.err" | head -c 400)"
fi

# --- open loop: --rate holds the offered rate; --rate-sweep rows in JSON
# (64 B and 5K ops/s: well under what even the ASan build sustains)
if run rate 60 "${L[@]}" -- "${W[@]}" --mode bw -s 64 --rate 5K -D 0.5 --json "$TMP/rate.json" &&
   python3 - "$TMP/rate.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
tot = [r for r in rep["results"] if r["lcore"] == -1][0]
assert tot["offered_ops_per_s"] == 5000, tot
achieved = tot["ops"] / tot["seconds"]
# the schedule: one op every 200 us, never earlier; every op intended
# before the deadline is sent, the later ones are not
assert tot["ops"] in (2500, 2501), tot["ops"]
assert 0.9 * 5000 <= achieved <= 1.02 * 5000, achieved
assert rep["knobs"]["rate_ops_per_s"] == "5000"
print("achieved %.0f ops/s" % achieved)
PY
then
    pass "--rate 5K -D 0.5: the 2500(+1) intended ops, achieved within -10%/+2%, offered_ops_per_s in JSON"
else
    fail "--rate 5K: $(head -c 600 "$TMP/rate.out")"
fi
if run sweep 120 "${L[@]}" -- "${W[@]}" --mode bw -s 64 --rate-sweep 1K,2K,4K -D 0.3 --json "$TMP/sweep.json" &&
   grep -q "offered\[ops/s\]  MsgRate\[Mpps\]" "$TMP/sweep.out" &&
   grep -q "from each op's intended send time (open loop)" "$TMP/sweep.out" &&
   python3 - "$TMP/sweep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
tot = [r for r in rep["results"] if r["lcore"] == -1]
assert [r["offered_ops_per_s"] for r in tot] == [1000, 2000, 4000], tot
assert all(r["has_lat"] and r["lat"]["p99"] > 0 for r in tot)
PY
then
    pass "--rate-sweep: one row per offered rate (table and JSON)"
else
    fail "--rate-sweep: $(head -c 600 "$TMP/sweep.out")"
fi
finish
