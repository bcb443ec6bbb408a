#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# RAMCloud clusterperf's matrix on lib/rpc: echo, basic.read and basic.write
# over infrc, basic+infud and homa+infud at clusterperf's five sizes (100,
# 1K, 10K, 100K, 1M), each at concurrentOps 1 / servers 1, concurrentOps 2
# and servers 2 (27 rdx-perf runs, one process each). It writes
#   OUT/clusterperf.txt   every section in clusterperf's format (rdx-perf
#                         --clusterperf: the transport, the concurrentOps
#                         line, the knob line, then the figures)
#   OUT/clusterperf.json  every figure: per run the test, transport,
#                         concurrentOps, servers, knobs, each line's name,
#                         value, unit and description, and rdx-perf's report
# and one progress line per run on stderr. About a minute on the software
# device at rdx-perf's default counts (2-core VM shared with other builds).
#   scripts/clusterperf.sh [-o OUT] [--dev NAME] [--tests LIST] [--transports LIST]
#                          [-- RDX-PERF-OPTIONS...]
# --tests and --transports (comma-separated) run part of the matrix.
# RDX-PERF-OPTIONS are added to every run, e.g. -- --mem huge (the servers'
# tables in hugepages) or -- --rpc signal=1,mtu=2048 (UD transports only:
# the runs over infrc then refuse it in one line). RDX_PERF: the binary
# (default build/apps/rdx-perf/rdx-perf); RDX_EAL: EAL options (default
# "--no-huge -l 0-1").
set -uo pipefail
cd "$(dirname "$0")/.."

usage="scripts/clusterperf.sh [-o OUT] [--dev NAME] [--tests LIST] [--transports LIST] [-- RDX-PERF-OPTIONS...]"
tests=(echo basic.read basic.write)
transports=(infrc basic+infud homa+infud)
out=clusterperf-out
dev=(--dev sw)
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    -h|--help) echo "usage: $usage"; exit 0 ;;
    -o) [ $# -ge 2 ] && [ -n "$2" ] || { echo "clusterperf.sh: -o needs a directory" >&2; exit 2; }
        out=$2; shift 2 ;;
    --dev) [ $# -ge 2 ] && [ -n "$2" ] || { echo "clusterperf.sh: --dev needs a device name" >&2; exit 2; }
        dev=(--dev "$2"); shift 2 ;;
    --tests|--transports)
        [ $# -ge 2 ] && [ -n "$2" ] || { echo "clusterperf.sh: $1 needs a comma-separated list" >&2; exit 2; }
        IFS=, read -r -a list <<<"$2"
        for x in "${list[@]}"; do
            case "$1:$x" in
            --tests:echo|--tests:basic.read|--tests:basic.write) ;;
            --transports:infrc|--transports:basic+infud|--transports:homa+infud) ;;
            *) echo "clusterperf.sh: bad value '$x' for $1 (tests: echo, basic.read, basic.write; transports: infrc, basic+infud, homa+infud)" >&2
               exit 2 ;;
            esac
        done
        if [ "$1" = --tests ]; then tests=("${list[@]}"); else transports=("${list[@]}"); fi
        shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "clusterperf.sh: unknown argument '$1' (usage: $usage)" >&2; exit 2 ;;
    esac
done
perf=${RDX_PERF:-build/apps/rdx-perf/rdx-perf}
if [ ! -x "$perf" ]; then
    echo "clusterperf.sh: no rdx-perf at $perf (build first: meson setup build && ninja -C build, or set RDX_PERF)" >&2
    exit 2
