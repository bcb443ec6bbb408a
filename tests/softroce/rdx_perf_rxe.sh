#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf on soft-RoCE, inside the guest (tests/softroce/guest-run.sh):
# every test in lat and bw mode with --verify, server on rxe1 and client on
# rxe0 as two processes (TCP bootstrap on the guest's loopback), write bw -b
# (both processes post), send and echo
# over UD (--transport ud, the verbs driver's UD), then a server
# killed mid-run (the client must exit non-zero within its bootstrap timeout).
#
#   rdx_perf_rxe.sh RDX_PERF       (exit 77 outside the guest / without rxe)
set -uo pipefail
PERF=${1:?usage: rdx_perf_rxe.sh RDX_PERF}
[ -x "$PERF" ] || { echo "rdx_perf_rxe: no executable $PERF" >&2; exit 2; }
if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
    echo "rdx_perf_rxe: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
    exit 77
fi
TMP=$(mktemp -d /tmp/rdxrxe.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "PASS: $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
port=19000

# Under TCG a process can take seconds to start: wait for the server to
# listen ("waiting for a client") before starting the client.
. "$(dirname "$0")/guest_lib.sh"   # guest_wait_listen

# The two processes' pollers on different vCPUs (-l), as on two hosts.
pair() { # name, args for both sides...
    local name=$1; shift
    port=$((port + 1))
    timeout -k 5 180 "$PERF" -l 1 -- --server -p "$port" --dev rxe1 --bootstrap-timeout 60 "$@" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    guest_wait_listen "$TMP/$name.s.out" "$spid"
    timeout -k 5 120 "$PERF" -l 0 -- --connect "127.0.0.1:$port" --dev rxe0 --bootstrap-timeout 60 "$@" \
        >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC=$?
}

for t in echo write write_imm read send cas faa; do
    for mode in lat bw; do
        case $t in
        cas|faa) a=(--test "$t" --mode "$mode" --keys 2) ;;
        echo) a=(--test echo --mode "$mode" -s 256) ;;
        *) a=(--test "$t" --mode "$mode" -s 2K) ;;
        esac
        [ "$mode" = lat ] && a+=(-n 200) || a+=(-n 1000)
        pair "$t.$mode" "${a[@]}" --verify
        # rdx-perf exits non-zero when --verify finds a wrong byte or value
        if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ]; then
            pass "rxe0 -> rxe1: $t $mode --verify: $(grep -h -i 'verif' "$TMP/$t.$mode.c.out" "$TMP/$t.$mode.c.err" | tail -n 1)"
        else
            fail "rxe0 -> rxe1: $t $mode: client $CRC, server $SRC: $(tail -n 2 "$TMP/$t.$mode.c.err" | tr '\n' '|') / $(tail -n 2 "$TMP/$t.$mode.s.err" | tr '\n' '|')"
        fi
    done
done

# Several QPs per CQ (the driver finds each completion's QP by number).
for t in write send faa; do
    case $t in faa) a=(--test faa --keys 2) ;; *) a=(--test "$t" -s 512) ;; esac
    pair "$t.q4" "${a[@]}" --mode bw -n 500 -q 4 --verify
    if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ]; then
        pass "rxe0 -> rxe1: $t bw -q 4 --verify"
    else
        fail "rxe0 -> rxe1: $t bw -q 4: client $CRC, server $SRC: $(tail -n 2 "$TMP/$t.q4.c.err" | tr '\n' '|')"
    fi
done

# Completion events (-e: the verbs driver's completion channel).
for t in write send; do
    pair "$t.events" --test "$t" --mode bw -s 1K -n 1000 -e --verify
    if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ]; then
        pass "rxe0 -> rxe1: $t bw -e --verify"
    else
        fail "rxe0 -> rxe1: $t bw -e: client $CRC, server $SRC: $(tail -n 2 "$TMP/$t.events.c.err" | tr '\n' '|')"
    fi
done

# -b across two processes: both post RDMA WRITEs at once (rxe0 <-> rxe1);
# the client prints its row, the server's and the sum, the server its own
pair write.bidir --test write --mode bw -s 2K -n 1000 -b --verify
if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] && grep -q "sum (-b)" "$TMP/write.bidir.c.out" &&
   grep -q "server (this process)" "$TMP/write.bidir.s.out"; then
    pass "rxe0 <-> rxe1: write bw -b --verify: $(grep -h "sum (-b)" "$TMP/write.bidir.c.out" | tr -s ' ')"
