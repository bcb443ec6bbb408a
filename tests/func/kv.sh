#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The KV example (examples/kv) over each lib/rpc transport on the software
# device, server and clients in separate processes: PUT then GET returns
# the bytes, an overwrite returns the new bytes, DELETE then GET misses
# (kv_client --check); a second client's load with every GET's bytes
# checked, 12 calls in flight (past the session's 8 slots: a client
# that asked for more slots than the server's was refused); the server
# exits 0 once both clients have gone. Stray peers (before the first
# client; silent ones while clients are served) stall no client. Bad
# flags: one line, exit 2.
# Usage: kv.sh PATH/TO/kv_server (kv_client next to it)
source "$(dirname "$0")/lib.sh"
KVS=$PERF
KVC=$(dirname "$KVS")/kv_client
[ -x "$KVC" ] || { echo "no kv_client next to $KVS" >&2; exit 1; }

wait_listen() {
    local i
    for i in $(seq 100); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
}

for t in infrc basic+infud homa+infud; do
    n=${t%%+*}
    port=$(free_port)
    timeout -k 5 90 "$KVS" --no-huge -l 0 -- --transport "$t" --dev sw -p "$port" --clients 2 \
        >"$TMP/s-$n.out" 2>"$TMP/s-$n.err" &
    spid=$!
    wait_listen "$port"
    timeout -k 5 60 "$KVC" --no-huge -l 1 -- --transport "$t" --dev sw \
        --connect "127.0.0.1:$port" --check >"$TMP/c-$n.out" 2>"$TMP/c-$n.err"
    crc=$?
    timeout -k 5 60 "$KVC" --no-huge -l 1 -- --transport "$t" --dev sw \
        --connect "127.0.0.1:$port" -n 400 --keys 40 --concurrent 12 --value-size 512 \
        >"$TMP/l-$n.out" 2>"$TMP/l-$n.err"
    lrc=$?
    wait "$spid"
    src=$?
    if [ $crc -eq 0 ] && grep -q "PUT then GET key-7: the 1000 bytes came back" "$TMP/c-$n.out" &&
       grep -q "PUT over key-7: GET returns the new bytes" "$TMP/c-$n.out" &&
       grep -q "DELETE then GET key-7: miss" "$TMP/c-$n.out" && grep -q "check OK" "$TMP/c-$n.out"; then
        pass "$t: PUT then GET returns the bytes, overwrite, DELETE then GET misses"
    else
        fail "$t: --check exit $crc: $(tr '\n' '|' <"$TMP/c-$n.out") $(tail -n 2 "$TMP/c-$n.err" | tr '\n' '|')"
    fi
    if [ $lrc -eq 0 ] && grep -q "misses 0, errors 0, bad values 0" "$TMP/l-$n.out" &&
       grep -q "^kv_client: 400 ops" "$TMP/l-$n.out"; then
        pass "$t: load, 400 ops, GET bytes checked: $(cut -c1-160 "$TMP/l-$n.out")"
    else
        fail "$t: load exit $lrc: $(tr '\n' '|' <"$TMP/l-$n.out") $(tail -n 2 "$TMP/l-$n.err" | tr '\n' '|')"
    fi
    if [ $src -eq 0 ] && grep -q "kv_server: done: .*, 0 bad, 40 keys stored" "$TMP/s-$n.out"; then
        pass "$t: server done after both clients: $(tail -n 1 "$TMP/s-$n.out")"
    else
        fail "$t: server exit $src: $(tail -n 1 "$TMP/s-$n.out") $(tail -n 2 "$TMP/s-$n.err" | tr '\n' '|')"
    fi
done

# stray connections before the first client (a port scan that connects and
# closes, a peer that sends bytes that are no hello) are dropped: the
# server goes on waiting and serves the client that comes next (it exited
# 1, "no client within 30 s", at the first stray connection)
port=$(free_port)
timeout -k 5 60 "$KVS" --no-huge -l 0 -- --dev sw -p "$port" --clients 1 \
    >"$TMP/s-stray.out" 2>"$TMP/s-stray.err" &
