#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What slows the run after an rdx-perf run (doc/perf.md, "What the
# write-lat gap is not"): inside the soft-RoCE guest, perftest's write
# latency measured right after each of several preceding steps, in a
# plain shell loop (a measurement, not a pass/fail test):
#
#   none      nothing (the step before is the previous perftest run)
#   eal       rdx-perf's EAL start-up and cleanup only (--dev nosuchdev
#             fails right after rte_eal_init)
#   sw        an rdx-perf write-lat loopback run on the software device
#             (EAL, the device model, -n ITERS; no rxe)
#   rxe-open  an rdx-perf server on rxe1 that opens the device, waits 2 s
#             for a client that never comes and exits
#   rxe-pair  an rdx-perf write-lat pair on rxe (as tests/softroce/side_by_side.py runs it)
#   perftest  an ib_write_lat pair on rxe whose figure is not kept
#
#   tests/softroce/guest-run.sh "bash bench/softroce/after_probe.sh RDX_PERF [ROUNDS] [ITERS] [STEPS]" 1800
#
# Each round runs every step (the order rotates from round to round), each
# followed by one measured ib_write_lat pair (8 B, -n ITERS, default 20000;
# server on vCPU 1, client on vCPU 0). Prints each measured run, then per
# step the median of the perftest medians that followed it. STEPS: a
# comma-separated subset (default all). Exit 77 outside the guest.
set -uo pipefail
P=${1:?usage: after_probe.sh RDX_PERF [ROUNDS] [ITERS] [STEPS]}
R=${2:-8}
N=${3:-20000}
STEPS=${4:-none,eal,sw,rxe-open,rxe-pair,perftest}
[ -x "$P" ] || { echo "after_probe: no executable $P" >&2; exit 2; }
[[ "$R" =~ ^[1-9][0-9]*$ ]] || { echo "after_probe: ROUNDS is a positive number, not '$R'" >&2; exit 2; }
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "after_probe: ITERS is a positive number, not '$N'" >&2; exit 2; }
IFS=, read -r -a S <<<"$STEPS"
for s in "${S[@]}"; do
    case $s in none|eal|sw|rxe-open|rxe-pair|perftest) ;;
    *) echo "after_probe: unknown step '$s' (none eal sw rxe-open rxe-pair perftest)" >&2; exit 2 ;;
    esac
done
# probe_need_rxe, probe_median, probe_wait_ready (and the counters)
. "$(dirname "$0")/../../tests/softroce/guest_lib.sh"
probe_need_rxe after_probe
tmp=$(mktemp -d /tmp/rdxafter.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
port=${RDX_AFTER_PORT:-19900}

perftest_pair() { # output file of the client
    local spid
    port=$((port + 1))
    timeout -k 5 120 taskset -c 1 ib_write_lat -x 1 -F -p "$port" -s 8 -n "$N" -d rxe1 >"$tmp/ps" 2>&1 &
    spid=$!
    probe_wait_ready "$tmp/ps" "$spid" perftest
    timeout -k 5 120 taskset -c 0 ib_write_lat -x 1 -F -p "$port" -s 8 -n "$N" -d rxe0 127.0.0.1 >"$1" 2>&1
    wait "$spid"
}

step() {
    local spid o
    port=$((port + 1))
    case $1 in
    none) ;;
    eal) timeout -k 5 60 "$P" -l 0 -- --dev nosuchdev >/dev/null 2>&1 ;;
    sw) timeout -k 5 120 "$P" -l 0 -- --test write --mode lat -s 8 -n "$N" --loopback --dev sw \
            >/dev/null 2>&1 ;;
    rxe-open) timeout -k 5 60 "$P" -l 1 -- --test write --mode lat -s 8 -n "$N" -p "$port" \
            --server --dev rxe1 --bootstrap-timeout 2 >/dev/null 2>&1 ;;
    rxe-pair)
        o=(--test write --mode lat -s 8 -n "$N" -p "$port" --bootstrap-timeout 60)
        timeout -k 5 120 "$P" -l 1 -- "${o[@]}" --server --dev rxe1 >"$tmp/rs" 2>&1 &
        spid=$!
        probe_wait_ready "$tmp/rs" "$spid" rdx
        timeout -k 5 120 "$P" -l 0 -- "${o[@]}" --dev rxe0 --connect "127.0.0.1:$port" >/dev/null 2>&1
        wait "$spid" ;;
    perftest) perftest_pair "$tmp/junk" ;;
    esac
}

echo "after_probe: ib_write_lat 8 B -n $N after each of: ${S[*]}; $R rounds; kernel $(uname -r); $(nproc) vCPUs"
: >"$tmp/all"
for i in $(seq "$R"); do
    k=$(( (i - 1) % ${#S[@]} ))
    for j in $(seq 0 $(( ${#S[@]} - 1 ))); do
        s=${S[$(( (k + j) % ${#S[@]} ))]}
        step "$s"
        perftest_pair "$tmp/c"
        m=$(probe_median "$tmp/c")
        printf 'round %2d  after %-9s ib_write_lat median %s us\n' "$i" "$s" "${m:--}"
        [ -n "$m" ] && echo "$s $m" >>"$tmp/all"
    done
done
echo "per step: median of the perftest medians that followed it (runs, min, max)"
for s in "${S[@]}"; do
    awk -v s="$s" '$1 == s { v[n++] = $2 } END {
        if (n == 0) { printf "  %-9s no runs\n", s; exit }
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
        printf "  after %-9s n=%-3d median %7.2f us  min %7.2f  max %7.2f\n", s, n, m, v[0], v[n - 1] }' "$tmp/all"
done
