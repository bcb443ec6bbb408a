#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A hostile peer (hostile_peer.py, the real wire format) against rdx-perf's
# two-process mode. A lying peer: the real process prints exactly one line
# naming the field (or the frame) and exits 2; a peer that vanishes mid-frame:
# one line, exit 1. Never a signal (an ASan/UBSan report aborts: exit 134).
# Stray connections (no hello, garbage, silence): one line each, the server
# keeps accepting and then serves a real client.
source "$(dirname "$0")/lib.sh"
PEER=$HERE/hostile_peer.py
SRV=(--dev sw --bootstrap-timeout 15)
W=(--test write --mode bw -s 4K)

# wait_listen PORT: until a socket listens on PORT (at most 10 s; a loaded
# machine may take longer than a fixed sleep to start the server)
wait_listen() {
    local i
    for i in $(seq 100); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
}

# expect NAME RC PATTERN FILE: exit RC, exactly one line on FILE matching PATTERN
expect() {
    local name=$1 want=$2 pat=$3 f=$4 rc=$5 lines
    lines=$(wc -l <"$f")
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$f"; then
        pass "$name: $(cat "$f")"
    else
        fail "$name: exit $rc (want $want), $lines line(s), want /$pat/: $(head -c 400 "$f" | tr '\n' '|')"
    fi
}

# server CASE RC PATTERN ARGS..: rdx-perf --server against the fake client
server() {
    local c=$1 want=$2 pat=$3; shift 3
    local port; port=$(free_port)
    timeout -k 5 30 "$PERF" --no-huge -l 0 -- --server -p "$port" "${SRV[@]}" "$@" \
        >"$TMP/$c.out" 2>"$TMP/$c.err" &
    local spid=$!
    wait_listen "$port"
    timeout 20 python3 "$PEER" client "$port" "$c" 2>"$TMP/$c.peer"
    wait "$spid"
    expect "server, $c" "$want" "$pat" "$TMP/$c.err" $?
}

server size-4g          2 "RUN.size 4294967296"      "${W[@]}"
server size-3g          2 "RUN.size 3221225472"      --test read --mode bw -s 4K --verify
server size-1m          2 "RUN.size 1048576"         "${W[@]}"
server stride-0         2 "RUN.stride 0"             "${W[@]}"
server stride-huge      2 "RUN.stride 4294967232"    "${W[@]}"
server slots-huge       2 "RUN.slots 2147483648"     "${W[@]}"
server slots-not-pow2   2 "RUN.slots 3"              "${W[@]}"
server qps-huge         2 "RUN.qps 1048576"          "${W[@]}"
server qps-0            2 "RUN.qps 0"                "${W[@]}"
server bye-7            2 "RUN.bye 7"                "${W[@]}"
server run-short        2 "sent 10 bytes for message type 21074" "${W[@]}"
server run-wrong-type   2 "sent message type 57005"  "${W[@]}"
server run-cut          1 "got 10 of 32 bytes"       "${W[@]}"
server app-version      2 "rdx-perf 9.9.9-evil"      "${W[@]}"
server app-version-unterminated 2 "CONFIG.app_version .* without a terminating NUL" "${W[@]}"
server test-unterminated 2 "CONFIG.test .* without a terminating NUL" "${W[@]}"
server mode             2 "CONFIG.mode 7"            "${W[@]}"
server nb-sizes         2 "CONFIG.nb_sizes 1000"     "${W[@]}"
server total-qps        2 "CONFIG.total_qps 1073741824" "${W[@]}"
server window           2 "CONFIG.window 0"          "${W[@]}"
server keys             2 "CONFIG.keys 0"            --test faa --mode bw
server verify           2 "CONFIG.verify 9"          "${W[@]}"
server region-len       2 "CONFIG.region_len 1099511627776" "${W[@]}"
server rstride          2 "CONFIG.rstride 0"         "${W[@]}"
server sq-depth         2 "CONFIG.sq_depth 3"        "${W[@]}"
server transport        2 "CONFIG.transport 7"       "${W[@]}"
server transport-ud     2 "peer runs --transport ud, we run --transport rc" --test send --mode bw -s 1K
server config-pad       2 "CONFIG.flags 5"           "${W[@]}"
server config-rdmacm    2 "peer runs -R (rdma_cm), we do not" "${W[@]}"
server config-truncated 2 "sent 100 bytes for message type 21072" "${W[@]}"
server ep-unterminated  2 "qp_info.drv. has no terminating NUL" "${W[@]}"
server ep-rslots        2 "EP.rslots 3"              --test send --mode bw -s 4K
server ep-len           2 "EP.len 64"                "${W[@]}"
server wire-version     2 "runs wire version 99"     "${W[@]}"
# echo on lib/rpc: the RPC layout, lib/rpc's session info, RPC_RUN
R=(--test echo --transport basic+infud)
server rpc-clients      2 "RPC.clients 0"            "${R[@]}"
server rpc-servers      2 "RPC.servers 2"            "${R[@]}"
server rpc-slots        2 "RPC.slots 65"             "${R[@]}"
server rpc-concurrent   2 "RPC.concurrent 9"         "${R[@]}"
server rpc-max-msg      2 "RPC.max_msg 1073741824"   "${R[@]}"
server rpc-max-msg-small 2 "RPC.max_msg 4096"        "${R[@]}"
server rpc-verify       2 "RPC.verify 9"             "${R[@]}"
server rpc-nb-mix       2 "RPC.nb_mix 99"            "${R[@]}"
server rpc-pad          2 "RPC.pad 1"                "${R[@]}"
server rpc-short        2 "sent 10 bytes for message type 21078" "${R[@]}"
server rpc-info-magic   2 "magic"                    "${R[@]}"
server rpc-info-version 2 "version"                  "${R[@]}"
server rpc-info-max-msg 2 "max_msg_size"             "${R[@]}"
server rpc-info-short   2 "sent 20 bytes for message type 21072" "${R[@]}"
server rpc-run-bye      2 "RPC_RUN.bye 7"            "${R[@]}"
server rpc-run-size     2 "RPC_RUN.size 12345"       "${R[@]}"
server rpc-run-pad      2 "RPC_RUN.pad 3"            "${R[@]}"