spid=$!
wait_listen "$port"
python3 - "$port" <<'PY'
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
s.close()
PY
sleep 0.5
timeout -k 5 60 "$KVC" --no-huge -l 1 -- --dev sw --connect "127.0.0.1:$port" --check \
    >"$TMP/c-stray.out" 2>"$TMP/c-stray.err"
crc=$?
wait "$spid"
src=$?
if [ $crc -eq 0 ] && grep -q "check OK" "$TMP/c-stray.out" && [ $src -eq 0 ] &&
   grep -q "kv_server: done: " "$TMP/s-stray.out"; then
    pass "stray connections before the first client: dropped, the client is served"
else
    fail "stray connections: client exit $crc, server exit $src: $(tail -n 2 "$TMP/s-stray.err" | tr '\n' '|') $(tail -n 2 "$TMP/c-stray.err" | tr '\n' '|')"
fi

# stray peers that connect while clients are served and then go silent:
# one sends nothing, one a part of a hello, one a whole hello, two a hello
# and a part of lib/rpc's session info message (a part of its header; the
# header and a part of the payload). The server bootstraps without waiting
# on any of them: a client under load meanwhile runs as fast as one alone
# before (its time at most twice that + 5 s) and a client that connects
# after them is served at once (the server blocked in the bootstrap's 10-s
# exchange per stray with a hello, stalling every client's calls: 30 s)
port=$(free_port)
wire=$(awk '$2 == "RDX_WIRE_VERSION" { print $3 }' "$SRC/config/rdx_config.h")
timeout -k 5 120 "$KVS" --no-huge -l 0 -- --dev sw -p "$port" --clients 3 \
    >"$TMP/s-silent.out" 2>"$TMP/s-silent.err" &
spid=$!
wait_listen "$port"
load=(--no-huge -l 1 -- --dev sw --connect "127.0.0.1:$port" -n 500000 --keys 40)
# timed_client NAME: a client of 2000 ops on $port (output in
# $TMP/c-NAME.out/.err); its exit in crc, its wall time with start-up in cms
timed_client() {
    local t0
    t0=$(date +%s%N)
    timeout -k 5 60 "$KVC" --no-huge -l 1 -- --dev sw --connect "127.0.0.1:$port" \
        -n 2000 --keys 40 >"$TMP/c-$1.out" 2>"$TMP/c-$1.err"
    crc=$?
    cms=$((($(date +%s%N) - t0) / 1000000))
}
load_s() { sed -n 's/^kv_client: 500000 ops in \([0-9.]*\) s: .*errors 0, bad values 0$/\1/p' "$1"; }
timeout -k 5 60 "$KVC" "${load[@]}" >"$TMP/c-alone.out" 2>"$TMP/c-alone.err"
c0rc=$?
timeout -k 5 90 "$KVC" "${load[@]}" >"$TMP/c-under.out" 2>"$TMP/c-under.err" &
c1pid=$!
for _ in $(seq 100); do
    ss -Htn state established "( sport = :$port )" 2>/dev/null | grep -q . && break
    sleep 0.05
done
python3 - "$port" "$wire" >"$TMP/silent.py.err" 2>&1 <<'PY' &
import socket, struct, sys, time
port, wire = int(sys.argv[1]), int(sys.argv[2])
hello = struct.pack(">4sI16s", b"RDX1", wire, b"stray")
hdr = struct.pack(">II", 0x5250, 136)  # RDX_RPC_CONN_MSG, rdx_rpc_session_info
peers = []
for sent in (b"", hello[:10], hello, hello + hdr[:6], hello + hdr + bytes(60)):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(sent)
    peers.append(s)
