# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers of the rdx-perf end-to-end tests (sourced).
# Usage of every script: <script> PATH/TO/rdx-perf
set -u
PERF=${1:-${RDX_PERF:-}}
if [ -z "$PERF" ] || [ ! -x "$PERF" ]; then
    echo "usage: $0 PATH/TO/rdx-perf (or set RDX_PERF)" >&2
    exit 1
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
SCHEMA=$SRC/lib/stats/rdx-report.schema.json
TMP=$(mktemp -d /tmp/rdx-func.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# Quiet EAL: no hugepage notice (we ask for --no-huge ourselves).
EAL=(--no-huge -l 0-1)
FAILS=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
finish() {
    if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed"; exit 1; fi
    echo "all checks passed"; exit 0
}
# want REGEX WHAT: a line of $TMP/out matches REGEX (grep -E), else the
# check fails and $TMP/out is shown (the tests of the analysis scripts)
want() {
    if grep -Eq -- "$1" "$TMP/out"; then pass "$2"; else fail "$2: no line matching '$1' in:"; cat "$TMP/out"; fi
}
# run NAME TIMEOUT ARGS...: run rdx-perf, keep stdout/stderr in $TMP/NAME.{out,err}
run() {
    local name=$1 t=$2; shift 2
    timeout -k 5 "$t" "$PERF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# pair_split NAME SERVER_ARGS... :: CLIENT_ARGS...: a --server on lcore 0 and
# a --connect client on lcore 1, both on the software device, each bounded by
# PAIR_TIMEOUT seconds (60 unless set); outputs in $TMP/NAME.{s,c}.{out,err},
# exit codes in CRC (client) and SRC_RC (server)
pair_split() {
    local name=$1; shift
    local sargs=() cargs=() side=s t=${PAIR_TIMEOUT:-60}
    for x in "$@"; do
        if [ "$x" = "::" ]; then side=c; continue; fi
        if [ $side = s ]; then sargs+=("$x"); else cargs+=("$x"); fi
    done
    local port; port=$(free_port)
    timeout -k 5 "$t" "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw "${sargs[@]}" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    sleep 0.5
    timeout -k 5 "$t" "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw "${cargs[@]}" \
        >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC_RC=$?
}
# rank_pid TAG RANK: the pid of that rank of an rdx-perf MPI job (launched
# with --no-huge -- --dev sw) whose environment has RDX_MPI_TEST_TAG=TAG
rank_pid() {
    local p env
    for p in $(pgrep -f "rdx-perf --no-huge -- --dev sw"); do
        env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)
        if grep -qx "RDX_MPI_TEST_TAG=$1" <<<"$env" &&
           grep -qx "OMPI_COMM_WORLD_RANK=$2" <<<"$env"; then
            echo "$p"; return 0
        fi
    done
    return 1
}