else
    fail "rxe0 <-> rxe1: write bw -b: client $CRC, server $SRC: $(tail -n 2 "$TMP/write.bidir.c.err" | tr '\n' '|') / $(tail -n 2 "$TMP/write.bidir.s.err" | tr '\n' '|')"
fi

# UD (--transport ud): the verbs driver's UD QPs and address handles on a
# real provider. rxe's active MTU is 1024 here (veth MTU 1500), so 1 KiB is
# the largest datagram; every datagram must arrive (the counts agree) and
# every payload byte is checked.
for t in send echo; do
    for mode in lat bw; do
        a=(--test "$t" --mode "$mode" --transport ud -s 1K)
        [ "$mode" = lat ] && a+=(-n 200) || a+=(-n 1000)
        pair "ud.$t.$mode" "${a[@]}" --verify
        ud=$(grep -h "rdx-perf: UD" "$TMP/ud.$t.$mode.c.err" | tail -n 1)
        if [ "$CRC" -eq 0 ] && [ "$SRC" -eq 0 ] && [ -n "$ud" ]; then
            pass "rxe0 -> rxe1: $t $mode --transport ud --verify: ${ud#rdx-perf: }"
        else
            fail "rxe0 -> rxe1: $t $mode --transport ud: client $CRC, server $SRC: $(tail -n 2 "$TMP/ud.$t.$mode.c.err" | tr '\n' '|') / $(tail -n 2 "$TMP/ud.$t.$mode.s.err" | tr '\n' '|')"
        fi
    done
done
# A datagram above the path MTU is refused in one line (exit 2).
timeout -k 5 60 "$PERF" -l 0 -- --test echo --transport ud -s 2K --loopback --dev rxe0 -n 10 \
    >"$TMP/ud2k.out" 2>"$TMP/ud2k.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "one datagram of at most 1024 B" "$TMP/ud2k.err"; then
    pass "echo -s 2K --transport ud on rxe refused: $(grep "one datagram" "$TMP/ud2k.err")"
else
    fail "echo -s 2K --transport ud on rxe: exit $rc: $(tail -n 2 "$TMP/ud2k.err" | tr '\n' '|')"
fi

# rxe has no device memory: a clear one-line refusal, not a crash.
timeout -k 5 60 "$PERF" -l 0 -- --test write --mode bw --loopback --dev rxe0 --mem dm -n 10 \
    >"$TMP/dm.out" 2>"$TMP/dm.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -qi "device memory" "$TMP/dm.err"; then
    pass "--mem dm on rxe refused (exit $rc): $(grep -i 'device memory' "$TMP/dm.err" | head -n 1)"
else
    fail "--mem dm on rxe: exit $rc: $(tail -n 2 "$TMP/dm.err" | tr '\n' '|')"
fi

# The server dies mid-run: the client notices and exits non-zero in time.
port=$((port + 1))
"$PERF" -l 1 -- --server -p "$port" --dev rxe1 --test send --mode bw -s 1K -D 60 \
    --bootstrap-timeout 60 >"$TMP/kill.s.out" 2>&1 &
spid=$!
guest_wait_listen "$TMP/kill.s.out" "$spid"
start=$SECONDS
timeout -k 5 50 "$PERF" -l 0 -- --connect "127.0.0.1:$port" --dev rxe0 --test send --mode bw \
    -s 1K -D 60 --bootstrap-timeout 5 >"$TMP/kill.out" 2>"$TMP/kill.err" &
cpid=$!
# kill once the run is under way (-D 60: it is still running then)
sleep 8
kill -9 "$spid"
wait "$cpid"
crc=$?
el=$((SECONDS - start - 8))
wait "$spid" 2>/dev/null
# It must have failed because the server died during the run, not because it
# never reached the server (TCG start-up is slow: that would prove nothing).
if grep -qiE "refused|cannot reach|no server" "$TMP/kill.err"; then
    fail "server killed before the client connected: $(tail -n 1 "$TMP/kill.err")"
elif [ "$crc" -ne 0 ] && [ "$crc" -ne 124 ] && [ "$el" -le 30 ]; then
    pass "server killed: client exit $crc ${el}s later: $(tail -n 1 "$TMP/kill.err")"
else
    fail "server killed: client exit $crc after ${el}s: $(tail -n 2 "$TMP/kill.err" | tr '\n' '|')"
fi

echo "rdx_perf_rxe: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
