#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions per operation of the mlx5 fast path, counted by callgrind
# (deterministic; these VMs have no hardware counters). Only the driver's
# own functions are counted: --toggle-collect on rdx_mlx5_post_burst,
# rdx_mlx5_post_burst_ud (and their _scalar twins), rdx_mlx5_post_recv_burst,
# and the CQ's poll ops mlx5_cq.c picks at its creation (mlx5_poll_cq64 and
# mlx5_poll_req_cq64, their 128-byte CQE twins; and what they call); the
# benchmark loop that plays the device (writes the CQEs) is not. The matrix
# rows after the first four vary one knob each (inline size, SGE, signaling
# interval -Q, post list -l 1, READ, atomics). Every row runs twice: through
# the QP's own op (drivers/mlx5/mlx5_qp.c: the vector runs of
# mlx5_qp_vec.h for 8-byte inline WRITE/SEND and one-SGE WRITE, SEND,
# READ, CAS, FAA, then the scalar post loop for the rest) and, printed as
# "scalar", through the scalar post loop alone. A burst of one takes the
# scalar loop with the BlueFlame copy (row "bf" polls for one completion, n = 1, as perftest's ib_write_lat
# does, with rdx_cq_poll_req_burst, the lean completion of a latency loop;
# row "bffull" the same with rdx_cq_poll_burst; row "bf32" with room for 32,
# which also reads the empty next slot). UD: runs of 8-byte inline SENDs. The SEND + RECV
# row counts per pair: the receive post (mlx5_rq.c's run loop) and the
# responder CQE (mlx5_cq.c's responder loop) too; the requester CQE goes to
# the send CQ, the responder CQEs to a receive CQ, and the row is split into
# the sender's and the receiver's share; row sr1 puts both in one CQ.
#
# Then a second figure: rdx-perf's own per-op loop (8 B WRITE bw, -l 32
# -Q 32 -t 32, loopback on one lcore on the software device, --warmup 0)
# under callgrind with --toggle-collect=perf_stream_run, split into
#   model  = inclusive cost of sw_engine_progress (the software device's
#            inline progress, which its post op sw_post_burst runs after
#            the doorbell and its CQ poll op sw_cq_poll_inline before the
#            driver's poll, on this lcore)
#   driver = inclusive post op (sw_post_burst, or rdx_mlx5_post_burst) +
#            the poll op (sw_cq_poll_inline, or mlx5_poll_cq64) - model
#   app    = the rest of perf_stream_run (loop, WR set-up, CQ routing,
#            histogram)
# and, as a cross-check, the self cost by source file (apps/ + lib/, drivers/mlx5/*.c,
# drivers/mlx5/sw/, other = libc/DPDK, mostly memcpy called by the model).
#
# usage: bench/callgrind.sh [BUILD_DIR] [BURSTS]
#   BUILD_DIR  meson build dir (default: build; set up if missing)
#   BURSTS     bursts of 32 to run (default 20000; BlueFlame runs 4x as many
#              posts); at most 1000000: the slowest rows (w64, bf) take
#              ~0.12 ms of callgrind per burst on the 2-core VM, ~2 minutes
#              a row at the bound (and bench/mlx5_fastpath takes at most
#              10^8 iterations, 4 x BURSTS in the bf rows)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
usage="bench/callgrind.sh [BUILD_DIR] [BURSTS]"
bench_usage "$usage" "${1-}"
bench_maxargs 2 "$usage" "$@"
build=${1:-build}
bursts=${2:-20000}
bench_posint BURSTS "$bursts" 1000000 "about 2 minutes a row under callgrind; default 20000"
command -v valgrind >/dev/null 2>&1 || { echo "callgrind.sh: valgrind not installed (apt-get install valgrind)" >&2; exit 2; }
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
ninja -C "$build" bench/mlx5_fastpath apps/rdx-perf/rdx-perf >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# fn_incl ANNOTATE_OUT FUNCTION: the inclusive cost of FUNCTION (0 if absent).
# callgrind_annotate lists a function once per name of the file its code is
# filed under: the absolute path of its compile unit (the line the callers'
# arcs reach: the whole inclusive cost), the path relative to the current
# directory and the headers inlined into it (parts of that cost). Take the
# largest line whose function is exactly FUNCTION ("name" then " [obj]" or
# the end of the line: rdx_mlx5_post_burst is not rdx_mlx5_post_burst_ud).
fn_incl() {
    awk -v f="$2" 'BEGIN { m = 0 }
        $0 ~ ("^ *[0-9,]+ .*:" f "( \\[|$)") { v = $1; gsub(",", "", v); if (v + 0 > m) m = v + 0 }
        END { printf "%.0f\n", m }' "$1"
}

