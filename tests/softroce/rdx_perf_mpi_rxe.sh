#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf --pattern under mpirun on soft-RoCE, inside the guest
# (tests/softroce/guest-run.sh; doc/cluster.md): 4 ranks on rxe0/rxe1 (MPMD:
# each rank names its device), incast and all-to-all with write bw and echo
# lat under --verify, and the merged report's total checked against the
# ranks' rows. MPI itself runs over the guest's loopback only.
#
#   rdx_perf_mpi_rxe.sh RDX_PERF   (exit 77 outside the guest, without rxe or mpirun)
set -uo pipefail
PERF=${1:?usage: rdx_perf_mpi_rxe.sh RDX_PERF}
[ -x "$PERF" ] || { echo "rdx_perf_mpi_rxe: no executable $PERF" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "rdx_perf_mpi_rxe: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "rdx_perf_mpi_rxe: mpirun not found (scripts/setup.sh installs openmpi-bin)"
    exit 77
fi
TMP=$(mktemp -d /tmp/rdxmpi.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "PASS: $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
# the guest boots with the kernel's host name "(none)", which Open MPI's
# node-name parser refuses: give this throw-away guest a name
case "$(hostname)" in ''|'(none)') hostname rdx-guest ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# an ASan build: LeakSanitizer reports Open MPI's own allocations (MPI_Init
# and MPI_Finalize alone show them), and 4 ranks' leak checks at exit have
# stalled this VM for minutes: leak checking off for the ranks
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# the guest has lo and the veth pair: MPI (bootstrap only) stays on lo
MPI=(mpirun --oversubscribe --mca btl self,vader --mca oob_tcp_if_include lo)

# mrun NAME "N1 DEV1 N2 DEV2" ARGS...: N1 ranks on DEV1 then N2 on DEV2
mrun() {
    local name=$1 layout=$2; shift 2
    local n1 d1 n2 d2
    read -r n1 d1 n2 d2 <<<"$layout"
    timeout -k 5 400 "${MPI[@]}" \
        -np "$n1" "$PERF" -- --dev "$d1" --bootstrap-timeout 60 "$@" : \
        -np "$n2" "$PERF" -- --dev "$d2" --bootstrap-timeout 60 "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}

check_json() { # file, client rows
    python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); want = int(sys.argv[2])
rows = [x for x in r["results"] if x["lcore"] != -1]
tot = [x for x in r["results"] if x["lcore"] == -1]
assert len(rows) == want and len(tot) == 1, f"{len(rows)} rows"
assert tot[0]["ops"] == sum(x["ops"] for x in rows) > 0
assert tot[0]["lat"]["count"] == sum(x["lat"]["count"] for x in rows)
# rdma_rxe is a software RDMA device of the kernel, not a NIC
assert r["knobs"]["device_kind"] == "software RDMA device", r["knobs"]["device_kind"]
print(f"total {tot[0]['ops']} ops, {tot[0]['mbytes_per_s']:.1f} MB/s, p50 {tot[0]['lat']['p50']/1e3:.1f} us")
PY
}

# incast: rank 0 (the server) on rxe1, the 3 clients on rxe0: every QP crosses the veth
# all-to-all: ranks 0-1 on rxe0, 2-3 on rxe1 (-q 3: each rank reaches the 3 others)
for p in ${RDX_MPI_PATTERNS:-incast all-to-all}; do
    case $p in
    incast) layout="1 rxe1 3 rxe0"; q=1; rows=3 ;;
    all-to-all) layout="2 rxe0 2 rxe1"; q=3; rows=4 ;;
    esac
    for t in ${RDX_MPI_TESTS:-write echo}; do
        case $t in
        write) a=(--test write --mode bw -s 4K -n 500) ;;
        echo) a=(--test echo --mode lat -s 256 -n 100) ;;
        esac
        n=$p.$t
        mrun "$n" "$layout" "${a[@]}" -q "$q" --pattern "$p" --verify --json "$TMP/$n.json"
        rc=$?
        if [ "$rc" -eq 0 ] && grep -q -- "--verify over 4 ranks: 0 errors: OK" "$TMP/$n.err" &&
           check_json "$TMP/$n.json" "$rows" >"$TMP/$n.chk" 2>&1; then
            pass "mpirun -np 4 rxe0/rxe1 --pattern $p: $t --verify: $(cat "$TMP/$n.chk")"
        else
            fail "mpirun -np 4 rxe0/rxe1 --pattern $p: $t: exit $rc: $(grep "rdx" "$TMP/$n.err" | head -n 6 | tr '\n' '|') $(tail -n 1 "$TMP/$n.chk" 2>/dev/null)"
        fi
        grep -E "^ (write|echo) " "$TMP/$n.out"
    done
done
echo "rdx_perf_mpi_rxe: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
