#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Bad input: every case prints exactly one line on stderr and exits 2,
# quickly (never a hang).
source "$(dirname "$0")/lib.sh"

check() { # description, args...
    local d=$1; shift
    local rc lines
    timeout -k 2 30 "$PERF" "$@" >/dev/null 2>"$TMP/err"
    rc=$?
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ]; then
        pass "$d: $(cat "$TMP/err")"
    else
        fail "$d: exit $rc, $lines stderr lines: $(head -c 300 "$TMP/err" | tr '\n' '|')"
    fi
}
S=(--dev sw)
check "unknown test"        "${EAL[@]}" -- --test nope "${S[@]}"
check "no test"             "${EAL[@]}" -- "${S[@]}"
check "unknown mode"        "${EAL[@]}" -- --test write --mode fast "${S[@]}"
check "size 0"              "${EAL[@]}" -- --test write -s 0 "${S[@]}"
check "size not a number"   "${EAL[@]}" -- --test write -s 12x "${S[@]}"
check "size > device max"   "${EAL[@]}" -- --test write -s 16G "${S[@]}"
check "bad size list"       "${EAL[@]}" -- --test write --sizes 1,,x "${S[@]}"
check "atomic size 16"      "${EAL[@]}" -- --test cas -s 16 "${S[@]}"
check "window 0"            "${EAL[@]}" -- --test write --mode bw -t 0 "${S[@]}"
check "-Q 0"                "${EAL[@]}" -- --test write -Q 0 "${S[@]}"
check "-Q beyond the SQ"    "${EAL[@]}" -- --test write --mode bw -Q 65536 "${S[@]}"
check "inline beyond QP"    "${EAL[@]}" -- --test write -I 65536 "${S[@]}"
check "bad MTU"             "${EAL[@]}" -- --test write -m 1000 "${S[@]}"
check "MTU too large"       "${EAL[@]}" -- --test write -m 8192 "${S[@]}"
check "unknown mem type"    "${EAL[@]}" -- --test write --mem floppy "${S[@]}"
check "unknown device"      "${EAL[@]}" -- --test write --dev nosuch0
check "unknown driver"      "${EAL[@]}" -- --test write --driver foo "${S[@]}"
check "bad -n"              "${EAL[@]}" -- --test write -n abc "${S[@]}"
check "-n and -D"           "${EAL[@]}" -- --test write -n 10 -D 1 "${S[@]}"
check "bad warmup"          "${EAL[@]}" -- --test write --warmup xyz "${S[@]}"
check "bad qp sweep"        "${EAL[@]}" -- --test write --qp-sweep 5-2 "${S[@]}"
check "qp sweep factor 1"   "${EAL[@]}" -- --test write --qp-sweep 1-8*1 "${S[@]}"
check "qp sweep no factor"  "${EAL[@]}" -- --test write --qp-sweep 1-8* "${S[@]}"
check "qp sweep trailing"   "${EAL[@]}" -- --test write --qp-sweep 1-8*2x "${S[@]}"
check "qp sweep too many"   "${EAL[@]}" -- --test write --qp-sweep 1-2048*2 "${S[@]}"
check "-q 0"                "${EAL[@]}" -- --test write -q 0 "${S[@]}"
check "bad keys"            "${EAL[@]}" -- --test faa --keys 0 "${S[@]}"
check "unknown option"      "${EAL[@]}" -- --test write --frobnicate "${S[@]}"
check "missing value"       "${EAL[@]}" -- --test write -s
check "server and connect"  "${EAL[@]}" -- --test write --server --connect 127.0.0.1:1 "${S[@]}"
check "bad HOST:PORT"       "${EAL[@]}" -- --test write --connect nocolon "${S[@]}"
check "--json unwritable"   "${EAL[@]}" -- --test write --json /nonexistent/dir/r.json "${S[@]}"
check "--csv a directory"   "${EAL[@]}" -- --test write --csv "$TMP" "${S[@]}"
check "-o unwritable"       "${EAL[@]}" -- --test write -o /nonexistent/dir/log "${S[@]}"
check "empty size in list"  "${EAL[@]}" -- --test write --sizes 1K,,2K "${S[@]}"
check "trailing comma"      "${EAL[@]}" -- --test write --sizes 1K, "${S[@]}"
check "empty --dev"         "${EAL[@]}" -- --test write --dev ''
# perftest's flags: bad values and the ones rdx-perf does not implement
check "--output=bw"         "${EAL[@]}" -- --test write --output=bw "${S[@]}"
check "--output=bandwidth lat" "${EAL[@]}" -- --test write --output=bandwidth "${S[@]}"
check "--output=latency bw" "${EAL[@]}" -- --test write --mode bw --output=latency "${S[@]}"
check "-d ''"               "${EAL[@]}" -- --test write -d ''
check "-i 0"                "${EAL[@]}" -- --test write -i 0 "${S[@]}"
check "-x 256"              "${EAL[@]}" -- --test write -x 256 "${S[@]}"
check "-c UC"               "${EAL[@]}" -- --test write -c UC "${S[@]}"
check "-R"                  "${EAL[@]}" -- --test write -R "${S[@]}"
check "-U"                  "${EAL[@]}" -- --test write -U "${S[@]}"
check "--use_cuda"          "${EAL[@]}" -- --test write --use_cuda=0 "${S[@]}"
check "two hosts"           "${EAL[@]}" -- --test write "${S[@]}" host1 host2
check "host and --server"   "${EAL[@]}" -- --test write --server "${S[@]}" 127.0.0.1
check "--rate 0"            "${EAL[@]}" -- --test write --rate 0 "${S[@]}"
check "--rate 1x"           "${EAL[@]}" -- --test write --rate 1x "${S[@]}"
check "--rate -5"           "${EAL[@]}" -- --test write --rate -5 "${S[@]}"
check "--rate-sweep empty"  "${EAL[@]}" -- --test write --rate-sweep 1K,,2K "${S[@]}"
check "--rate and sweep"    "${EAL[@]}" -- --test write --rate 1K --rate-sweep 1K,2K "${S[@]}"
check "--rate over UD"      "${EAL[@]}" -- --test send --transport ud --rate 1K "${S[@]}"
check "infinite sizes"      "${EAL[@]}" -- --test write --run_infinitely -a "${S[@]}"
check "qp sweep wraps"      "${EAL[@]}" -- --test write --qp-sweep 1-4294967297 "${S[@]}"
check "qp sweep factor wraps" "${EAL[@]}" -- --test write --qp-sweep 1-8*4294967298 "${S[@]}"
check "-t wraps"            "${EAL[@]}" -- --test write --mode bw -t 4294967297 "${S[@]}"
check "-n overflows"        "${EAL[@]}" -- --test write -n 99999999999999999999999 "${S[@]}"
check "unknown transport"   "${EAL[@]}" -- --test send --transport tcp "${S[@]}"
check "empty transport"     "${EAL[@]}" -- --test send --transport '' "${S[@]}"
for t in write write_imm read cas faa; do
    check "$t over ud"       "${EAL[@]}" -- --test $t --transport ud "${S[@]}"
