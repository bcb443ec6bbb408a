#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The KV example with --boot mpi (lib/boot's mpi provider) under mpirun on
# the software device: rank 0 kv_server, the other ranks kv_client, one
# MPMD command line. --check over infrc (PUT then GET returns the bytes);
# a load from two client ranks over basic+infud (every GET's bytes
# checked, the server's counts are both clients'; no -l, each rank's CPU
# and EAL file prefix from lib/boot's rdx_boot_eal_args); a client rank whose
# session does not match the server's (another transport): every rank
# ends non-zero, each saying its session cannot connect; a kv option
# refused after MPI started (on the client ranks, on the server): the
# whole job ends non-zero well before the bootstrap's 30 s timeout, the
# refusal printed once; --boot bogus: one line, exit 2. Skipped (77) only
# when mpirun is absent.
# Usage: kv_mpi.sh PATH/TO/kv_server (kv_client next to it)
# the skip, Open MPI's environment and the mpirun line: mpi_lib.sh
source "$(dirname "$0")/mpi_lib.sh"
KVS=$PERF
KVC=$(dirname "$KVS")/kv_client
[ -x "$KVC" ] || { echo "no kv_client next to $KVS" >&2; exit 1; }

# kvrun NAME NCLIENTS SERVER-ARGS... -- CLIENT-ARGS... (EAL: $EAL_S, $EAL_C)
EAL_S=(-l 0) EAL_C=(-l 1)
kvrun() {
    local name=$1 nc=$2; shift 2
    local sargs=()
    while [ "$1" != "--" ]; do sargs+=("$1"); shift; done
    shift
    timeout -k 5 120 "${MPI[@]}" -np 1 "$KVS" --no-huge "${EAL_S[@]}" -- --dev sw --boot mpi "${sargs[@]}" \
        : -np "$nc" "$KVC" --no-huge "${EAL_C[@]}" -- --dev sw --boot mpi "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}

kvrun check 1 --transport infrc -- --transport infrc --check
rc=$?
if [ $rc -eq 0 ] && grep -q "PUT then GET key-7: the 1000 bytes came back" "$TMP/check.out" &&
   grep -q "DELETE then GET key-7: miss" "$TMP/check.out" && grep -q "check OK" "$TMP/check.out" &&
   grep -q "^kv_server: infrc on sw, serving 1 client rank(s) through MPI" "$TMP/check.out" &&
   grep -q "^kv_server: done: 3 GET (2 hits), 2 PUT, 2 DELETE, 0 bad" "$TMP/check.out"; then
    pass "infrc --check through MPI: PUT then GET returns the bytes, the server done"
else
    fail "infrc --check: exit $rc: $(tr '\n' '|' <"$TMP/check.out") $(tail -n 3 "$TMP/check.err" | tr '\n' '|')"
fi

# no -l: each rank's CPU from lib/boot (rdx_boot_eal_args), a file prefix each
EAL_S=(--file-prefix kvmpi) EAL_C=(--file-prefix kvmpi)
kvrun load 2 --transport basic+infud -- --transport basic+infud -n 300 --keys 30 --value-size 256
rc=$?
EAL_S=(-l 0) EAL_C=(-l 1)
if [ $rc -eq 0 ] && [ "$(grep -c "^kv_client: 300 ops.*misses 0, errors 0, bad values 0" "$TMP/load.out")" -eq 2 ] &&
   grep -q "serving 2 client rank(s) through MPI" "$TMP/load.out" &&
   grep -q "^kv_server: done: .*, 0 bad, 30 keys stored" "$TMP/load.out"; then
    pass "basic+infud load from 2 client ranks: $(grep '^kv_server: done' "$TMP/load.out")"
else
    fail "load: exit $rc: $(tr '\n' '|' <"$TMP/load.out") $(tail -n 3 "$TMP/load.err" | tr '\n' '|')"
fi

kvrun mismatch 1 --transport infrc -- --transport basic+infud --check
rc=$?
if [ $rc -ne 0 ] && grep -q "kv_server: rank 0: cannot connect session 0" "$TMP/mismatch.err" &&
   grep -q "kv_client: rank 1: cannot connect session 0" "$TMP/mismatch.err" &&
   ! grep -q "check OK" "$TMP/mismatch.out"; then
    pass "sessions of two transports: both ranks say so, exit $rc"
else
    fail "mismatch: exit $rc: $(tr '\n' '|' <"$TMP/mismatch.out") $(tail -n 3 "$TMP/mismatch.err" | tr '\n' '|')"
fi

# kvbad NAME NCLIENTS SERVER-ARGS... -- CLIENT-ARGS...: kvrun, RC and TOOK
kvbad() {
    local t0=$SECONDS
    kvrun "$@"
    RC=$?
    TOOK=$((SECONDS - t0))
}
# expect_refused NAME WHAT LINE: exit non-zero in less than the bootstrap's
# 30 s (no rank waited for it), LINE on stderr exactly once, no rank aborted
expect_refused() {
    local name=$1 what=$2 line=$3 n
    n=$(grep -cF -- "$line" "$TMP/$name.err")
    if [ "$RC" -ne 0 ] && [ "$TOOK" -lt 20 ] && [ "$n" -eq 1 ] &&
       ! grep -q "aborting every rank" "$TMP/$name.err" && ! grep -q "kv_server: done" "$TMP/$name.out"; then
        pass "$what: the job exits $RC in ${TOOK} s, '$line' once"
    else
        fail "$what: exit $RC after ${TOOK} s, $n x '$line': $(grep -v '^EAL' "$TMP/$name.err" | head -n 4 | tr '\n' '|')"
    fi
}
EAL_S=(--file-prefix kvbad) EAL_C=(--file-prefix kvbad)
kvbad badcli 2 --transport infrc -- --transport infrc --keys 0
EAL_S=(-l 0) EAL_C=(-l 1)
expect_refused badcli "--keys 0 on both client ranks" "kv_client: bad --keys"
kvbad badsrv 1 --transport infrc --capacity 0 -- --transport infrc --check
expect_refused badsrv "--capacity 0 on the server rank" "kv_server: bad --capacity"

timeout -k 5 30 "$KVS" --no-huge -l 0 -- --dev sw --boot bogus >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q "bad --boot" "$TMP/bad.err"; then
    pass "--boot bogus: one line, exit 2"
else
    fail "--boot bogus: exit $rc: $(tr '\n' '|' <"$TMP/bad.err")"
fi
finish
