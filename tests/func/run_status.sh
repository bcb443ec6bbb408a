#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every rdx-perf report says whether the run completed (doc/apps.md
# "Reports"): SIGINT mid-run is "interrupted" with the seconds measured,
# exit 130, the cut row marked CUT and the sizes never started listed as
# not run; a client whose server is killed mid-run is "failed" with the
# reason, exit 1; the cluster report of --pattern says which rank was
# interrupted; rdx-plot notes an interrupted report; a --json file that
# cannot be written is one line with strerror, exit 1; a normal run is
# "completed".
source "$(dirname "$0")/lib.sh"

# sig_after NAME SECONDS ARGS...: rdx-perf in the background, SIGINT to it
# SECONDS after its handler is installed (SigCgt has SIGINT); exit code in
# IRC. Not under timeout(1), which would forward the signal to the process
# group: a watchdog kills it after 60 s instead.
sig_after() {
    local name=$1 after=$2; shift 2
    "$PERF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    local pid=$! cgt
    ( sleep 60; kill -9 "$pid" 2>/dev/null ) &
    local dog=$!
    for _ in $(seq 100); do
        cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ $(( 0x${cgt:-0} & 2 )) -ne 0 ] && break
        sleep 0.1
    done
    sleep "$after"
    kill -INT "$pid"
    wait "$pid"
    IRC=$?
    kill "$dog" 2>/dev/null
    wait "$dog" 2>/dev/null
}

# json_check FILE PYTHON-EXPR: the report (as r) holds EXPR; prints why not
json_check() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
tot = [x for x in r["results"] if x["lcore"] == -1]
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print("status %r reason %r measured_s %r not_run %r totals %r" % (
        r.get("status"), r.get("status_reason"), r.get("measured_s"), r.get("not_run"),
        [(x["size"], x["seconds"], x.get("cut_short")) for x in tot]))
sys.exit(0 if ok else 1)
EOF
}

# --- SIGINT 2 s into the first of three 10 s runs
sig_after int 2 "${EAL[@]}" -- --test write --mode bw -D 10 --sizes 64,4K,64K --dev sw \
    --clusterperf --json "$TMP/int.json" --csv "$TMP/int.csv"
if [ "$IRC" -eq 130 ]; then
    pass "SIGINT mid-run: exit 130 (documented: interrupted)"
else
    fail "SIGINT mid-run: exit $IRC, expected 130: $(grep rdx-perf "$TMP/int.err" | tail -n 2)"
fi
if grep -qE "^ status: interrupted: SIGINT/SIGTERM; [0-9.]+ s measured$" "$TMP/int.out" &&
   grep -qE "^status: interrupted: SIGINT/SIGTERM; [0-9.]+ s measured$" "$TMP/int.out" &&
   grep -qE "^ 64 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +CUT$" "$TMP/int.out" &&
   grep -qE "^ not run: .*size 4096 B.*size 65536 B" "$TMP/int.out"; then
    pass "SIGINT: the table and clusterperf lines say interrupted, the 64 B row is CUT, 4K and 64K not run"
else
    fail "SIGINT: table/clusterperf: $(grep -E 'status|CUT|not run|^ 64 ' "$TMP/int.out" | head -n 6)"
fi
# measured: about the 2 s before the signal, far from the 10 s asked
if python3 "$SRC/tests/func/check_report.py" "$TMP/int.json" "$SCHEMA" --sw >"$TMP/int.chk" &&
   json_check "$TMP/int.json" 'r["status"] == "interrupted" and r["status_reason"] == "SIGINT/SIGTERM"
        and 1.0 < r["measured_s"] < 9.0 and len(tot) == 1 and tot[0]["size"] == 64
        and tot[0]["cut_short"] and abs(tot[0]["seconds"] - r["measured_s"]) < 1e-6
        and [(n["size"], n["qps"]) for n in r["not_run"]] == [(4096, 1), (65536, 1)]' >>"$TMP/int.chk"; then
    pass "SIGINT: JSON status interrupted, $(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["measured_s"])' "$TMP/int.json") s measured, the row cut_short, 4K and 64K in not_run"
else
    fail "SIGINT: JSON: $(cat "$TMP/int.chk")"
