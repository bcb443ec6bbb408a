#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf --pattern when the ranks do not agree (doc/cluster.md, Faults):
# MPMD command lines (mpirun -np A ... : -np B ...) whose parts differ. A
# rank whose arguments are refused, whose device does not open or whose
# options differ from the others' must end the whole job quickly with exit
# 2 (bad input), the reason once and a line on every other rank; a rank interrupted by SIGINT ends
# the job after the run with a line on every rank naming it (exit non-zero,
# never an innocent rank named by the bootstrap timeout).
# Skipped (77) only when mpirun is absent.
# the skip, Open MPI's environment and the mpirun line: mpi_lib.sh
source "$(dirname "$0")/mpi_lib.sh"
APP=("$PERF" --no-huge -- --dev sw)
# the good ranks: a short pairs write with a 3 s bootstrap timeout
GOOD=(--test write --mode bw -s 4K -n 1000 --pattern pairs --bootstrap-timeout 3)

# mpmd NAME LIMIT [-np A APP-ARGS... : -np B APP-ARGS...]: each part is
# rdx-perf on the software device; the job gets LIMIT seconds
mpmd() {
    local name=$1 lim=$2; shift 2
    local args=() part=()
    for x in "$@"; do
        if [ "$x" = ":" ]; then args+=("${part[@]}" ":"); part=(); continue; fi
        part+=("$x")
    done
    args+=("${part[@]}")
    local t0=$SECONDS
    timeout -k 5 "$lim" "${MPI[@]}" "${args[@]}" >"$TMP/$name.out" 2>"$TMP/$name.err"
    RC=$?
    TOOK=$((SECONDS - t0))
}

# expect NAME WHAT LINE-REGEX COUNT OTHERS-REGEX OTHERS-COUNT: exit 2 within
# 20 s, COUNT lines matching LINE-REGEX and OTHERS-COUNT lines naming the rank
expect2() {
    local name=$1 what=$2 re=$3 n=$4 ore=$5 on=$6 got ogot
    got=$(grep -cE -- "$re" "$TMP/$name.err")
    ogot=$(grep -cE -- "$ore" "$TMP/$name.err")
    if [ "$RC" -eq 2 ] && [ "$TOOK" -lt 20 ] && [ "$got" -eq "$n" ] && [ "$ogot" -eq "$on" ]; then
        pass "mpirun MPMD: $what: exit 2 in ${TOOK} s, the reason and $on line(s) naming the rank"
    else
        fail "mpirun MPMD: $what: exit $RC after ${TOOK} s, $got/$n '$re', $ogot/$on '$ore': $(grep -v '^EAL' "$TMP/$name.err" | head -n 4)"
    fi
}

# a bad option on one rank only: it used to wait in a barrier while the
# others waited in MPI_Comm_split_type: every rank hung for ever
for who in first last; do
    if [ $who = first ]; then
        mpmd bad_$who 60 -np 1 "${APP[@]}" --test bogus --pattern pairs : -np 3 "${APP[@]}" "${GOOD[@]}"
        r=0
    else
        mpmd bad_$who 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "${APP[@]}" --test bogus --pattern pairs
        r=3
    fi
    expect2 bad_$who "a bad --test on rank $r only" "bad value 'bogus' for --test" 1 \
        "rank [0-9]: rank $r left with an error" 3
done

# one rank's device does not open: the others named it only after the
# bootstrap timeout ("did not make its QPs"), exit 1
for r in 0 3; do
    if [ $r = 0 ]; then
        mpmd nodev$r 60 -np 1 "$PERF" --no-huge -- --dev bogus0 "${GOOD[@]}" : -np 3 "${APP[@]}" "${GOOD[@]}"
    else
        mpmd nodev$r 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "$PERF" --no-huge -- --dev bogus0 "${GOOD[@]}"
    fi
    expect2 nodev$r "no device on rank $r" "no RDMA device found" 1 \
        "rank [0-9]: rank $r \([^)]*\) left with an error while this rank waited" 3
done

# --server on one rank: refused there only; the others timed out on it
mpmd server1 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "${APP[@]}" "${GOOD[@]}" --server
expect2 server1 "--server on rank 3 only" "rank 3: --pattern replaces --server" 1 \
    "rank [0-9]: rank 3 \([^)]*\) failed to accept its options" 3

# options that differ between ranks: a write client against read servers
# failed with a remote access error (exit 1); other sizes or patterns ran
# or hung on mismatched collectives. Every rank finds the same difference:
# one line for the job (it was one per rank)
mpmd difftest 60 -np 2 "${APP[@]}" "${GOOD[@]}" : -np 2 "${APP[@]}" "${GOOD[@]/write/read}"
expect2 difftest "--test write on ranks 0-1, read on 2-3" "ranks differ in --test: rank 0 and rank 2" 1 "its output says why" 0
mpmd diffsize 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "${APP[@]}" "${GOOD[@]/4K/64K}"
expect2 diffsize "-s 4K on ranks 0-2, 64K on 3" "ranks differ in -s: rank 0 and rank 3" 1 "its output says why" 0
mpmd diffflows 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "${APP[@]}" "${GOOD[@]}" --flows-start together
expect2 diffflows "--flows-start on rank 3 only" "ranks differ in --flows-start: rank 0 and rank 3" 1 "its output says why" 0
mpmd diffpat 60 -np 3 "${APP[@]}" "${GOOD[@]}" : -np 1 "${APP[@]}" "${GOOD[@]/pairs/incast}"
expect2 diffpat "--pattern incast on rank 3 only" "ranks differ in --pattern: rank 0 and rank 3" 1 "its output says why" 0

# an rpc transport: each rank ran its own loopback rpc echo, exit 0
mpmd rpc 60 -np 4 "${APP[@]}" --test echo -n 100 --transport infrc --pattern pairs
expect2 rpc "--transport infrc" "--pattern runs raw QPs: --transport rc or ud, not infrc" 1 "its output says why" 0

# SIGINT to client rank 2 of incast 1 s into a 5 s run: rank 0 started the
# end-of-run clock from rank 2's early end and, 3 s later, named rank 1
# (still running its -D 5) and aborted the job
RDX_MPI_TEST_TAG=$$.int timeout -k 5 60 "${MPI[@]}" -np 4 "${APP[@]}" --test write --mode bw \
    -s 4K -D 5 --pattern incast --bootstrap-timeout 3 >"$TMP/int.out" 2>"$TMP/int.err" &
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
if [ -n "$pid" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$named" -eq 4 ] &&
   ! grep -q "did not end run" "$TMP/int.err" && ! grep -q "MPI_ABORT" "$TMP/int.err" &&
   grep -q "cluster incast write bw size 4K: 3 client row" "$TMP/int.err"; then
    pass "mpirun: SIGINT to rank 2 mid-run: every rank names it, the run is reported, exit $rc"
else
    fail "mpirun: SIGINT to rank 2 (pid ${pid:-none}): exit $rc, $named/4 lines naming it: $(grep -v '^EAL' "$TMP/int.err" | grep rdx | head -n 4)"
fi

finish