time.sleep(60)
PY
ppid=$!
sleep 0.3
timed_client after
c2rc=$crc c2ms=$cms
wait "$c1pid"
c1rc=$?
wait "$spid"
src=$?
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
alone=$(load_s "$TMP/c-alone.out")
under=$(load_s "$TMP/c-under.out")
if [ $c0rc -eq 0 ] && [ $c1rc -eq 0 ] && [ -n "$alone" ] && [ -n "$under" ] &&
   awk -v a="$alone" -v u="$under" 'BEGIN { exit !(u < 2 * a + 5) }'; then
    pass "silent stray peers: a client under load meanwhile: 500000 ops in $under s (alone before: $alone s)"
else
    fail "silent stray peers: a client under load meanwhile: exit $c1rc, $under s (alone before: exit $c0rc, $alone s; at most twice + 5 s expected): $(tr '\n' '|' <"$TMP/c-under.out") $(tail -n 3 "$TMP/s-silent.err" | tr '\n' '|')"
fi
if [ $c2rc -eq 0 ] && grep -q "^kv_client: 2000 ops .*errors 0, bad values 0" "$TMP/c-after.out" &&
   [ $c2ms -lt 9000 ] && [ $src -eq 0 ] && grep -q "kv_server: done: " "$TMP/s-silent.out"; then
    pass "silent stray peers: a client that connects after them is served at once ($c2ms ms, with start-up)"
else
    fail "silent stray peers: a client after them: exit $c2rc after $c2ms ms (< 9000 expected), server exit $src: $(tr '\n' '|' <"$TMP/c-after.out") $(tail -n 3 "$TMP/s-silent.err" | tr '\n' '|') $(tail -n 2 "$TMP/c-after.err" | tr '\n' '|')"
fi

# a flood of stalled peers: more than the server's 64 bootstrap slots, each
# with a hello and a part of the session info (lib/rpc's 10-s stage). A new
# peer takes the oldest one's slot, so a real client that connects after
# them is served at once (without that it waited in the listen backlog until
# the first stalled peer's 10-s deadline; ~7 s with silent peers)
port=$(free_port)
timeout -k 5 90 "$KVS" --no-huge -l 0 -- --dev sw -p "$port" --clients 1 \
    >"$TMP/s-flood.out" 2>"$TMP/s-flood.err" &
spid=$!
wait_listen "$port"
python3 - "$port" "$wire" "$TMP/flood.ready" >"$TMP/flood.py.err" 2>&1 <<'PY' &
import socket, struct, sys, time
port, wire, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hello = struct.pack(">4sI16s", b"RDX1", wire, b"flood")
hdr = struct.pack(">II", 0x5250, 136)
peers = []
for i in range(80):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(hello + hdr[:6])
        peers.append(s)
    except OSError:
        pass
    time.sleep(0.005)
open(ready, "w").write("%d\n" % len(peers))
time.sleep(60)
PY
ppid=$!
for _ in $(seq 200); do [ -s "$TMP/flood.ready" ] && break; sleep 0.05; done
timed_client flood
c3rc=$crc c3ms=$cms
wait "$spid"
src=$?
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
if [ $c3rc -eq 0 ] && grep -q "^kv_client: 2000 ops .*errors 0, bad values 0" "$TMP/c-flood.out" &&
   [ $c3ms -lt 6000 ] && [ $src -eq 0 ] && grep -q "kv_server: done: " "$TMP/s-flood.out"; then
    pass "a flood of $(cat "$TMP/flood.ready" 2>/dev/null) stalled peers: a client after them served at once ($c3ms ms, with start-up)"
else
    fail "a flood of stalled peers ($(cat "$TMP/flood.ready" 2>/dev/null) connected): client exit $c3rc after $c3ms ms (< 6000 expected), server exit $src: $(tr '\n' '|' <"$TMP/c-flood.out") $(tail -n 3 "$TMP/s-flood.err" | tr '\n' '|') $(tail -n 2 "$TMP/c-flood.err" | tr '\n' '|')"