fi
if grep -qE "^write,bw,write64,[^,]*,completion,64,total,.*,cut_short,interrupted,SIGINT/SIGTERM," "$TMP/int.csv" &&
   grep -qE "^write,bw,,,,65536,total,1,.*,not_run,interrupted,SIGINT/SIGTERM," "$TMP/int.csv"; then
    pass "SIGINT: CSV rows say cut_short / not_run and interrupted"
else
    fail "SIGINT: CSV: $(cut -d, -f1-8,35-37 "$TMP/int.csv")"
fi

# rdx-plot notes it under its figures and in the PNG's "rdx-notes" key
PLOT=$(cd "$(dirname "$PERF")/../rdx-plot" && pwd)/rdx-plot
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if "$PY" -c "import matplotlib" 2>/dev/null; then
    mkdir -p "$TMP/plot"
    if "$PLOT" --kind bw-size -o "$TMP/plot" "$TMP/int.json" >"$TMP/plot.out" 2>&1 &&
       python3 - "$TMP/plot/bw_size_write_bw.png" >"$TMP/plot.chk" 2>&1 <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
i, text = 8, {}
while i + 8 <= len(d):
    n, t = struct.unpack(">I", d[i:i + 4])[0], d[i + 4:i + 8]
    if t == b"tEXt":
        k, v = d[i + 8:i + 8 + n].split(b"\0", 1)
        text[k.decode("latin-1")] = v.decode("latin-1")
    i += 12 + n
note = text.get("rdx-notes", "")
print(note)
sys.exit(0 if "interrupted (SIGINT/SIGTERM): 1 row(s) cut short, 2 run(s) not run" in note else 1)
EOF
    then
        pass "rdx-plot notes the interrupted report: $(cat "$TMP/plot.chk")"
    else
        fail "rdx-plot: $(cat "$TMP/plot.out" "$TMP/plot.chk" 2>/dev/null | head -n 3; ls "$TMP/plot")"
    fi
else
    echo "skip rdx-plot: matplotlib is missing for $PY"
fi

# --- a server killed (SIGKILL) 2 s into the client's 10 s run
port=$(free_port)
"$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --test write --mode bw -D 10 --sizes 64,4K \
    >"$TMP/ks.s.out" 2>"$TMP/ks.s.err" &
spid=$!
sleep 0.5
timeout -k 5 60 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw --test write \
    --mode bw -D 10 --sizes 64,4K --json "$TMP/ks.json" >"$TMP/ks.c.out" 2>"$TMP/ks.c.err" &
cpid=$!
sleep 2.5
kill -9 "$spid"
wait "$cpid"
krc=$?
{ wait "$spid"; } 2>/dev/null
if [ "$krc" -ne 0 ] && [ "$krc" -ne 124 ] && [ "$krc" -ne 130 ] &&
   grep -qE "^ status: failed: .*peer.*; [0-9.]+ s measured$" "$TMP/ks.c.out" &&
   json_check "$TMP/ks.json" 'r["status"] == "failed" and "peer" in r["status_reason"]
        and tot[-1]["cut_short"] and [n["size"] for n in r["not_run"]] == [4096]' >"$TMP/ks.chk"; then
    pass "server killed mid-run: client exit $krc, table and JSON say failed: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status_reason"])' "$TMP/ks.json")"
else
    fail "server killed mid-run: client exit $krc: $(cat "$TMP/ks.chk" 2>/dev/null) $(grep -E 'status|rdx-perf' "$TMP/ks.c.out" "$TMP/ks.c.err" | head -n 4)"
fi