# count MODE ITERATIONS PATH: callgrind over one row on one path (vec: the
# QP's own op, vector runs then the scalar loop; scalar: the scalar loop
# alone); sets ops, total, post, recv, poll (instructions).
count() {
    f="$tmp/cg.$1"
    [ "$3" = vec ] || f="$tmp/cg.$1.$3"
    valgrind --tool=callgrind --callgrind-out-file="$f" \
        --toggle-collect=rdx_mlx5_post_burst --toggle-collect=rdx_mlx5_post_burst_ud \
        --toggle-collect=rdx_mlx5_post_burst_scalar --toggle-collect=rdx_mlx5_post_burst_ud_scalar \
        --toggle-collect=rdx_mlx5_post_recv_burst \
        --toggle-collect=mlx5_poll_cq64 --toggle-collect=mlx5_poll_cq128 \
        --toggle-collect=mlx5_poll_req_cq64 --toggle-collect=mlx5_poll_req_cq128 \
        "$build/bench/mlx5_fastpath" "$1" "$2" "$3" >"$tmp/out.$1" 2>"$tmp/err.$1" || {
        cat "$tmp/err.$1" >&2; exit 1; }
    ops=$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' "$tmp/out.$1")
    total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f")
    callgrind_annotate --inclusive=yes "$f" >"$tmp/incl.$1" 2>/dev/null
    post=$(( $(fn_incl "$tmp/incl.$1" rdx_mlx5_post_burst) +
        $(fn_incl "$tmp/incl.$1" rdx_mlx5_post_burst_ud) +
        $(fn_incl "$tmp/incl.$1" rdx_mlx5_post_burst_scalar) +
        $(fn_incl "$tmp/incl.$1" rdx_mlx5_post_burst_ud_scalar) ))
    recv=$(fn_incl "$tmp/incl.$1" rdx_mlx5_post_recv_burst)
    # the lean poll tail-calls the full one only for n != 1 (no row)
    poll=$(( $(fn_incl "$tmp/incl.$1" mlx5_poll_cq64) +
        $(fn_incl "$tmp/incl.$1" mlx5_poll_cq128) +
        $(fn_incl "$tmp/incl.$1" mlx5_poll_req_cq64) +
        $(fn_incl "$tmp/incl.$1" mlx5_poll_req_cq128) ))
    # the split covers every collected function: it must add up
    [ $((post + recv + poll)) -eq "$total" ] ||
        echo "  (split does not add up: $post + $recv + $poll != $total)"
}

# run MODE ITERATIONS LABEL: the row through both paths
run() {
    count "$1" "$2" scalar
    s_total=$total s_post=$post s_ops=$ops
    count "$1" "$2" vec
    awk -v l="$3" -v t="$total" -v o="$ops" -v p="$post" -v r="$recv" -v q="$poll" \
        -v st="$s_total" -v sp="$s_post" -v so="$s_ops" 'BEGIN {
        rs = r != 0 ? sprintf(", recv post %.1f", r / o) : ""
        printf "%-52s %7.1f instr/op  (post+ring %.1f%s, poll %.1f)  scalar %.1f (post+ring %.1f)\n",
            l, t / o, p / o, rs, q / o, st / so, sp / so }'
}

