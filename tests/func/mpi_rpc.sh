#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lib/rpc's benchmarks under mpirun, --pattern clusterperf (doc/rpc.md):
# 4 ranks on the software device, ranks 0..1 serve (--servers 2), ranks 2..3
# call (2 clients each, one per server). echo (100 B) and basic.read
# and basic.write (100 KB) on infrc, basic+infud and homa+infud, with
# --verify: exit 0, rank
# 0's report has one
# row per client rank and a total that sums them, the clusterperf section
# (names, servers/clients header), the cluster calls count (2 ranks x 2
# clients x -n) and --verify over 4 ranks; bad input (an rpc transport is
# needed, a client rank is needed: exit 2); SIGINT to a client rank mid-run
# (every rank names it, the report says interrupted, exit 130).
# Skipped (77) only when mpirun is absent.
# the skip, Open MPI's environment and the mpirun line: mpi_lib.sh
source "$(dirname "$0")/mpi_lib.sh"
MPI+=(-np 4)
export RDX_MPI_TEST_TAG=none

# mrun NAME TIMEOUT APP-ARGS...: RC is mpirun's exit
mrun() {
    local name=$1 t=$2; shift 2
    timeout -k 5 "$t" "${MPI[@]}" "$PERF" --no-huge -- --dev sw --pattern clusterperf "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
    RC=$?
    return "$RC"
}

N=50
for tr in infrc basic+infud homa+infud; do
    for t in echo basic.read basic.write; do
        name="$t.${tr//+/_}"
        # basic.read: 100-KB objects, a table of 167 for the clients to fill
        # first (of 100-B objects it holds 2000: 20 s at these latencies)
        if [ "$t" = echo ]; then sz=100 b=100; else sz=100K b=102400; fi
        mrun "$name" 90 --test "$t" --transport "$tr" --servers 2 --clusterperf --verify \
            -n "$N" -s "$sz"
        out=$TMP/$name.out err=$TMP/$name.err
        if [ "$t" = echo ]; then lat=echo$sz bw=echoBw$sz; else lat=$t$sz bw=${t}Bw$sz; fi
        names=$(sed -n "/^$tr\$/,/^status:/p" "$out" | awk '{print $1}' | tr '\n' ' ')
        want="$tr concurrentOps # $lat $lat.min $lat.9 $lat.99 $lat.999 $bw $lat.9999 $lat.max status: "
        rows=$(grep -cE "^ $t +lat +$b +[23]\.0 +2 +$((2 * N)) " "$out")
        if [ "$RC" -eq 0 ] && [ "$names" = "$want" ] &&
           grep -qx "concurrentOps 1 servers 2" "$out" &&
           grep -q "^# mpirun: 2 server rank(s), 2 client rank(s), 4 clients" "$out" &&
           [ "$rows" -eq 2 ] && grep -qE "^ $t +lat +$b +total +4 +$((4 * N)) " "$out" &&
           grep -q "cluster clusterperf $t size $sz: 2 client rank(s) x 2 clients, 2 server rank(s), $((4 * N)) calls" "$err" &&
           grep -q "rdx-perf: --verify over 4 ranks: 0 errors: OK" "$err" &&
           grep -qx "status: completed" "$out"; then
            pass "mpirun --pattern clusterperf $t over $tr: 2 servers x 2 client ranks, --verify OK"
        else
            fail "mpirun --pattern clusterperf $t over $tr: exit $RC, lines '$names', $rows rows: $(grep rdx-perf "$err" | tail -n 3)"
        fi
    done
done

# bad input: exit 2, a line naming the cause on every rank
mrun badtr 60 --test echo --transport rc -n 10
n=$(grep -c "pattern clusterperf runs lib/rpc: --transport infrc, basic+infud or homa+infud, not rc" "$TMP/badtr.err")
if [ "$RC" -eq 2 ] && [ "$n" -ge 1 ]; then
    pass "mpirun --pattern clusterperf --transport rc: exit 2, refused"
else
    fail "mpirun --pattern clusterperf --transport rc: exit $RC, $n lines: $(grep rdx-perf "$TMP/badtr.err" | head -n 2)"
fi
mrun badsrv 60 --test echo --transport infrc --servers 4 -n 10
if [ "$RC" -eq 2 ] && grep -q "servers 4 needs at least one client rank: mpirun started 4 ranks" "$TMP/badsrv.err"; then
    pass "mpirun --pattern clusterperf --servers 4 of 4 ranks: exit 2, refused"
else
    fail "mpirun --pattern clusterperf --servers 4: exit $RC: $(grep rdx-perf "$TMP/badsrv.err" | head -n 2)"
fi

# SIGINT to client rank 2 1 s into a run of 600 calls per client (a
# count: a duration's end would start the servers' clock before the
# clients' fixed warm-up is over): every rank names it, rank 0's report has
# the run (cut short) and says interrupted, the job exits 130
RDX_MPI_TEST_TAG=$$.int mrun int 90 --test echo --transport basic+infud --servers 2 -n 600 \
    -s 100 --bootstrap-timeout 20 &
job=$!
pid=""
for _ in $(seq 1 100); do
    sleep 0.2
    grep -q "connected through MPI" "$TMP/int.out" 2>/dev/null && pid=$(rank_pid "$$.int" 2) && break
done
sleep 1
[ -n "$pid" ] && kill -INT "$pid"
wait $job
rc=$?
named=$(grep -cE "rank [0-9]: (rank 2 \(.*\) was interrupted|interrupted) \(SIGINT/SIGTERM\) in run 1" "$TMP/int.err")
if [ -n "$pid" ] && [ "$rc" -eq 130 ] && [ "$named" -eq 4 ] && ! grep -q "MPI_ABORT" "$TMP/int.err" &&
   grep -q "cluster clusterperf echo size 100: 2 client rank(s)" "$TMP/int.err" &&
   grep -q "^status: interrupted" "$TMP/int.out"; then
    pass "mpirun --pattern clusterperf: SIGINT to rank 2 mid-run: every rank names it, report interrupted, exit 130"
else
    fail "mpirun --pattern clusterperf: SIGINT to rank 2 (pid ${pid:-none}): exit $rc, $named/4 lines: $(grep rdx-perf "$TMP/int.err" | head -n 4) / $(grep status "$TMP/int.out")"
fi

finish
