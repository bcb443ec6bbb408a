#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's first command: install what is missing, build into build/,
# then run the default rdx-perf suite on the default device (the first RDMA
# device, else the software mlx5 device, labelled so in every table):
#   echo RPCs at the clusterperf sizes, write and read latency and bandwidth
#   from 8 B to 1 MB, cas and faa on one key and on many; then the mlx5
#   datapath's instructions per operation (bench/callgrind.sh); between them
#   the cross-process echo beside a cache-line ping-pong and a TCP loopback
#   request/response, with the ratios (bench/echo_calib.sh), and the software
#   device's two-lcore scaling (bench/sw_scaling.sh).
# Each run's tables go to stdout and its JSON report to out/<run>.json.
# Every row (one size of one run) is timed, -D 0.25 s after a 1000-op
# warm-up (1 MB rows: -D 1, so that they too complete >= 1000 ops): long enough that one scheduler preemption (a few ms on a shared
# machine) moves a row by a few percent, not several times as it did with
# the former 2000-op (~1 ms) rows; rdx-perf flags rows under 0.1 s or
# 1000 ops SHORT. 42 rows, about 24 s of runs; 35-50 s in all with the
# callgrind counts on the 2-core VM at load average 7-11 (doc/perf.md), plus
# the echo calibration and the scaling pairs (3 rounds each: 20-40 s at load
# 7, several minutes at load 15: two busy-polling processes must both run).
# --quick: -D 0.02 (every row flagged SHORT: a smoke test, not figures; one
# calibration round of 20000 echoes, one scaling pair).
#   scripts/bench.sh [--dev NAME] [--quick]    (EAL options: RDX_EAL="-l 0-3")
# The device (--dev, or the default) is checked first with one short
# rdx-perf run (a write, -n 1): a name it refuses stops the script with one
# line, exit 2, before the rest is built. On an mlx5 NIC rdx-selfcheck then
# runs on it, and a device that fails it gets no figures (exit 1, the
# failing rows named; out/selfcheck.json). The reports of this suite's runs
# left in out/ by an earlier run are removed before the runs start, so the
# summary shows only this run's.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="scripts/bench.sh [--dev NAME] [--quick]  (RDX_EAL, RDX_BUILD, RDX_NO_SETUP in the environment)"
dev=()
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
    -h|--help) echo "usage: $usage"; exit 0 ;;
    --dev) [ $# -ge 2 ] || { echo "bench.sh: --dev needs a device name" >&2; exit 2; }
           [ ${#dev[@]} -eq 0 ] || { printf "bench.sh: --dev given twice ('%s', then '%s')\n" "${dev[1]}" "${2//$'\n'/^J}" >&2; exit 2; }
           case "$2" in
           ''|*[!!-~]*) printf "bench.sh: --dev needs a device name (one word, e.g. sw or mlx5_0), got '%s'\n" \
                            "${2//$'\n'/^J}" >&2; exit 2 ;;
           esac
           dev=(--dev "$2"); shift ;;
    --quick) quick=1 ;;
    *) printf "bench.sh: unknown option '%s' (usage: %s)\n" "${1//$'\n'/^J}" "$usage" >&2; exit 2 ;;
    esac
    shift
done

[ -n "${RDX_NO_SETUP:-}" ] || bash scripts/setup.sh   # RDX_NO_SETUP=1: skip the package check
build=${RDX_BUILD:-build}   # another build dir: RDX_BUILD=/tmp/b scripts/bench.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" -j "$(nproc)" apps/rdx-perf/rdx-perf

perf=$build/apps/rdx-perf/rdx-perf
read -r -a eal <<<"${RDX_EAL:--l 0-1}"

# The device check: one write of one WR on the device the suite will use,
# before the rest is built and before the 16 runs (each would print its
# own error). rdx-perf's own message (its last line on stderr; the lines
# before it are notices) is passed on as one line.
probe_err=$(mktemp)
probe_json=$(mktemp)
trap 'rm -f "$probe_err" "$probe_json"' EXIT
probe=("$perf" "${eal[@]}" -- --test write -n 1 "${dev[@]}" --json "$probe_json")
probe_rc=0
timeout -k 5 60 "${probe[@]}" >/dev/null 2>"$probe_err" || probe_rc=$?
if [ $probe_rc -ne 0 ]; then
    why=$(sed '/^[[:space:]]*$/d' "$probe_err" | tail -n 1)
    [ $probe_rc -ne 124 ] || why="no answer in 60 s"
    if [ $probe_rc -eq 2 ]; then
        echo "bench.sh: device check refused (${dev[*]:-default device}): ${why:-rdx-perf exit 2} [rdx-perf ${eal[*]} -- --test write -n 1 ${dev[*]}]" >&2
        exit 2
    fi
    echo "bench.sh: device check failed, exit $probe_rc (${dev[*]:-default device}): ${why:-no message} [rdx-perf ${eal[*]} -- --test write -n 1 ${dev[*]}]" >&2
    exit 1