echo "mlx5 fast path, callgrind instruction counts (driver functions only)"
run burst "$bursts" "8B inline WRITE, burst 32, 1 signaled/32:"
run bf $((bursts * 4)) "8B inline WRITE, single post (BF), poll_req n=1:"
run bffull $((bursts * 4)) "8B inline WRITE, single post (BF), full poll n=1:"
run bf32 $((bursts * 4)) "8B inline WRITE, single post (BF), full poll n=32:"
run bfsend $((bursts * 4)) "8B inline SEND, single post (BF), poll_req n=1:"
run send "$bursts" "8B inline SEND, burst 32, 1 signaled/32:"
run read "$bursts" "8B READ, burst 32 (READ run loop):"
echo "matrix (one knob changed per row; 32 WRs per iteration)"
run w16 "$bursts" "16B inline WRITE, burst 32:"
run w24 "$bursts" "24B inline WRITE, burst 32:"
run w64 "$bursts" "64B inline WRITE, burst 32 (2 BBs):"
run s30 "$bursts" "30B inline SEND, burst 32 (echo request, -I 64):"
run w220 "$bursts" "220B inline WRITE, burst 32 (-I 220, 4 BBs):"
run sge "$bursts" "8B WRITE, one SGE (not inline), burst 32:"
run ssge "$bursts" "8B SEND, one SGE (not inline), burst 32:"
run q16 "$bursts" "8B inline WRITE, burst 32, -Q 16 (2 CQEs):"
run q8 "$bursts" "8B inline WRITE, burst 32, -Q 8 (4 CQEs):"
run l1 "$bursts" "8B inline WRITE, -l 1 (32 posts of 1), -Q 32:"
run cas "$bursts" "8B CAS, burst 32 (CAS run loop):"
run faa "$bursts" "8B FAA, burst 32 (FAA run loop):"
run ud "$bursts" "8B inline UD SEND, burst 32, 1 signaled/32:"
run sr "$bursts" "8B inline SEND + RECV, burst 32, per pair:"
# ... split by end (two hosts on a NIC): callgrind's call arcs from the
# benchmark into the driver, inclusive. Sender: its posts (from main) and
# its send-CQ polls (from sender_poll); receiver: its receive posts (from
# main) and its receive-CQ polls (from receiver_poll). The two add up to
# the pair figure (checked).
callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$tmp/cg.sr" 2>/dev/null |
    awk -v o="$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' "$tmp/out.sr")" \
        -v t="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/cg.sr")" ' BEGIN { n = 0 }
    /^ *[0-9,]+ .*  < / { c = $1; gsub(",", "", c); who[n] = $0; cost[n] = c; n++; next }
    /^ *[0-9,]+ .*  \* / {
        for (i = 0; i < n; i++) {
            if ($0 ~ /:mlx5_poll_cq64( |$)/) {
                if (who[i] ~ /:sender_poll/) sp += cost[i]
                else if (who[i] ~ /:receiver_poll/) rp += cost[i]
            } else if ($0 ~ /:rdx_mlx5_post_burst( |$)/ && who[i] ~ /:main /) sb += cost[i]
            else if ($0 ~ /:rdx_mlx5_post_recv_burst( |$)/ && who[i] ~ /:main /) rb += cost[i]
        }
        n = 0; next }
    { n = 0 }
    END {
        if (o == 0 || sb + sp + rb + rp != t) {
            printf "  (split does not add up: %d + %d + %d + %d of %d)\n", sb, sp, rb, rp, t; exit 1 }
        printf "  %-50s %7.1f instr/op  (post+ring %.1f, send-CQ poll %.1f)\n",
            "sender, per SEND:", (sb + sp) / o, sb / o, sp / o
        printf "  %-50s %7.1f instr/op  (receive post %.1f, receive-CQ poll %.1f)\n",
            "receiver, per message:", (rb + rp) / o, rb / o, rp / o }'