# Strays, then a real client: one line each, and the run still happens.
port=$(free_port)
timeout -k 5 40 "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --bootstrap-timeout 15 \
    "${W[@]}" -n 300 --verify >"$TMP/stray.s.out" 2>"$TMP/stray.s.err" &
spid=$!
wait_listen "$port"
for c in close-at-once garbage silent hello-truncated; do
    timeout 20 python3 "$PEER" client "$port" "$c" 2>>"$TMP/stray.peer"
done
timeout -k 5 30 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw "${W[@]}" -n 300 \
    --verify >"$TMP/stray.c.out" 2>"$TMP/stray.c.err"
crc=$?
wait "$spid"
src=$?
ign=$(grep -c "ignored a connection" "$TMP/stray.s.err")
if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && [ "$ign" -eq 4 ] &&
   [ "$(wc -l <"$TMP/stray.s.err")" -eq 4 ] && grep -q "every payload byte checked: OK" "$TMP/stray.c.err"; then
    pass "4 stray connections logged, then a verified run"
else
    fail "strays: client $crc server $src, $ign ignored: $(head -c 600 "$TMP/stray.s.err" | tr '\n' '|') / $(tail -n 1 "$TMP/stray.c.err")"
fi
# Strays only: the server still ends at the bootstrap timeout, exit 2.
port=$(free_port)
timeout -k 5 30 "$PERF" --no-huge -l 0 -- --server -p "$port" --dev sw --bootstrap-timeout 2 \
    "${W[@]}" >/dev/null 2>"$TMP/stray2.err" &
spid=$!
wait_listen "$port"
timeout 20 python3 "$PEER" client "$port" garbage 2>/dev/null
wait "$spid"
src=$?
if [ "$src" -eq 2 ] && [ "$(wc -l <"$TMP/stray2.err")" -eq 2 ] && grep -q "ignored a connection" "$TMP/stray2.err" &&
   grep -q "no client within 2.0 s" "$TMP/stray2.err"; then
    pass "stray then nobody: $(tail -n 1 "$TMP/stray2.err")"
else
    fail "stray then nobody: exit $src: $(head -c 400 "$TMP/stray2.err" | tr '\n' '|')"
fi

# client CASE RC PATTERN: rdx-perf --connect against the fake server
client() {
    local c=$1 want=$2 pat=$3
    local port; port=$(free_port)
    timeout 30 python3 "$PEER" server "$port" "$c" 2>"$TMP/$c.peer" &
    local ppid=$!
    sleep 0.3
    timeout -k 5 30 "$PERF" --no-huge -l 1 -- --connect "127.0.0.1:$port" --dev sw \
        --bootstrap-timeout 5 "${W[@]}" -n 300 >"$TMP/$c.out" 2>"$TMP/$c.err"
    local rc=$?
    wait "$ppid"
    expect "client, $c" "$want" "$pat" "$TMP/$c.err" "$rc"
}
client ready-lie        2 "READY for size 4096, stride 4096, slots 128"
client endack-eio       1 "the server failed the run: Input/output error"
client endack-positive  2 "ENDACK.status 7"
client endack-huge      2 "ENDACK.status -100000"
client endack-counts    2 "ENDACK.ops 5 bytes 5 ns 5 qps 0 lcores 0 without -b"
# -b across processes: the server's own counts come back in ENDACK
W0=("${W[@]}")
W=("${W0[@]}" -b)
client bidir-bytes      2 "ENDACK.bytes 1228801: 300 ops of 4096 B make 1228800"
client bidir-noops      2 "ENDACK.ops 0: expected 1..301"
client bidir-qps        2 "ENDACK.qps 2: the run has 1 QPs"
W=(--test echo --transport basic+infud)
client rpc-layout-lie   2 "peer answered RPC with another layout"
finish
