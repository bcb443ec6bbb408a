#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf -R (rdma_cm) on soft-RoCE, inside the guest (tests/softroce/
# guest-run.sh): the server listens on rxe1's address (--source_ip
# 10.77.0.2), the client binds rxe0's (--source_ip 10.77.0.1); each end must
# say that rdma_cm put it on its own device, and rxe0's sent and rxe1's
# received packet counters must grow by the run's packets (so the traffic
# crossed between the two devices, not inside one); -q 8 too (eight
# connection requests in a row: the server takes their events in any
# order, lib/boot/rdx_boot_rdmacm.c); perftest's own "ib_write_bw -R" and
# "ib_send_lat -R" through the perftest entry, parsed as perftest's output.
# Then the refusals: a
# --source_ip of the other device's netdev (one line, exit 2).
#
#   rdx_perf_rdmacm.sh RDX_PERF       (exit 77 outside the guest / without rxe)
set -uo pipefail
PERF=${1:?usage: rdx_perf_rdmacm.sh RDX_PERF}
[ -x "$PERF" ] || { echo "rdx_perf_rdmacm: no executable $PERF" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "rdx_perf_rdmacm: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
TMP=$(mktemp -d /tmp/rdxcm.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "PASS: $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
port=19500
A0=10.77.0.1
A1=10.77.0.2

cnt() { # device, counter
    cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0
}

. "$(dirname "$0")/guest_lib.sh"   # guest_wait_listen

# pair NAME CLIENT_SOURCE_IP ARGS...: server on rxe1 bound to A1, client on rxe0
pair() {
    local name=$1 csrc=$2; shift 2
    port=$((port + 1))
    timeout -k 5 180 "$PERF" -l 1 -- --server -p "$port" --dev rxe1 -R --source_ip "$A1" \
        --bootstrap-timeout 60 "$@" >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    guest_wait_listen "$TMP/$name.s.out" "$spid"
    S0=$(cnt rxe0 sent_pkts); R1=$(cnt rxe1 rcvd_pkts)
    timeout -k 5 120 "$PERF" -l 0 -- "$A1" -p "$port" --dev rxe0 -R ${csrc:+--source_ip "$csrc"} \
        --bootstrap-timeout 60 "$@" >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC=$?
    DS0=$(( $(cnt rxe0 sent_pkts) - S0 )); DR1=$(( $(cnt rxe1 rcvd_pkts) - R1 ))
}

# each op is at least one packet from rxe0 to rxe1 (-n N: N per QP)
for spec in "write bw 1000 -s 2K -n 1000" "send lat 200 -s 2K -n 200" "read bw 4000 -s 2K -n 1000 -q 4" \
            "echo lat 200 -s 256 -n 200" "faa bw 500 --keys 2 -n 500" \
            "write bw 2000 -s 2K -n 250 -q 8" "send lat 400 -s 256 -n 50 -q 8"; do
    set -- $spec
    t=$1 mode=$2 min=$3; shift 3
    pair "$t.$mode" "$A0" --test "$t" --mode "$mode" "$@" --verify
    cdev=$(grep -h "rdma_cm connection" "$TMP/$t.$mode.c.out" | head -n 1)
    sdev=$(grep -h "rdma_cm connection" "$TMP/$t.$mode.s.out" | head -n 1)
    if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] &&
       [[ "$cdev" == *"$A0 -> $A1 on device rxe0"* ]] && [[ "$sdev" == *"$A1 -> $A0 on device rxe1"* ]] &&
       [ "$DS0" -ge "$min" ] && [ "$DR1" -ge "$min" ]; then
        pass "-R rxe0 -> rxe1: $t $mode $* --verify: client '${cdev#rdx-perf: -R: }', server '${sdev#rdx-perf: -R: }', rxe0 sent $DS0 pkts, rxe1 received $DR1"
    else
        fail "-R rxe0 -> rxe1: $t $mode: client $CRC, server $SRC, rxe0 sent $DS0, rxe1 rcvd $DR1: '$cdev' '$sdev': $(tail -n 3 "$TMP/$t.$mode.c.err" | tr '\n' '|') / $(tail -n 3 "$TMP/$t.$mode.s.err" | tr '\n' '|')"
    fi
done

# -b over rdma_cm: both processes post (the server's loop too); each side's
# writes are packets from its own device, and the client prints the server's
# row and the sum (the compact table's side column)
R0=$(cnt rxe1 sent_pkts)
pair "write.bidir" "$A0" --test write --mode bw -s 2K -n 500 -b --verify
DS1=$(( $(cnt rxe1 sent_pkts) - R0 ))
if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] && [ "$DS0" -ge 500 ] && [ "$DS1" -ge 500 ] &&
   grep -q "server" "$TMP/write.bidir.c.out" && grep -q "sum" "$TMP/write.bidir.c.out"; then
    pass "-R -b write bw --verify: rxe0 sent $DS0 pkts, rxe1 sent $DS1, client printed the server's row and the sum"
else
    fail "-R -b write bw: client $CRC, server $SRC, rxe0 sent $DS0, rxe1 sent $DS1: $(tail -n 3 "$TMP/write.bidir.c.err" | tr '\n' '|') / $(tail -n 3 "$TMP/write.bidir.s.err" | tr '\n' '|')"
fi