run sr1 "$bursts" "the same, one CQ for both ends (loopback), per pair:"

# rdx-perf's own loop: app / driver / model
perf_ops=$bursts
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.perf" --toggle-collect=perf_stream_run \
    "$build/apps/rdx-perf/rdx-perf" --no-huge -l 0-1 -- --test write --mode bw -s 8 -l 32 -Q 32 \
    -t 32 -n "$perf_ops" --warmup 0 --dev sw >"$tmp/out.perf" 2>"$tmp/err.perf" || {
    cat "$tmp/err.perf" >&2; exit 1; }
callgrind_annotate --inclusive=yes "$tmp/cg.perf" >"$tmp/incl.perf" 2>/dev/null
callgrind_annotate --inclusive=no --threshold=100 --auto=no "$tmp/cg.perf" >"$tmp/self.perf" 2>/dev/null
incl() { awk -v f=":$1 " '
    index($0, f) && $0 ~ /^ *[0-9,]+ / { gsub(",", "", $1); print $1; exit }' "$tmp/incl.perf"; }
# everything collected runs under perf_stream_run (--toggle-collect); its own
# inclusive line leaves out what callgrind_annotate files under the headers
# inlined into it (perf_loop.h, rdx_dev.h ...): take the program total
total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$tmp/incl.perf")
model=$(incl sw_engine_progress)
# the software device's post op (the model-only doorbell words, the datapath's
# post, and with inline progress the engine on the doorbell); the datapath's
# post otherwise
post=$(incl sw_post_burst)
[ -n "$post" ] || post=$(incl rdx_mlx5_post_burst)
# the software device's poll op in inline mode; the driver's otherwise
poll=$(incl sw_cq_poll_inline)
[ -n "$poll" ] || poll=$(incl mlx5_poll_cq64)
# self cost by the file the code comes from (inlined headers count where they live)
read -r s_app s_drv s_model s_other <<EOF_SELF
$(awk '/^ *[0-9,]+ \(/ && /:/ { v = $1; gsub(",", "", v); f = $0;
    if (f ~ /drivers\/mlx5\/sw\//) m += v; else if (f ~ /drivers\/mlx5\//) d += v;
    else if (f ~ /\/(apps|lib)\//) a += v; else o += v }
    END { printf "%d %d %d %d\n", a, d, m, o }' "$tmp/self.perf")
EOF_SELF
echo
echo "rdx-perf per-op loop (callgrind over perf_stream_run; software device, loopback on one lcore):"
echo "  rdx-perf --no-huge -l 0-1 -- --test write --mode bw -s 8 -l 32 -Q 32 -t 32 -n $perf_ops --warmup 0 --dev sw"
awk -v t="${total:-0}" -v m="${model:-0}" -v p="${post:-0}" -v q="${poll:-0}" -v o="$perf_ops" \
    -v sa="$s_app" -v sd="$s_drv" -v sm="$s_model" -v so="$s_other" 'BEGIN {
    if (t == 0 || o == 0) { print "  (no perf_stream_run cost found)"; exit 1 }
    d = p + q - m; a = t - m - d
    printf "  %-44s %7.1f instr/op  (%d ops, %d instr)\n", "total (perf_stream_run, inclusive):", t / o, o, t
    printf "  %-44s %7.1f instr/op  %5.1f%%\n", "app (rdx-perf loop, routing, histogram):", a / o, 100 * a / t
    printf "  %-44s %7.1f instr/op  %5.1f%%\n", "driver (drivers/mlx5 post + poll):", d / o, 100 * d / t
    printf "  %-44s %7.1f instr/op  %5.1f%%\n", "model (software device progress):", m / o, 100 * m / t
    printf "  self cost by file: apps+lib %.1f, drivers/mlx5 %.1f, sw model %.1f, libc/DPDK %.1f instr/op\n",
        sa / o, sd / o, sm / o, so / o }'