done
check "echo over ud > MTU"  "${EAL[@]}" -- --test echo --transport ud -s 8K "${S[@]}"
check "echo ud default 10K" "${EAL[@]}" -- --test echo --transport ud --sizes 100,10K "${S[@]}"
check "send over ud > MTU"  "${EAL[@]}" -- --test send --mode bw --transport ud -s 64K "${S[@]}"
# echo on lib/rpc (rpc_echo.c)
check "rpc transport, write" "${EAL[@]}" -- --test write --transport homa+infud "${S[@]}"
check "rpc transport typo"  "${EAL[@]}" -- --test echo --transport homa "${S[@]}"
check "--mix without rpc"   "${EAL[@]}" -- --test echo --mix 100:90,1M:10 "${S[@]}"
check "--mix no weight"     "${EAL[@]}" -- --test echo --transport infrc --mix 100 "${S[@]}"
check "--mix weight 0"      "${EAL[@]}" -- --test echo --transport infrc --mix 100:0 "${S[@]}"
check "--mix weight 1K"     "${EAL[@]}" -- --test echo --transport infrc --mix 100:1K "${S[@]}"
check "--mix size 0"        "${EAL[@]}" -- --test echo --transport infrc --mix 0:5 "${S[@]}"
check "--mix size twice"    "${EAL[@]}" -- --test echo --transport infrc --mix 1K:5,1K:5 "${S[@]}"
check "--mix empty item"    "${EAL[@]}" -- --test echo --transport infrc --mix 100:5, "${S[@]}"
check "--mix 9 sizes"       "${EAL[@]}" -- --test echo --transport infrc \
                            --mix 1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1 "${S[@]}"
