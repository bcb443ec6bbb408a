#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The timing layer's validation runs (doc/timing.md, "Validation") on one
# profile, as text and as PNGs (bench/timing/plot.py, matplotlib):
#  - the 8-byte WRITE/READ/FAA/CAS latencies (text only);
#  - write bw vs message size (8 B .. 1 MiB) against the profile's link
#    goodput, with the half-bandwidth size          -> timing_size.png
#  - the QP-scaling sweep, 64-B WRITEs on 32 .. 1024 QPs (the knee past
#    the QP-context cache)                           -> timing_qps.png
#  - FAA on 1, 16, 256, 4096 keys, 32 WRs per doorbell (-l 32: the
#    atomics reach the NIC together, as a NIC-bound run's do; the atomic
#    unit)                                           -> timing_keys.png
#  - 64 KiB WRITEs at MTU 256 .. 4096                -> timing_mtu.png
#  - two rdx-perf processes sharing one port, 4 s each, Jain over their
#    common interval (rdx-flows; a 1 Gb/s copy of the
#    profile, slow enough for the host to keep up)   -> timing_share.png
# Each bandwidth point gives both rates of its rdx-perf footer line: what
# this host ran and the modelled NIC's ceiling for the same WQEs.
#
#   bench/timing/validate.sh [BUILD_DIR [PROFILE [OUTDIR]]]
#     (default build cx6-200g BUILD_DIR/timing-validate; N=20000 per run)
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/bench/lib.sh"
usage="bench/timing/validate.sh [BUILD_DIR [PROFILE [OUTDIR]]]  (N in the environment)"
bench_usage "$usage" "${1-}"
bench_maxargs 3 "$usage" "$@"
build=${1:-build}
prof=${2:-cx6-200g}
out=${3:-$build/timing-validate}
n=${N:-20000}
bench_posint N "$n"
perf=$build/apps/rdx-perf/rdx-perf
[ -x "$perf" ] || bench_fail "no $perf (build first: ninja -C $build)"
case $prof in
    */*) conf=$prof ;;
    *) conf=$src/config/timing/$prof.conf ;;
esac
[ -r "$conf" ] || bench_fail "no profile $conf"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
mkdir -p "$out"
tsv=$out/validate.tsv
: > "$tsv"

run() { # ARGS...: rdx-perf on the profile, loopback, one lcore
    "$perf" --no-huge -l 0 --log-level=error -- --loopback --dev "sw:timing=$prof" "$@" 2>&1
}

# foot STUDY X [SIZE]: rdx-perf's output on stdin; each footer line as
# "STUDY X host model SIZE" (a sweep: X from the line's label, "B" or QPs)
foot() {
    awk -v s="$1" -v x="$2" -v sz="${3-}" '
        /model-bound|modelled NIC was busy/ {
            host = ""; model = ""; px = x
            if (match($0, /ran the model at [0-9.]+/)) host = substr($0, RSTART + 17, RLENGTH - 17)
            if (match($0, /would do [0-9.]+/)) model = substr($0, RSTART + 9, RLENGTH - 9)
            if (host == "" && match($0, /run[^(]*\([0-9.]+ Mop/)) {
                t = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", t); sub(/ Mop/, "", t)
                host = t; model = t
            }
            if (x == "size" && match($0, /, [0-9]+ B,/)) px = substr($0, RSTART + 2, RLENGTH - 5)
            if (x == "qps" && match($0, /B, [0-9]+ QP/)) px = substr($0, RSTART + 3, RLENGTH - 6)
            if (host != "") printf "%s\t%s\t%s\t%s\t%s\n", s, px, host, model, (x == "size" ? px : sz)
        }'
}

echo "# profile $prof, N=$n, $(date -u +%Y-%m-%d)"
echo "# latency (us): t_min t_typical (write: half a round trip; others: the round trip)"
for t in write read faa cas; do
    run --test $t --mode lat -s 8 -n "$n" |
        awk -v t=$t '$1 == 8 && NF >= 6 { printf "%-6s 8 B   %s %s\n", t, $3, $5 }'
done
echo "# bandwidth studies: study x host_Mop/s modelled_Mop/s [bytes] (also $tsv)"
run --test write --mode bw --sizes 8,16,32,64,256,1K,4K,16K,64K,256K,1M -n $((n / 10 + 1)) |
    foot size size >> "$tsv"
run --test write --mode bw -s 64 --qp-sweep 32-1024*2 -n $((n / 1000 + 10)) | foot qps qps >> "$tsv"
for k in 1 16 256 4096; do
    run --test faa --mode bw -s 8 -n "$n" -l 32 --keys $k | foot keys $k >> "$tsv"
done
for m in 256 512 1024 2048 4096; do
    run --test write --mode bw -s 65536 -n $((n / 10 + 1)) -m $m | foot mtu $m 65536 >> "$tsv"
done
# two processes on one port: a 1 Gb/s copy, 4 s each, started together;
# Jain's index over their common interval from their per-WR logs
share=$out/share1g.conf
sed 's/^link_mbps = [0-9]* /link_mbps = 1000 /' "$conf" > "$share"
for i in 1 2; do
    "$perf" --no-huge -l $((i - 1)) --log-level=error -- --loopback --dev "sw:timing=$share" \
        --test write --mode bw -s 65536 -D 4 -o "$out/share$i.log" --label "flow$i" \
        > "$out/share$i.out" 2>&1 &
done
wait
good=$(awk '$1 == "mtu" { m = $3 } $1 == "pkt_hdr" { h = $3 } $1 == "reth" { r = $3 }
    $1 == "link_mbps" { l = $3 }
    END { pk = int((65536 + m - 1) / m); printf "%.2f", l * 1e6 / 8 * 65536 / (65536 + pk * h + r) / 1048576 }' "$share")
printf '#share-profile\tshare1g\n' >> "$tsv"
flows=$build/apps/rdx-flows/rdx-flows
if [ -x "$flows" ]; then
    "$flows" "$out/share1.log" "$out/share2.log" 2>/dev/null |
        awk '/^Jain/ { printf "#share-jain\t%s\n", $4 }' >> "$tsv"
fi
for i in 1 2; do
    awk -v i=$i -v g="$good" '$1 == 65536 && NF >= 5 { printf "share\t%d\t%s\t%s\t65536\n", i, $4, g }' \
        "$out/share$i.out" >> "$tsv"
done
grep -v '^#' "$tsv"
if grep -q "^ model-bound" "$out/share1.out" "$out/share2.out"; then
    echo "# note: a sharing flow was model-bound (the host fell behind: other load?), its share is the host's:"
    grep -h "^ model-bound" "$out/share1.out" "$out/share2.out"
fi
if "$py" -c 'import matplotlib' 2>/dev/null; then
    MPLCONFIGDIR=$out/.mpl "$py" "$src/bench/timing/plot.py" "$tsv" "$conf" "$out"
else
    echo "# no matplotlib for $py (Debian: apt-get install python3-matplotlib): no PNGs"
fi
