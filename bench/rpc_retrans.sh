#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lib/rpc retransmissions on the software device: rdx-perf echo over each UD
# transport (basic+infud, homa+infud), clusterperf's response sizes, 1, 2
# and 4 calls in flight, in one process and in two (--server/--connect),
# with no loss and with RETRANS_DROP (default 0.02) of the UD datagrams
# dropped (sw:ud_drop). One row per transport, processes, calls in flight
# and size: the calls that completed and failed, the data packets they
# took (a 30-byte request and the response's ceil(size / mtu) packets),
# the retransmissions as a percentage of those, and p99 without and with
# loss with their ratio. The last lines check the figures: no loss, every
# row at most 1% retransmissions; with loss, every call completed and
# every p99 within 3x of the row's no-loss p99.
#
#   bench/rpc_retrans.sh [BUILD_DIR]
#   RETRANS_N=200 calls per size, RETRANS_LOAD=1 adds two busy loops for the
#   run, RETRANS_PERF=path/to/rdx-perf (default BUILD_DIR/apps/rdx-perf/rdx-perf)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/rpc_retrans.sh [BUILD_DIR]  (RETRANS_N, RETRANS_DROP, RETRANS_LOAD, RETRANS_PERF in the environment)"
bench_usage "$usage" "${1-}"
bench_maxargs 1 "$usage" "$@"
build=${1:-build}
n=${RETRANS_N:-200}
bench_posint RETRANS_N "$n"
drop=${RETRANS_DROP:-0.02}
case $drop in
    *[!0-9.]*|*.*.*) bench_fail "RETRANS_DROP must be a probability 0.x above 0, got '$(bench_show "$drop")'" ;;
    0.[0-9]*[1-9]*) ;;
    *) bench_fail "RETRANS_DROP must be a probability 0.x above 0, got '$(bench_show "$drop")'" ;;
esac
case ${RETRANS_LOAD:-0} in
    0|1) ;;
    *) bench_fail "RETRANS_LOAD must be 0 or 1, got '$(bench_show "$RETRANS_LOAD")'" ;;
esac
perf=${RETRANS_PERF:-$build/apps/rdx-perf/rdx-perf}
[ -x "$perf" ] || bench_fail "no rdx-perf at '$(bench_show "$perf")' (build first, or set RETRANS_PERF)"
sizes=100,1K,10K,100K,1M
tmp=$(mktemp -d)
busy=()
cleanup() {
    local p
    for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
if [ "${RETRANS_LOAD:-0}" = 1 ]; then
    timeout 900 sh -c 'while :; do :; done' & busy+=($!)
    timeout 900 sh -c 'while :; do :; done' & busy+=($!)
fi

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# one_run NAME DEV ARGS...: rdx-perf echo, one process or two (PROCS);
# stderr of the client in $tmp/NAME.err, its JSON report in $tmp/NAME.json
one_run() {
    local name=$1 dev=$2; shift 2
    local common=(--test echo --dev "$dev" --sizes "$sizes" -n "$n" --warmup $((n / 10 + 1))
                  --rpc call_timeout_us=30000000 "$@")
    if [ "$PROCS" = one ]; then
        timeout -k 5 300 "$perf" --no-huge -l 0-1 -- "${common[@]}" --json "$tmp/$name.json" \
            >"$tmp/$name.out" 2>"$tmp/$name.err" || true
    else
        local port; port=$(free_port)
        timeout -k 5 300 "$perf" --no-huge -l 0 -- --server -p "$port" --bootstrap-timeout 60 \
            "${common[@]}" >"$tmp/$name.s.out" 2>"$tmp/$name.s.err" &
        local spid=$!
        timeout -k 5 300 "$perf" --no-huge -l 1 -- --connect "127.0.0.1:$port" --bootstrap-timeout 60 \
            "${common[@]}" --json "$tmp/$name.json" >"$tmp/$name.out" 2>"$tmp/$name.err" || true
        wait "$spid" || true
    fi
}

echo "rdx-perf: $perf; $n calls per size; loss runs: sw:ud_drop=$drop; busy loops: ${#busy[@]}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %-4s %2s %7s | %6s %4s %8s %6s %6s | %6s %4s %10s %10s %6s\n' \
    transport proc q size calls fail data_pkts retx retx% l_call l_fl p99_us l_p99_us ratio
for t in basic+infud homa+infud; do
    for PROCS in one two; do
        for q in 1 2 4; do
            one_run "$t-$PROCS-$q" sw --transport "$t" --concurrent-ops "$q"
            one_run "$t-$PROCS-$q-loss" "sw:ud_drop=$drop" --transport "$t" --concurrent-ops "$q"
            python3 - "$tmp/$t-$PROCS-$q" "$t" "$PROCS" "$q" <<'EOF'
import json, re, sys, math
base, t, procs, q = sys.argv[1:]
SIZES = {"100": 100, "1K": 1024, "10K": 10240, "100K": 102400, "1M": 1048576}
def load(p):
    lines = {}
    try:
        for l in open(p + ".err"):
            m = re.match(r"rdx-perf: rpc \S+ (\S+): calls ok (\d+) failed (\d+); retransmits (\d+)", l)
            if m:
                lines[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    except OSError:
        pass
    p99, mtu = {}, 4064
    try:
        r = json.load(open(p + ".json"))
        mtu = int(r["knobs"].get("rpc_mtu", "4064").split()[0])
        for x in r["results"]:
            if x["lcore"] == -1:
                p99[x["name"][len("echo"):]] = x["lat"]["p99"]
    except (OSError, ValueError, KeyError):
        pass
    return lines, p99, mtu
a, ap, mtu = load(base)
b, bp, _ = load(base + "-loss")
for s, sz in SIZES.items():
    ok, fail, retx = a.get(s, (0, -1, 0))
    lok, lfail, _ = b.get(s, (0, -1, 0))
    data = ok * (1 + math.ceil(sz / mtu))
    pct = 100.0 * retx / data if data else float("nan")
    p, lp = ap.get(s, float("nan")) / 1000, bp.get(s, float("nan")) / 1000
    ratio = lp / p if p == p and p > 0 else float("nan")
    print("%-12s %-4s %2s %7s | %6d %4d %8d %6d %6.2f | %6d %4d %10.1f %10.1f %6.2f" %
          (t, procs, q, s, ok, fail, data, retx, pct, lok, lfail, p, lp, ratio))
EOF
        done
    done
done | tee "$tmp/table"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '$5 == "|" { rows++
       if ($10 == "nan" || $10 > 1.0 || $7 != 0 || $6 == 0) bad_retx++
       if ($13 != 0 || $12 == 0 || $16 == "nan" || $16 > 3.0) bad_loss++ }
     END { printf "no loss: %d of %d rows with retransmissions <= 1%% of data packets and no failed call\n", rows - bad_retx, rows
           printf "loss: %d of %d rows with every call completed and p99 within 3x of no loss\n", rows - bad_loss, rows
           exit (bad_retx + bad_loss) ? 1 : 0 }' "$tmp/table"