# --- --pattern under mpirun: SIGINT to client rank 2 of incast 1 s into the
# first of two 5 s runs: rank 0's cluster report says interrupted, naming
# rank 2, the 4K row CUT, 64K not run; exit 130
if command -v mpirun >/dev/null 2>&1 && ! "$PERF" --help | grep -q "not in this build: no MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Open MPI's own allocations are still live at exit (as in mpi.sh): under
    # ASan, LeakSanitizer would report them and take the ranks' exit past
    # the limit
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    RDX_MPI_TEST_TAG=$$.rs timeout -k 5 60 mpirun --oversubscribe --mca btl self,vader -np 4 \
        "$PERF" --no-huge -- --dev sw --test write --mode bw --sizes 4K,64K -D 5 --pattern incast \
        --bootstrap-timeout 3 --json "$TMP/mpi.json" >"$TMP/mpi.out" 2>"$TMP/mpi.err" &
    job=$!
    pid=""
    for _ in $(seq 1 100); do
        sleep 0.2
        grep -q "connected through MPI" "$TMP/mpi.out" 2>/dev/null && pid=$(rank_pid "$$.rs" 2) && break
    done
    sleep 1
    [ -n "$pid" ] && kill -INT "$pid"
    wait $job
    mrc=$?
    if [ -n "$pid" ] && [ "$mrc" -eq 130 ] &&
       grep -qE "^ status: interrupted: SIGINT/SIGTERM on rank 2 \(.*\) in run 1; [0-9.]+ s measured$" "$TMP/mpi.out" &&
       grep -qE "^ 4096 +[0-9]+ +(-|[0-9.]+) +[0-9.]+ +[0-9.]+ +CUT$" "$TMP/mpi.out" &&
       json_check "$TMP/mpi.json" 'r["status"] == "interrupted" and "rank 2" in r["status_reason"]
            and all(x["cut_short"] for x in r["results"]) and [n["size"] for n in r["not_run"]] == [65536]' >"$TMP/mpi.chk"; then
        pass "mpirun: SIGINT to rank 2: exit 130, the cluster report says interrupted on rank 2, 4K CUT, 64K not run"
    else
        fail "mpirun: SIGINT to rank 2 (pid ${pid:-none}): exit $mrc: $(cat "$TMP/mpi.chk" 2>/dev/null) $(grep -E 'status|CUT|not run' "$TMP/mpi.out")"
    fi
else
    echo "skip --pattern: no mpirun or no MPI in this build"
fi

# --- --json /dev/full: one line with strerror, exit 1
run full 60 "${EAL[@]}" -- --test write --mode bw -n 2000 --dev sw --json /dev/full
frc=$?
if [ "$frc" -eq 1 ] && [ "$(grep -c '^rdx-perf:' "$TMP/full.err")" -eq 1 ] &&
   grep -qx "rdx-perf: cannot write /dev/full: No space left on device" "$TMP/full.err"; then
    pass "--json /dev/full: exit 1, '$(grep '^rdx-perf:' "$TMP/full.err")'"
else
    fail "--json /dev/full: exit $frc: $(grep -v '^EAL' "$TMP/full.err" | head -n 3)"
fi
run fullcsv 60 "${EAL[@]}" -- --test write --mode bw -n 2000 --dev sw --csv /dev/full
frc=$?
if [ "$frc" -eq 1 ] && grep -qx "rdx-perf: cannot write /dev/full: No space left on device" "$TMP/fullcsv.err"; then
    pass "--csv /dev/full: exit 1 with strerror"
else
    fail "--csv /dev/full: exit $frc: $(grep -v '^EAL' "$TMP/fullcsv.err" | head -n 3)"
fi

# --- a normal run: completed, nothing cut, nothing left out
run ok 60 "${EAL[@]}" -- --test write --mode bw -n 2000 --sizes 64,4K --dev sw --clusterperf \
    --json "$TMP/ok.json"
orc=$?
if [ "$orc" -eq 0 ] && grep -qx " status: completed" "$TMP/ok.out" &&
   grep -qx "status: completed" "$TMP/ok.out" && ! grep -qE "CUT|not run" "$TMP/ok.out" &&
   python3 "$SRC/tests/func/check_report.py" "$TMP/ok.json" "$SCHEMA" --sw --runs 2 >"$TMP/ok.chk" &&
   json_check "$TMP/ok.json" 'r["status"] == "completed" and "status_reason" not in r
        and r["not_run"] == [] and not any(x["cut_short"] for x in r["results"])
        and abs(r["measured_s"] - sum(x["seconds"] for x in tot)) < 1e-6' >>"$TMP/ok.chk"; then
    pass "normal run: exit 0, table, clusterperf and JSON say completed"
else
    fail "normal run: exit $orc: $(cat "$TMP/ok.chk") $(grep status "$TMP/ok.out")"
fi
finish