fi
read -r -a eal <<<"${RDX_EAL:---no-huge -l 0-1}"
mkdir -p "$out/runs" || { echo "clusterperf.sh: cannot create $out/runs" >&2; exit 2; }
rm -f "$out"/runs/*.out "$out"/runs/*.err "$out"/runs/*.json "$out/runs/order"

configs=("1 1" "2 1" "1 2")  # concurrentOps servers
total=$(( ${#tests[@]} * ${#transports[@]} * ${#configs[@]} ))
k=0
failed=0
t_all=$(date +%s.%N)
: >"$out/clusterperf.txt"
for test in "${tests[@]}"; do
    for t in "${transports[@]}"; do
        for cfg in "${configs[@]}"; do
            read -r conc srv <<<"$cfg"
            k=$((k + 1))
            name="$test-${t%%+*}-c$conc-s$srv"
            echo "$name" >>"$out/runs/order"
            t0=$(date +%s.%N)
            "$perf" "${eal[@]}" -- --test "$test" --transport "$t" "${dev[@]}" \
                --sizes 100,1K,10K,100K,1M --concurrent-ops "$conc" --servers "$srv" \
                --verify --clusterperf --json "$out/runs/$name.json" "${extra[@]}" \
                >"$out/runs/$name.out" 2>"$out/runs/$name.err"
            rc=$?
            secs=$(echo "$(date +%s.%N) - $t0" | bc)
            if [ $rc -eq 0 ]; then
                st=ok
            else
                st="FAILED (exit $rc: $(grep -v '^rdx-perf: rpc ' "$out/runs/$name.err" | tail -n 1))"
                failed=$((failed + 1))
            fi
            printf 'clusterperf.sh: [%2d/%d] %-11s %-11s concurrentOps %s servers %s: %.1f s %s\n' \
                "$k" "$total" "$test" "$t" "$conc" "$srv" "$secs" "$st" >&2
            # the section: from the transport's header to the status line
            awk -v t="$t" '$0 == t { p = 1 } p { print } p && /^status:/ { exit }' \
                "$out/runs/$name.out" >>"$out/clusterperf.txt"
            echo >>"$out/clusterperf.txt"
        done
    done
done
python3 - "$out" <<'EOF'
import json, os, re, sys
out = sys.argv[1]
line = re.compile(r"^(\S+) +(\d+\.\d) (ns|us|ms|s |B/s |KB/s|MB/s|GB/s) +(.*?)((?: \[SHORT\]| \[CUT\])*)$")
runs = []
for name in open(os.path.join(out, "runs", "order")).read().split():
    base = os.path.join(out, "runs", name)
    p = base + ".out"
    test, tr, c, s = re.match(r".*/(echo|basic\.read|basic\.write)-(\w+)-c(\d+)-s(\d+)$", base).groups()
    transport = {"infrc": "infrc", "basic": "basic+infud", "homa": "homa+infud"}[tr]
    run = {"test": test, "transport": transport, "concurrent_ops": int(c), "servers": int(s),
           "knobs": None, "figures": [], "status": None, "report": None}
    inside = False
    for l in open(p):
        l = l.rstrip("\n")
        if l == transport:
            inside = True
            continue
        if not inside:
            continue
        if l.startswith("status:"):
            run["status"] = l[len("status:"):].strip()
            break
        if l.startswith("# "):
            run["knobs"] = l[2:]
            continue
        m = line.match(l)
        if m:
            run["figures"].append({"name": m.group(1), "value": float(m.group(2)),
                                   "unit": m.group(3).strip(), "description": m.group(4),
                                   "short": "[SHORT]" in m.group(5), "cut": "[CUT]" in m.group(5)})
    try:
        run["report"] = json.load(open(base + ".json"))
    except (OSError, ValueError):
        pass
    runs.append(run)
json.dump({"format": "rdx clusterperf matrix", "runs": runs}, open(os.path.join(out, "clusterperf.json"), "w"),
          indent=1)
EOF
secs=$(echo "$(date +%s.%N) - $t_all" | bc)
printf 'clusterperf.sh: %d runs in %.0f s, %d failed; %s/clusterperf.txt, %s/clusterperf.json\n' \
    "$total" "$secs" "$failed" "$out" "$out" >&2
[ $failed -eq 0 ]