fi

# The self-check gate (doc/getting-started.md, "On a machine with a
# ConnectX NIC"): when the device check ran on the mlx5 driver (its report's
# knobs), rdx-selfcheck checks that device first, and a device that fails
# it gets no figures: its failing rows are named (the JSON report is
# out/selfcheck.json) and the script stops, exit 1. The software device and
# the verbs driver are checked in CI instead (tests/func, tests/softroce).
read -r sc_driver sc_name < <(python3 -c 'import json, sys
try:
    k = json.load(open(sys.argv[1]))["knobs"]
    print(k.get("driver", "-"), k.get("dev", "-"))
except Exception:
    print("- -")' "$probe_json")
if [ "$sc_driver" = mlx5 ]; then
    sc_dev=${dev[1]:-$sc_name}
    ninja -C "$build" -j "$(nproc)" apps/rdx-selfcheck/rdx-selfcheck
    mkdir -p out
    rm -f out/selfcheck.json
    echo "=== self-check: rdx-selfcheck ${eal[*]} -- --dev $sc_dev --json out/selfcheck.json"
    sc_rc=0
    timeout -k 5 600 "$build/apps/rdx-selfcheck/rdx-selfcheck" "${eal[@]}" -- --dev "$sc_dev" \
        --json out/selfcheck.json || sc_rc=$?
    if [ $sc_rc -ne 0 ]; then
        sc_rows=$(python3 -c 'import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print(" ".join(c["check"] for d in r["devices"] for c in d["checks"] if c["verdict"] == "fail"))
except Exception:
    pass' out/selfcheck.json)
        echo "bench.sh: $sc_dev failed the self-check (${sc_rows:-exit $sc_rc}): no figures for it; send out/selfcheck.json (doc/getting-started.md)" >&2
        exit 1
    fi
fi

ninja -C "$build" -j "$(nproc)" bench/cacheline_pingpong bench/tcp_pingpong
mkdir -p out
dur=0.25                               # seconds per row (doc/perf.md)
dur_1m=1                               # 1 MB rows: >= 1000 ops even at ~1 GB/s
[ $quick -eq 1 ] && { dur=0.02; dur_1m=0.02; }
sizes=8,64,512,4K,32K,256K            # and 1M in runs of their own (-D $dur_1m)
failed=()
runs=(echo echo-c4 write-lat write-lat-1m write-bw write-bw-1m read-lat read-lat-1m read-bw read-bw-1m
      cas-1key cas-4kkeys faa-1key faa-4kkeys cas-lat faa-lat)
# an earlier run's reports are not this run's: removed before the runs (a
# run that fails writes none), and the summary reads only the runs made here
for name in "${runs[@]}"; do rm -f "out/$name.json"; done
ran=()
start=$(date +%s)

bench() { # name, rdx-perf app options... (name: one of runs, removed above)
    local name=$1; shift
    [[ " ${runs[*]} " == *" $name "* ]] || { echo "bench.sh: run '$name' is not in the runs list" >&2; exit 1; }
    ran+=("$name")
    echo
    echo "=== $name: rdx-perf ${eal[*]} -- $* ${dev[*]}"
    if ! "$perf" "${eal[@]}" -- "$@" "${dev[@]}" --json "out/$name.json"; then
        failed+=("$name")
    fi
}

bench echo       --test echo --mode lat -D $dur
bench echo-c4    --test echo --mode bw --sizes 100,1K,10K --concurrent-ops 4 -D $dur
bench write-lat  --test write --mode lat --sizes $sizes -D $dur
bench write-lat-1m --test write --mode lat -s 1M -D $dur_1m
bench write-bw   --test write --mode bw --sizes $sizes -D $dur -t 32 -Q 8 --report_gbits
bench write-bw-1m --test write --mode bw -s 1M -D $dur_1m -t 32 -Q 8 --report_gbits
bench read-lat   --test read --mode lat --sizes $sizes -D $dur
bench read-lat-1m --test read --mode lat -s 1M -D $dur_1m
bench read-bw    --test read --mode bw --sizes $sizes -D $dur -t 32 -Q 8 --report_gbits
bench read-bw-1m --test read --mode bw -s 1M -D $dur_1m -t 32 -Q 8 --report_gbits
bench cas-1key   --test cas --mode bw --keys 1 -q 4 -t 8 -D $dur --verify
bench cas-4kkeys --test cas --mode bw --keys 4096 -q 4 -t 8 -D $dur --verify
bench faa-1key   --test faa --mode bw --keys 1 -q 4 -t 8 -D $dur --verify
bench faa-4kkeys --test faa --mode bw --keys 4096 -q 4 -t 8 -D $dur --verify
bench cas-lat    --test cas --mode lat --keys 1 -D $dur
bench faa-lat    --test faa --mode lat --keys 1 -D $dur

echo
echo "=== summary (total rows, perftest's units: latency in usec of the kind shown, t_typical = median; MiB = 2^20 bytes; MsgRate in 10^6 ops/s; SHORT: < 0.1 s or < 1000 ops)"
reports=()
for name in "${ran[@]}"; do reports+=("out/$name.json"); done
python3 - "${reports[@]}" <<'PY'
import json, os, sys
print("%-12s %-9s %-5s %8s %3s %-22s %15s %9s %13s %11s %10s %s" % (
    "run", "test", "mode", "#bytes", "qps", "lat_kind", "t_typical[usec]", "99%[usec]",
    "MsgRate[Mpps]", "BW[MiB/s]", "#iters", "note"))
dev = None
missing = []
for path in sys.argv[1:]:
    name = os.path.basename(path)[:-5]
    # removed before the runs: a file here was written by this run
    if not os.path.exists(path):
        missing.append(name)
        continue
    try:
        with open(path) as f:
            rep = json.load(f)
        knobs = rep["knobs"]
        dev = "%s (%s)" % (knobs.get("dev", "?"), knobs.get("device_kind", "?"))
        for r in rep["results"]:
            if r["lcore"] != -1:
                continue
            lat = r["lat"] or {}
            f = lambda v: "-" if v is None else "%.2f" % (v / 1000.0)
            bps = r.get("bytes_per_s")
            if bps is None:
                bps = (r["mbytes_per_s"] or 0) * 1e6
            print("%-12s %-9s %-5s %8d %3d %-22s %15s %9s %13.3f %11.1f %10d %s" % (
                name, r["test"], r["mode"], r["size"], r["qps"],
                r["lat_kind"], f(lat.get("p50")), f(lat.get("p99")), r["mops"] or 0,
                bps / 2**20, r["ops"], "SHORT" if r.get("short_run") else ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        print("%-12s (report unreadable: %s: %s)" % (name, type(e).__name__, e))
if missing:
    print("no report from: %s" % " ".join(missing))
print("device: %s" % (dev or "? (no report written by this run)"))
PY
echo
echo "=== cross-process echo beside a cache-line ping-pong and TCP loopback (bench/echo_calib.sh; doc/perf.md)"
calib_rounds=3
[ $quick -eq 1 ] && calib_rounds=1
if ! N=$([ $quick -eq 1 ] && echo 20000 || echo 200000) bench/echo_calib.sh "$build" $calib_rounds "${dev[@]}"; then
    failed+=(echo_calib)
fi
echo
echo "=== software device: two worker lcores against one (bench/sw_scaling.sh; doc/perf.md)"
if ! bench/sw_scaling.sh "$build" $calib_rounds; then
    failed+=(sw_scaling)
fi
echo
echo "=== mlx5 datapath cost (callgrind, driver functions only; doc/perf.md)"
if ! bench/callgrind.sh "$build" $([ $quick -eq 1 ] && echo 2000 || echo 20000); then
    failed+=(callgrind)
fi
echo
echo "=== lib/rpc cost per call (callgrind, 8-byte echo, both ends; doc/perf.md)"
if ! bench/rpc_cost.sh "$build" $([ $quick -eq 1 ] && echo 500 || echo 5000); then
    failed+=(rpc_cost)
fi
echo "bench.sh: $(( $(date +%s) - start )) s; JSON reports in out/"
if [ ${#failed[@]} -ne 0 ]; then
    echo "bench.sh: failed: ${failed[*]}" >&2
    exit 1
fi