fi

# the server killed under load (homa+infud: no connection to break, the
# calls only time out): the client notices its bootstrap connection close,
# stops with one line and exit 1 (it went on issuing calls that timed out
# 5 s apiece, for hours at -n 10000000)
port=$(free_port)
"$KVS" --no-huge -l 0 -- --transport homa+infud --dev sw -p "$port" --clients 1 \
    >"$TMP/s-kill.out" 2>"$TMP/s-kill.err" &
spid=$!
wait_listen "$port"
timeout -k 5 40 "$KVC" --no-huge -l 1 -- --transport homa+infud --dev sw \
    --connect "127.0.0.1:$port" -n 10000000 --keys 10 >"$TMP/c-kill.out" 2>"$TMP/c-kill.err" &
cpid=$!
for _ in $(seq 100); do
    grep -q "serving 1 client" "$TMP/s-kill.out" 2>/dev/null && break
    sleep 0.1
done
sleep 1
kill -KILL "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
t0=$SECONDS
wait "$cpid"
crc=$?
if [ $crc -eq 1 ] && [ $((SECONDS - t0)) -le 15 ] &&
   grep -q "^kv_client: the server has gone after" "$TMP/c-kill.err"; then
    pass "server killed under load: the client stops in $((SECONDS - t0)) s: $(grep '^kv_client' "$TMP/c-kill.err")"
else
    fail "server killed under load: client exit $crc after $((SECONDS - t0)) s: $(grep '^kv_client' "$TMP/c-kill.err" | tr '\n' '|')"
fi

# bad flags: one line, exit 2
bad() {
    local d=$1; shift
    timeout -k 2 20 "$@" >/dev/null 2>"$TMP/bad.err"
    local rc=$? lines
    lines=$(wc -l <"$TMP/bad.err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ]; then
        pass "bad input, $d: $(cat "$TMP/bad.err")"
    else
        fail "bad input, $d: exit $rc, $lines line(s): $(head -c 300 "$TMP/bad.err" | tr '\n' '|')"
    fi
}
bad "server transport" "$KVS" --no-huge -l 0 -- --transport tcp
bad "server -p 0" "$KVS" --no-huge -l 0 -- -p 0
bad "server --capacity x" "$KVS" --no-huge -l 0 -- --capacity x
# the largest value a client can still reach the server with (1 MiB less
# the header and key) ...
port=$(free_port)
timeout -k 5 60 "$KVS" --no-huge -l 0 -- --dev sw -p "$port" --clients 1 --capacity 1 \
    --value-max 1048504 >"$TMP/s-vmax.out" 2>"$TMP/s-vmax.err" &
spid=$!
wait_listen "$port"
timeout -k 5 60 "$KVC" --no-huge -l 1 -- --dev sw --connect "127.0.0.1:$port" --check \
    >"$TMP/c-vmax.out" 2>"$TMP/c-vmax.err"
crc=$?
wait "$spid"
src=$?
if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "check OK" "$TMP/c-vmax.out"; then
    pass "server --value-max 1048504: the client's session is accepted"
else
    fail "server --value-max 1048504: client exit $crc, server exit $src: $(tail -n 2 "$TMP/c-vmax.err" | tr '\n' '|')"
fi
# ... and one more byte is a bad flag (it was taken, and every client's
# session was then refused: the server's max_msg_size grew past 1 MiB)
bad "server --value-max 1048505" "$KVS" --no-huge -l 0 -- --value-max 1048505
bad "client no --connect" "$KVC" --no-huge -l 0 -- --check
bad "client --value-size 5000" "$KVC" --no-huge -l 0 -- --connect 127.0.0.1:1 --value-size 5000
bad "client --get-pct 101" "$KVC" --no-huge -l 0 -- --connect 127.0.0.1:1 --get-pct 101
finish