check "rpc size > 64M"      "${EAL[@]}" -- --test echo --transport basic+infud -s 128M "${S[@]}"
check "rpc 65 concurrent"   "${EAL[@]}" -- --test echo --transport infrc --concurrent-ops 65 "${S[@]}"
check "--rpc unknown key"   "${EAL[@]}" -- --test echo --transport infrc --rpc bogus=1 "${S[@]}"
check "--rpc rto_us=0"      "${EAL[@]}" -- --test echo --transport basic+infud --rpc rto_us=0 "${S[@]}"
check "--rpc without rpc"   "${EAL[@]}" -- --test echo --rpc window=4 "${S[@]}"
check "--rpc window=1000"   "${EAL[@]}" -- --test echo --transport basic+infud --rpc window=1000 "${S[@]}"
check "--rpc mtu on infrc"  "${EAL[@]}" -- --test echo --transport infrc --rpc mtu=1024 "${S[@]}"
check "--rpc window on homa" "${EAL[@]}" -- --test echo --transport homa+infud --rpc window=4 "${S[@]}"
check "--rpc overcommit on basic" "${EAL[@]}" -- --test echo --transport basic+infud --rpc overcommit=2 "${S[@]}"
check "rpc 2 lcores, inline" --no-huge --lcores 0@0,1@1,2@1 -- --test echo --transport infrc "${S[@]}"
check "rpc --qp-sweep"      "${EAL[@]}" -- --test echo --transport infrc --qp-sweep 1-2 "${S[@]}"
check "-s overflows"        "${EAL[@]}" -- --test write -s 18014398509481984K "${S[@]}"
check "-p wraps"            "${EAL[@]}" -- --test write -p 65537 "${S[@]}"
many=()
for _ in $(seq 150); do many+=(-n 1); done
check "255+ app arguments"  "${EAL[@]}" -- --test write "${S[@]}" "${many[@]}"
check "EAL -m abc"          "${EAL[@]}" -m abc -- --test write "${S[@]}"
check "EAL --log-level zzz" "${EAL[@]}" --log-level zzz -- --test write "${S[@]}"
check "EAL --log-level type:zzz" "${EAL[@]}" --log-level lib.eal:zzz -- --test write "${S[@]}"
check "bad core mask"       --no-huge -c 0xZZ -- --test write "${S[@]}"
check "split, inline model" "${EAL[@]}" -- --test write --loopback-lcores split "${S[@]}"
check "split, poll model"   "${EAL[@]}" -- --test write --loopback-lcores split --sw-progress poll "${S[@]}"
check "split, poll devarg"  "${EAL[@]}" -- --test write --loopback-lcores split --dev sw:progress=poll
check "unknown progress"    "${EAL[@]}" -- --test write --sw-progress later "${S[@]}"
check "unknown progress devarg" "${EAL[@]}" -- --test write --dev sw:progress=later
check "progress flag inline, devarg thread" "${EAL[@]}" -- --test write --sw-progress inline --dev sw:progress=thread
check "progress flag poll, last devarg inline" "${EAL[@]}" -- --test write --sw-progress poll --dev sw:progress=poll,progress=inline
check "--output with lib/rpc" "${EAL[@]}" -- --test echo --transport infrc --output=latency "${S[@]}"
check "label with a blank"  "${EAL[@]}" -- --test write --label "run A" "${S[@]}"
check "label with a newline" "${EAL[@]}" -- --test write --label $'a\nb' "${S[@]}"
check "label too long"      "${EAL[@]}" -- --test write --label "$(printf 'x%.0s' $(seq 65))" "${S[@]}"
check "--json takes an option" "${EAL[@]}" -- --test write --json --verify "${S[@]}"
check "--json and --csv one file" "${EAL[@]}" -- --test write --json "$TMP/same" --csv "$TMP/same" "${S[@]}"
check "--json and -o one file" "${EAL[@]}" -- --test write --json "$TMP/same" -o "$TMP/same" "${S[@]}"
check "-o on the server"    "${EAL[@]}" -- --test write --server -o "$TMP/srv.log" "${S[@]}"
check "--json on the server" "${EAL[@]}" -- --test write --server --json "$TMP/srv.json" "${S[@]}"
check "--rate on the server" "${EAL[@]}" -- --test write --server --rate 1K "${S[@]}"
check "-r without receives" "${EAL[@]}" -- --test write -r 8 "${S[@]}"
check "-I with read"        "${EAL[@]}" -- --test read -I 32 "${S[@]}"
check "-I with --mem dm"    "${EAL[@]}" -- --test write --mem dm -I 32 "${S[@]}"
check "--keys with write"   "${EAL[@]}" -- --test write --keys 4 "${S[@]}"
check "--servers with write" "${EAL[@]}" -- --test write --servers 2 "${S[@]}"
check "--concurrent-ops with read" "${EAL[@]}" -- --test read --concurrent-ops 4 "${S[@]}"
check "-q against --qp-sweep" "${EAL[@]}" -- --test write --mode bw -q 4 --qp-sweep 1-2 "${S[@]}"
check "--mix with --sizes"  "${EAL[@]}" -- --test echo --transport infrc --mix 100:1 --sizes 1K "${S[@]}"
check "-p and HOST:PORT"    "${EAL[@]}" -- --test write --connect 127.0.0.1:1 -p 5000 "${S[@]}"
check "-l beyond -t"        "${EAL[@]}" -- --test write --mode bw -t 2 -l 8 "${S[@]}"
check "-l beyond echo's ops" "${EAL[@]}" -- --test echo --concurrent-ops 2 -l 8 "${S[@]}"
check "EAL's -l after --"    "${EAL[@]}" -- --test write -l 0-1 "${S[@]}"
if grep -q 'core list goes before "--"' "$TMP/err"; then pass "EAL's -l after --: the hint names --"
else fail "EAL's -l after --: no hint: $(cat "$TMP/err")"; fi
check "UD size beyond -m"   "${EAL[@]}" -- --test send --transport ud -m 256 -s 1024 "${S[@]}"
check "-t beyond the SQ"    "${EAL[@]}" -- --test write --mode bw -t 5000 "${S[@]}"
if grep -q -- "for -t:" "$TMP/err"; then pass "-t beyond the SQ names -t"; else fail "-t beyond the SQ: $(cat "$TMP/err")"; fi
# within max_qp_wr but not with 64 inline bytes a WQE (the software device
# refused the QP in a line of its own before rdx-perf's)
check "-t beyond the SQ with inline" "${EAL[@]}" -- --test write --mode bw -t 3000 -I 64 "${S[@]}"
if grep -q -- "for -t:.*inline" "$TMP/err"; then pass "-t beyond the SQ with inline names -t and -I"; else fail "-t beyond the SQ with inline: $(cat "$TMP/err")"; fi
# results that cannot reach standard output: one line, exit 1
timeout -k 2 30 "$PERF" "${EAL[@]}" -- --test write -n 100 "${S[@]}" >/dev/full 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "standard output" "$TMP/err"; then
    pass "stdout full: $(cat "$TMP/err")"
