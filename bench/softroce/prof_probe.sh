#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where each vCPU's time goes during a write-lat run, perftest beside
# rdx-perf, inside the soft-RoCE guest (a measurement, not a pass/fail
# test; doc/perf.md "What the write-lat gap is not"): `perf record -e
# cpu-clock -a` (a software event: no hardware counters under TCG) over a
# window inside the measured loop (RDX_PROF_START s after the client's
# start, default 4, for RDX_PROF_WINDOW s, default 2), then per tool the
# share of samples by CPU, command and kernel/user symbol.
#
#   tests/softroce/guest-run.sh "bash bench/softroce/prof_probe.sh RDX_PERF [ROUNDS] [ITERS] [FREQ]" 1800
#
# ROUNDS (default 2) of one perftest and one rdx-perf run (who goes first
# alternates), 8 B, -n ITERS (default 300000, ~12 s); servers on vCPU 1, clients
# on vCPU 0, as tests/softroce/side_by_side.py pins them. FREQ: samples per second and
# CPU (default 4000). Exit 77 outside the guest.
set -uo pipefail
P=${1:?usage: prof_probe.sh RDX_PERF [ROUNDS] [ITERS] [FREQ]}
R=${2:-2}
N=${3:-300000}
F=${4:-4000}
W0=${RDX_PROF_START:-4}     # seconds from the client's start to the window
W=${RDX_PROF_WINDOW:-2}     # the window's length
[ -x "$P" ] || { echo "prof_probe: no executable $P" >&2; exit 2; }
for v in "$R" "$N" "$F"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "prof_probe: '$v' is not a positive number" >&2; exit 2; }
done
for v in "$W0" "$W"; do
    [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ "$v" =~ [1-9] ]] ||
        { echo "prof_probe: RDX_PROF_START and RDX_PROF_WINDOW are seconds > 0, not '$v'" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "prof_probe: no perf (apt-get install linux-perf)"; exit 77; }
# probe_need_rxe, probe_median, probe_wait_ready (and the counters)
. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"
probe_need_rxe prof_probe
tmp=$(mktemp -d /tmp/rdxprof.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
port=${RDX_PROF_PORT:-19700}
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null

one() { # kind round
    local kind=$1 spid cpid crc inside c0 c1 t0 t1 data="$tmp/$1.$2.data"
    port=$((port + 1))
    if [ "$kind" = rdx-perf ]; then
        local o=(--test write --mode lat -s 8 -n "$N" -p "$port" --bootstrap-timeout 60)
        timeout -k 5 120 "$P" -l 1 -- "${o[@]}" --server --dev rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" rdx
        timeout -k 5 120 "$P" -l 0 -- "${o[@]}" --dev rxe0 --connect "127.0.0.1:$port" \
            >"$tmp/c" 2>"$tmp/ce" &
        cpid=$!
    else
        local o=(-x 1 -F -p "$port" -s 8 -n "$N")
        timeout -k 5 120 taskset -c 1 ib_write_lat "${o[@]}" -d rxe1 >"$tmp/s" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/s" "$spid" perftest
        timeout -k 5 120 taskset -c 0 ib_write_lat "${o[@]}" -d rxe0 127.0.0.1 >"$tmp/c" 2>"$tmp/ce" &
        cpid=$!
    fi
    # a window inside the measured loop: after the start-up, before the end
    sleep "$W0"
    # context switches over the window, the whole guest (/proc/stat ctxt)
    c0=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
    t0=$(date +%s.%N)
    perf record -q -e cpu-clock -F "$F" -a -o "$data" -- sleep "$W" >/dev/null 2>&1
    c1=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
    t1=$(date +%s.%N)
    echo "$c0 $c1 $t0 $t1" >"$tmp/$kind.$2.ctxt"
    kill -0 "$cpid" 2>/dev/null && inside=yes || inside="NO (the client ended first)"
    wait "$cpid"
    crc=$?
    wait "$spid"
    [ "$crc" = 0 ] || cat "$tmp/ce"
    echo "round $2 $kind: window inside the run: $inside"
    probe_median "$tmp/c" >"$tmp/$kind.$2.median"
    printf 'round %d %-8s median %6s us exit %d\n' "$2" "$kind" "$(cat "$tmp/$kind.$2.median")" "$crc"
    # per round trip (2 x the median): the window's context switches,
    # perf's own start and exit included (they take most of it: 13-24 s)
    awk -v m="$(cat "$tmp/$kind.$2.median")" -v k="$kind" -v r="$2" '{
        d = $2 - $1; t = $4 - $3
        if (m + 0 > 0) printf "round %d %-8s context switches in the window: %d in %.2f s, %.4f per round trip\n",
            r, k, d, t, d / (t * 1e6 / (2 * m)) }' "$tmp/$kind.$2.ctxt"
}

echo "prof_probe: write lat, 8 B, -n $N, $R rounds, perf cpu-clock -F $F -a; kernel $(uname -r)"
for i in $(seq "$R"); do
    if [ $((i % 2)) = 1 ]; then one perftest "$i"; one rdx-perf "$i"; else one rdx-perf "$i"; one perftest "$i"; fi
done
for kind in perftest rdx-perf; do
    for i in $(seq "$R"); do
        d="$tmp/$kind.$i.data"
        [ -s "$d" ] || continue
        # per CPU: the share of the window in the kernel and in user space
        # of the tool's own processes, and the rest (idle, perf, others)
        perf report -i "$d" --stdio --sort cpu,comm,dso -q -t '|' 2>/dev/null |
            awk -F'|' -v k="$kind" -v r="$i" -v m="$(cat "$tmp/$kind.$i.median")" '
                { p = $1; gsub(/[ %]/, "", p); c = $2 + 0; comm = $3; gsub(/ /, "", comm)
                  tool = (comm == "rdx-perf" || comm == "ib_write_lat")
                  if (tool && $4 ~ /kernel/) kern[c] += p; else if (tool) user[c] += p; else other[c] += p }
                END { for (c = 0; c < 2; c++)
                    printf "split %-8s round %d cpu %d: kernel %5.1f%%  user %5.1f%%  other %5.1f%%  | median %s us: kernel %.2f us per round trip (one post)\n",
                        k, r, c, kern[c] * 2, user[c] * 2, other[c] * 2, m, kern[c] * 2 / 100 * 2 * m }'
    done
done
# RDX_PROF_OUT=DIR: each round's whole profile (CPU, command, symbol) and
# median there, for a comparison symbol by symbol outside the guest
if [ -n "${RDX_PROF_OUT:-}" ]; then
    mkdir -p "$RDX_PROF_OUT"
    for kind in perftest rdx-perf; do
        for i in $(seq "$R"); do
            d="$tmp/$kind.$i.data"
            [ -s "$d" ] || continue
            cp "$tmp/$kind.$i.median" "$RDX_PROF_OUT/$kind.$i.median"
            perf report -i "$d" --stdio --sort cpu,comm,sym -q -t '|' >"$RDX_PROF_OUT/$kind.$i.txt" 2>/dev/null
        done
    done
fi
for kind in perftest rdx-perf; do
    for i in $(seq "$R"); do
        d="$tmp/$kind.$i.data"
        [ -s "$d" ] || continue
        echo "=== $kind round $i: kernel symbols of the tool's processes, per CPU (top 30)"
        perf report -i "$d" --stdio --sort cpu,comm,sym -q 2>/dev/null |
            grep -E ' (rdx-perf|ib_write_lat) .*\[k\]' | head -30
    done
done
