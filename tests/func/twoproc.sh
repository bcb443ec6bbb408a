#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two processes over the TCP bootstrap on 127.0.0.1 (the runtime gives each
# process its own EAL file prefix): a verified run, a run where client and
# server disagree (both exit 2 with one line), a server killed mid-run (the
# client names the peer's death, exit 1) and the other way round, and SIGINT.
source "$(dirname "$0")/lib.sh"

for t in write read send echo faa; do
    case $t in
    echo) a=(--test echo --sizes 100,10K -n 200) ;;
    faa) a=(--test faa --mode bw --keys 2 -n 300) ;;
    *) a=(--test $t --mode bw -s 4K -n 300) ;;
    esac
    pair_split "$t" "${a[@]}" --verify :: "${a[@]}" --verify --json "$TMP/$t.json"
    if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
       python3 "$HERE/check_report.py" "$TMP/$t.json" "$SCHEMA" --ops-per-run "${a[-1]}" \
           >"$TMP/$t.chk"; then
        pass "two processes: $t --verify"
    else
        fail "two processes: $t: client $CRC server $SRC_RC: $(tail -n 1 "$TMP/$t.c.err") / $(tail -n 1 "$TMP/$t.s.err") $(cat "$TMP/$t.chk" 2>/dev/null)"
    fi
done
pair_split multi --test write --mode bw -s 1K -n 100 --verify :: --test write --mode bw -s 1K -n 100 \
    --verify -q 2 --qp-sweep 1-2 --json "$TMP/multi.json"
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
   python3 "$HERE/check_report.py" "$TMP/multi.json" "$SCHEMA" --runs 2 >/dev/null; then
    pass "two processes: --qp-sweep 1-2"
else
    fail "two processes: --qp-sweep 1-2: $CRC/$SRC_RC $(tail -n 1 "$TMP/multi.c.err")"
fi
# Two sizes, fewer ops per run than slots: the read-back checks only the
# slots this run wrote (the first run's are stale, with another stride).
pair_split sizes2 --test write --mode bw --sizes 8,1K,4K -n 40 --verify :: --test write --mode bw \
    --sizes 8,1K,4K -n 40 --verify
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] && grep -q "every payload byte checked: OK" "$TMP/sizes2.c.err"; then
    pass "two processes: write bw --sizes 8,1K,4K --verify"
else
    fail "two processes: write bw --sizes 8,1K,4K --verify: $CRC/$SRC_RC $(tail -n 1 "$TMP/sizes2.c.err")"
fi
pair_split wilat --test write_imm --mode lat -s 4K -n 500 --verify :: --test write_imm --mode lat -s 4K \
    -n 500 --verify
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ]; then pass "two processes: write_imm ping-pong"
else fail "two processes: write_imm ping-pong: $CRC/$SRC_RC $(tail -n 1 "$TMP/wilat.c.err")"; fi
pair_split lat --test write --mode lat -s 64 -n 200 --verify :: --test write --mode lat -s 64 -n 200 --verify
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ]; then pass "two processes: write ping-pong"
else fail "two processes: write ping-pong: $CRC/$SRC_RC $(tail -n 1 "$TMP/lat.c.err")"; fi

# Different tests: both refuse in one line with exit 2.
pair_split mismatch --test read -s 64 :: --test write -s 64
if [ "$CRC" -eq 2 ] && [ "$SRC_RC" -eq 2 ] && [ "$(wc -l <"$TMP/mismatch.c.err")" -eq 1 ] &&
   [ "$(wc -l <"$TMP/mismatch.s.err")" -eq 1 ]; then
    pass "different tests: $(cat "$TMP/mismatch.c.err")"
else
    fail "different tests: client $CRC server $SRC_RC: $(cat "$TMP/mismatch.c.err" "$TMP/mismatch.s.err" | tr '\n' '|')"
fi
pair_split sizes --test write -s 64 :: --test write -s 128
if [ "$CRC" -eq 2 ] && [ "$SRC_RC" -eq 2 ]; then pass "different sizes: $(cat "$TMP/sizes.c.err")"
else fail "different sizes: client $CRC server $SRC_RC"; fi

# The client decides the layout (doc/apps.md); a server given other -q/-t/
# --verify says, in one line, which of its own it does not run with (and says
# nothing when they agree).
pair_split layout --test write --mode bw -s 1K -n 100 -q 4 -t 16 --verify :: --test write --mode bw \
    -s 1K -n 100 -q 2 -t 32
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
   grep -q "client decides the layout: runs with its 2 QP(s) (here 1 lcore(s) x -q 4), -t 32 (here 16), --verify off (here on)" "$TMP/layout.s.out"; then
    pass "server given another layout: $(grep 'decides the layout' "$TMP/layout.s.out")"