else
    fail "stdout full: exit $rc: $(head -c 300 "$TMP/err" | tr '\n' '|')"
fi
check "peer unreachable"    "${EAL[@]}" -- --test write --connect 127.0.0.1:1 \
                            --bootstrap-timeout 1 "${S[@]}"
port=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', $port)); s.listen(1); time.sleep(20)" &
holder=$!
for _ in $(seq 50); do  # until it listens
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
    sleep 0.1
done
check "port in use"         "${EAL[@]}" -- --test write --server -p "$port" "${S[@]}"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
port=$(free_port)
check "no client comes"     "${EAL[@]}" -- --test write --server -p "$port" \
                            --bootstrap-timeout 1 "${S[@]}"
# More memory than the software device's 2 GiB segment: a resource error
# (exit 1), still one line, and it says what bounds it.
timeout -k 2 60 "$PERF" "${EAL[@]}" -- --test echo --loopback -s 1M -q 512 -n 2 "${S[@]}" \
    >/dev/null 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "2 GiB" "$TMP/err"; then
    pass "memory beyond the sw segment: $(cat "$TMP/err")"
else
    fail "memory beyond the sw segment: exit $rc: $(head -c 300 "$TMP/err" | tr '\n' '|')"
fi
# --help is not an error: usage on stdout, exit 0, nothing on stderr.
if timeout 10 "$PERF" -- --help >"$TMP/help" 2>"$TMP/herr" && grep -q "usage: rdx-perf" "$TMP/help" &&
   [ ! -s "$TMP/herr" ]; then
    pass "--help"
else
    fail "--help"
fi
finish