# perftest's own command lines through the perftest entry (perftest_cli.c:
# EAL options from RDX_EAL, the server without a host): "ib_write_bw -R"
# and "ib_send_lat -R" between rxe1 and rxe0, the client's output parsed as
# perftest's scripts parse perftest's (the "#bytes" header once, a result
# row whose first field is the size and whose figures are numbers), its
# header saying rdma_cm, and the packets crossing from rxe0 to rxe1.
# pt_pair NAME PROG ARGS...: server "PROG ARGS" on rxe1, client "PROG ARGS A1" on rxe0
pt_pair() {
    local name=$1 prog=$2; shift 2
    port=$((port + 1))
    RDX_EAL="-l 1" timeout -k 5 180 "$PERF" "$prog" -d rxe1 -R --source_ip "$A1" -p "$port" "$@" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    guest_wait_listen "$TMP/$name.s.out" "$spid"
    S0=$(cnt rxe0 sent_pkts); R1=$(cnt rxe1 rcvd_pkts)
    RDX_EAL="-l 0" timeout -k 5 120 "$PERF" "$prog" -d rxe0 -R --source_ip "$A0" -p "$port" "$@" "$A1" \
        >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC=$?
    DS0=$(( $(cnt rxe0 sent_pkts) - S0 )); DR1=$(( $(cnt rxe1 rcvd_pkts) - R1 ))
}
pt_parse() { # FILE bw|lat: perftest's column rules; prints the row's figure
    python3 - "$@" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
kind = sys.argv[2]
head = [l for l in lines if l.lstrip().startswith("#bytes")]
assert len(head) == 1, head
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert len(rows) == 1, rows
r = rows[0]
int(r[0]); int(r[1])
if kind == "bw":
    # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
    assert float(r[3]) > 0 and float(r[2]) >= float(r[3]) * 0.999, r
    float(r[4])
    print("BW average %s MB/sec" % r[3])
else:
    # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
    for v in r[2:9]:
        float(v)
    print("t_typical %s usec" % r[4])
PY
}
for spec in "ib_write_bw bw 1000 -s 2048 -n 1000" "ib_send_lat lat 200 -s 256 -n 200"; do
    set -- $spec
    prog=$1 kind=$2 min=$3; shift 3
    pt_pair "pt.$prog" "$prog" "$@"
    if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] &&
       fig=$(pt_parse "$TMP/pt.$prog.c.out" "$kind" 2>"$TMP/pt.$prog.parse") &&
       grep -qE "rdma_cm QPs[[:space:]]*: ON" "$TMP/pt.$prog.c.out" &&
       grep -q "rdma_cm connection $A0 -> $A1 on device rxe0" "$TMP/pt.$prog.c.out" &&
       [ "$DS0" -ge "$min" ] && [ "$DR1" -ge "$min" ]; then
        pass "$prog -R $*: server and client exit 0, parsed as perftest's ($fig), rxe0 sent $DS0 pkts, rxe1 received $DR1"
    else
        fail "$prog -R $*: client $CRC, server $SRC, rxe0 sent $DS0, rxe1 rcvd $DR1: $(tail -n 3 "$TMP/pt.$prog.c.err" "$TMP/pt.$prog.parse" 2>/dev/null | tr '\n' '|') / $(tail -n 3 "$TMP/pt.$prog.s.err" | tr '\n' '|') / $(head -c 400 "$TMP/pt.$prog.c.out" | tr '\n' '|')"
    fi
done

# Without --source_ip the client's address is the one its route to A1 gives
# (the guest's policy routing sends it out of veth0): reported, not required.
pair nosrc "" --test write --mode bw -s 2K -n 1000 --verify
echo "INFO: -R client without --source_ip: client exit $CRC, server $SRC: $(grep -h 'rdma_cm connection' "$TMP/nosrc.c.out") / $(tail -n 2 "$TMP/nosrc.c.err" | tr '\n' '|')"

# The client binds rxe1's address but opened rxe0: one line, exit 2 (the
# server then sees no QP connection and gives up within its timeout).
port=$((port + 1))
timeout -k 5 60 "$PERF" -l 1 -- --server -p "$port" --dev rxe1 -R --source_ip "$A1" \
    --bootstrap-timeout 15 --test write >"$TMP/bad.s.out" 2>"$TMP/bad.s.err" &
spid=$!
guest_wait_listen "$TMP/bad.s.out" "$spid"
timeout -k 5 60 "$PERF" -l 0 -- "$A1" -p "$port" --dev rxe0 -R --source_ip "$A1" \
    --bootstrap-timeout 15 --test write >"$TMP/bad.c.out" 2>"$TMP/bad.c.err"
rc=$?
wait "$spid"
src=$?
# (EAL's notice about hugepages is not rdx-perf's line)
grep -v "no hugepages configured" "$TMP/bad.c.err" >"$TMP/bad.c.err1"
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/bad.c.err1")" -eq 1 ] && grep -q "on device rxe1, not on rxe0" "$TMP/bad.c.err1" &&
   [ "$src" -ne 0 ]; then
    pass "-R --source_ip of rxe1 with --dev rxe0 refused (server exit $src): $(cat "$TMP/bad.c.err1")"
else
    fail "-R --source_ip of rxe1 with --dev rxe0: exit $rc: $(tr '\n' '|' <"$TMP/bad.c.err")"
fi

echo "rdx_perf_rdmacm: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
