#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# -e on the software device: the idle wait sleeps only when a completion is
# due. Counted, not timed: the software device's rdx_cq_wait sleeps with
# futex(2) (strace -c counts the calls), so a wait that sleeps to its 1 ms
# bound per WR (what -e did on streams with an unsignaled tail: 63 MB/s at
# 64 KB) shows as thousands of calls for 4000 WRs; the runs must also
# verify. EAL's threads and rdx-perf's main lcore sleep with
# clock_nanosleep in proportion to the run's length (more under ASan or
# load): those are printed, not checked. With progress=thread the waits
# for the engine thread are futex calls too: that shape is only verified.
source "$(dirname "$0")/lib.sh"

if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
    echo "SKIP: strace missing or ptrace not allowed here: the sleeps cannot be counted"
    exit 77
fi
# LeakSanitizer cannot run under ptrace: an ASan build counts its sleeps
# without it (the other func tests check leaks)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
N=4000
MAXSLEEPS=$((N / 4))
for spec in "write bw 64K" "write bw 8" "send bw 4K" "read bw 64K" "write lat 8" "echo lat 100" \
            "write bw 4K progress=thread"; do
    set -- $spec
    t=$1 m=$2 s=$3 dev=sw
    [ $# -gt 3 ] && dev="sw:$4"
    name="$t-$m-$s${4:+-$4}"
    if timeout -k 5 240 strace -f -c -e trace=futex,nanosleep,clock_nanosleep -o "$TMP/$name.st" \
            "$PERF" "${EAL[@]}" -- --test "$t" --mode "$m" -s "$s" -n $N --dev "$dev" -e --verify \
            --json "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err"; then
        sleeps=$(awk '$NF == "futex" { s += $4 } END { print s + 0 }' "$TMP/$name.st")
        naps=$(awk '$NF ~ /nanosleep$/ { s += $4 } END { print s + 0 }' "$TMP/$name.st")
        events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["knobs"].get("events"))' \
                 "$TMP/$name.json")
        if [ "$events" != "on" ]; then
            fail "-e $name: the report says events=$events"
        elif [ "$dev" = sw ] && [ "$sleeps" -gt $MAXSLEEPS ]; then
            fail "-e $name: $sleeps futex sleeps for $N WRs (at most $MAXSLEEPS expected; $naps nanosleeps elsewhere)"
        else
            pass "-e $name: verified, $sleeps futex sleeps for $N WRs ($naps nanosleeps of other threads)"
        fi
    else
        fail "-e $name: $(tail -n 2 "$TMP/$name.err" | tr '\n' '|')"
    fi
done
finish
