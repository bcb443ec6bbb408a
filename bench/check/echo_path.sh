#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/echo_path.py on stamp files written here (no stamp build needed):
# each segment's median, in ns from the files' TSC rate, over the requests
# after the first tenth; the round trip and the sum of the medians; counts
# that do not line up, a missing kind, a bad line, a missing file and a
# wrong argument count exit 2 with one line.
source "$(dirname "$0")/lib.sh"

EP=$SRC/bench/echo_path.py
# 20 requests at a 1 GHz TSC (1 tick = 1 ns): request i posted at 1000 i;
# the requester's engine writes the peer's CQE 100 ns later (150 in the
# first two: warm-up, left out), the responder polls it 40 ns after that,
# posts 10 ns later, its engine writes our CQE 90 ns later, our poll 30 ns
# after that: a round trip of 270 ns
req_file() { # FILE [COUNT_OF_KIND_4]
    local n4=${2:-20}
    {
        echo "tsc_hz 1000000000"
        echo "kind 0 20"; for i in $(seq 0 19); do echo $((1000 * i)); done
        echo "kind 1 20"; for i in $(seq 0 19); do echo $((1000 * i + (i < 2 ? 150 : 100))); done
        echo "kind 2 0"
        echo "kind 3 0"
        echo "kind 4 $n4"; for i in $(seq 0 $((n4 - 1))); do echo $((1000 * i + (i < 2 ? 320 : 270))); done
    } >"$1"
}
{
    echo "tsc_hz 1000000000"
    echo "kind 0 0"
    echo "kind 1 20"; for i in $(seq 0 19); do echo $((1000 * i + (i < 2 ? 290 : 240))); done
    echo "kind 2 20"; for i in $(seq 0 19); do echo $((1000 * i + (i < 2 ? 190 : 140))); done
    echo "kind 3 20"; for i in $(seq 0 19); do echo $((1000 * i + (i < 2 ? 200 : 150))); done
    echo "kind 4 0"
} >"$TMP/rsp.1"
req_file "$TMP/req.1"
python3 "$EP" "$TMP/req.1" "$TMP/rsp.1" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] && pass "two stamp files: exit 0" || fail "two stamp files: exit $rc ($(cat "$TMP/err"))"
want '^18 requests \(the first 2 left out\)' "the first tenth left out"
want '^  req post -> peer CQE +100\.0 +100\.0 +100\.0$' "the requester's post to the peer's CQE: 100 ns"
want '^  peer CQE -> resp poll +40\.0 +40\.0 +40\.0$' "the CQE to the responder's poll: 40 ns"
want '^  resp poll -> resp post +10\.0 +10\.0 +10\.0$' "the responder's app: 10 ns"
want '^  resp post -> peer CQE +90\.0 +90\.0 +90\.0$' "the responder's post to our CQE: 90 ns"
want '^  peer CQE -> req poll +30\.0 +30\.0 +30\.0$' "our CQE to our poll: 30 ns"
want '^  round trip +270\.0 +270\.0 +270\.0  \(sum of the medians 270\.0\)$' "the round trip and the sum"

bad() { # WHAT REGEX ARGS...
    local what=$1 re=$2
    shift 2
    python3 "$EP" "$@" >/dev/null 2>"$TMP/e"
    local rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -Eq -- "$re" "$TMP/e"; then pass "$what: exit 2, one line"
    else fail "$what: exit $rc, stderr: $(cat "$TMP/e")"; fi
}
req_file "$TMP/req.2" 19
bad "a kind with one stamp fewer" "stamp counts differ" "$TMP/req.2" "$TMP/rsp.1"
bad "the responder's file as both" "no stamps of kind 0" "$TMP/rsp.1" "$TMP/rsp.1"
sed '3s/.*/12x/' "$TMP/req.1" >"$TMP/req.3"
bad "a bad number" "not a number" "$TMP/req.3" "$TMP/rsp.1"
head -n 5 "$TMP/req.1" >"$TMP/req.4"
bad "a file cut short" "fewer than its count" "$TMP/req.4" "$TMP/rsp.1"
bad "a missing file" "cannot read" "$TMP/nowhere" "$TMP/rsp.1"
bad "one argument" "usage" "$TMP/req.1"
finish