else
    fail "server given another layout: $CRC/$SRC_RC: $(cat "$TMP/layout.s.out" | tr '\n' '|')"
fi
pair_split layout2 --test write --mode bw -s 1K -n 100 -q 2 -t 32 :: --test write --mode bw \
    -s 1K -n 100 -q 2 -t 32
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] && ! grep -q "decides the layout" "$TMP/layout2.s.out"; then
    pass "server given the client's layout: no note"
else
    fail "server given the client's layout: $CRC/$SRC_RC: $(cat "$TMP/layout2.s.out" | tr '\n' '|')"
fi

# The server dies mid-run: after the client printed its first result (so
# the bootstrap and a run did happen), the client names the peer's death and
# exits 1 (a client with no server at all says "cannot reach", exit 2).
SZ=1K,2K,3K,4K,5K,6K,7K,8K,9K,10K,11K,12K,13K,14K,15K,16K
# wait_line FILE PATTERN: up to 30 s for PATTERN to appear in FILE
wait_line() {
    for _ in $(seq 300); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
port=$(free_port)
# (not under timeout(1): the kill must reach rdx-perf itself; -D 1 x 16 sizes bounds it)
"$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --test send --mode bw \
    --sizes $SZ -D 1 >/dev/null 2>&1 &
spid=$!
sleep 0.5
timeout -k 5 60 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw --test send \
    --mode bw --sizes $SZ -D 1 --bootstrap-timeout 2 >"$TMP/kill.out" 2>"$TMP/kill.err" &
cpid=$!
started=no
wait_line "$TMP/kill.err" "send bw size 1K qps 1: [1-9]" && started=yes
kill -9 "$spid" 2>/dev/null
wait "$cpid"
crc=$?
wait "$spid" 2>/dev/null
if [ "$started" = yes ] && [ "$crc" -eq 1 ] &&
   grep -qE "peer closed the bootstrap connection during the run|closed the connection|reset the connection" "$TMP/kill.err"; then
    # during a run, or (on a loaded machine) between two sizes' runs
    pass "server killed after a run: client exit $crc: $(grep -m1 -E 'peer closed|closed the connection|reset the connection' "$TMP/kill.err")"
else
    fail "server killed: run started: $started, client exit $crc: $(tail -n 2 "$TMP/kill.err" | tr '\n' '|')"
fi

# The client dies mid-run (after its first result): the server says the
# client went away during the run and exits 1.
port=$(free_port)
timeout -k 5 60 "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --test write --mode bw \
    --sizes $SZ -D 1 >"$TMP/ckill.out" 2>"$TMP/ckill.err" &
spid=$!
sleep 0.5
"$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw --test write --mode bw \
    --sizes $SZ -D 1 >/dev/null 2>"$TMP/ckill.c.err" &
cpid=$!
started=no
wait_line "$TMP/ckill.c.err" "write bw size 1K qps 1: [1-9]" && started=yes
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
wait "$spid"
src=$?
if [ "$started" = yes ] && [ "$src" -eq 1 ] &&
   grep -qE "client went away( during the run)?:" "$TMP/ckill.err"; then
    pass "client killed after a run: server exit $src: $(tail -n 1 "$TMP/ckill.err")"
else
    fail "client killed: run started: $started, server exit $src: $(tail -n 2 "$TMP/ckill.err" | tr '\n' '|')"
fi

# SIGINT: stops cleanly and prints what was measured, exit 130 (interrupted,
# doc/apps.md "Reports").
timeout -k 5 40 "$PERF" "${EAL[@]}" -- --test write --mode bw -s 1K -D 30 --dev sw \
    --json "$TMP/int.json" >"$TMP/int.out" 2>"$TMP/int.err" &
ipid=$!
# signal once the handler is installed (SigCgt has SIGINT) and the run is on
for _ in $(seq 100); do
    child=$(cat "/proc/$ipid/task/$ipid/children" 2>/dev/null | awk '{print $1}')
    cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/${child:-0}/status" 2>/dev/null || echo 0)
    [ $(( 0x${cgt:-0} & 2 )) -ne 0 ] && break
    sleep 0.1
done
sleep 1
# to rdx-perf itself: timeout(1) would forward it to the whole process group
# too, and a second SIGINT is the runtime's "stuck: die now"
kill -INT "${child:-$ipid}"
wait "$ipid"
irc=$?
# the compact table's row of the 1 KiB run (#bytes first)
if [ "$irc" -eq 130 ] && grep -qE "^ 1024 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+" "$TMP/int.out" && [ -s "$TMP/int.json" ]; then
    pass "SIGINT prints the results"
else
    fail "SIGINT: exit $irc: $(tail -n 1 "$TMP/int.err")"
fi
finish
