#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The software device's timing layer (devargs timing=<profile>, doc/timing.md):
#  - a bad profile (unknown key, no source, missing file): exit 2, one line
#    naming the file (and line);
#  - write bw 64 KiB on cx6-200g: labelled "software device, timing cx6-200g
#    (modelled)", the average and the peak bandwidth at most the profile's
#    link goodput (payload over payload + headers, from the profile's keys),
#    and a footer saying whether the host kept up (model-bound or not);
#  - the same with two QPs (-q 2): they share the one port, together at
#    most its goodput, and the run completes (round-robin deadlines);
#  - write lat 8 B: t_min at least the profile's least one-way time (two
#    posted PCIe writes, two pipeline passes, the propagation);
#  - a profile given by path is named by its file;
#  - --sizes 64,64K: a footer line per row, each of its own WQEs (the
#    64-B row's modelled ceiling far above the 64 KiB row's);
#  - timing off: the labels as before, no footer.
source "$(dirname "$0")/lib.sh"

PROF=$SRC/config/timing/cx6-200g.conf
key() { awk -v k="$1" '$1 == k { print $3 }' "$PROF"; }

# --- bad profiles: exit 2, one line -----------------------------------
bad() {
    local name=$1 want=$2; shift 2
    run "$name" 30 "${EAL[@]}" --log-level=error -- --test write --mode bw -s 64 -n 100 --loopback "$@"
    local rc=$? lines
    lines=$(grep -c . "$TMP/$name.err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$want" "$TMP/$name.err"; then
        pass "$name: exit 2, one line: $(cat "$TMP/$name.err")"
    else
        fail "$name: rc $rc, $lines line(s), want '$want':"; cat "$TMP/$name.err" "$TMP/$name.out"
    fi
}
sed 's/^mtu = .*/mtu = 4096/' "$PROF" > "$TMP/nosource.conf"
{ cat "$PROF"; echo "link_gbps = 200 # a key the model does not have"; } > "$TMP/unknown.conf"
grep -v '^cqe_ns' "$PROF" > "$TMP/missing.conf"
bad bad_nosource "nosource.conf:[0-9]+: no source" --dev "sw:timing=$TMP/nosource.conf"
bad bad_unknown "unknown.conf:[0-9]+: unknown key link_gbps" --dev "sw:timing=$TMP/unknown.conf"
bad bad_missing "missing.conf: missing key cqe_ns" --dev "sw:timing=$TMP/missing.conf"
bad bad_name "nope.conf: cannot open timing profile" --dev "sw:timing=nope"
bad bad_empty "bad devargs timing" --dev "sw:timing="

# --- bandwidth: at most the link's goodput ---------------------------
LINK=$(key link_mbps); MTU=$(key mtu); HDR=$(key pkt_hdr); RETH=$(key reth)
# MiB/s of payload for 64 KiB WRITEs back to back on the link
GOOD=$(awk -v l="$LINK" -v m="$MTU" -v h="$HDR" -v r="$RETH" 'BEGIN {
    len = 65536; pk = int((len + m - 1) / m)
    printf "%.1f", l * 1e6 / 8 * len / (len + pk * h + r) / 1048576 }')
run bw 120 "${EAL[@]}" --log-level=error -- --test write --mode bw --sizes 64K -n 20000 \
    --dev sw:timing=cx6-200g --loopback
rc=$?
row=$(awk '$1 == 65536 { print $3, $4 }' "$TMP/bw.out")
if [ $rc -eq 0 ] && [ -n "$row" ] &&
   awk -v g="$GOOD" -v r="$row" 'BEGIN { split(r, x, " "); exit !(x[1] <= g * 1.01 && x[2] <= g) }'; then
    pass "write bw 64K: peak/average $row MiB/s <= link goodput $GOOD MiB/s"
else
    fail "write bw 64K: rc $rc, row '$row' vs goodput $GOOD:"; cat "$TMP/bw.out" "$TMP/bw.err"
fi
if grep -q "dev sw (software device, timing cx6-200g (modelled), progress inline" "$TMP/bw.out" &&
   grep -q "^\*\*\* results on the SOFTWARE mlx5 device (a model, not a NIC): sw, timing cx6-200g (modelled) \*\*\*" "$TMP/bw.out"; then
    pass "write bw: header and banner say software device, timing cx6-200g (modelled)"
else
    fail "write bw: labels:"; cat "$TMP/bw.out"
fi
if grep -Eq "^ (model-bound \(timing cx6-200g \(modelled\)\): this host ran the model at [0-9.]+ Mop/s; the modelled NIC would do [0-9.]+ Mop/s|timing cx6-200g \(modelled\): the modelled NIC was busy)" "$TMP/bw.out"; then
    pass "write bw: footer: $(grep -E 'model-bound|modelled NIC was busy' "$TMP/bw.out")"
else
    fail "write bw: no model-bound footer:"; cat "$TMP/bw.out"
fi

# --- two QPs share one port: together at most the link's goodput -----
run bw2 120 "${EAL[@]}" --log-level=error -- --test write --mode bw --sizes 64K -n 4000 -q 2 \
    --dev sw:timing=cx6-200g --loopback
rc=$?
row=$(awk '$1 == 65536 { print $3, $4 }' "$TMP/bw2.out")
if [ $rc -eq 0 ] && [ -n "$row" ] && grep -q "status: completed" "$TMP/bw2.out" &&
   awk -v g="$GOOD" -v r="$row" 'BEGIN { split(r, x, " "); exit !(x[1] <= g * 1.01 && x[2] <= g) }'; then
    pass "write bw 64K, 2 QPs on one port: peak/average $row MiB/s <= link goodput $GOOD MiB/s"
else
    fail "write bw 64K, 2 QPs: rc $rc, row '$row' vs goodput $GOOD:"; cat "$TMP/bw2.out" "$TMP/bw2.err"
fi

# --- latency: not below the profile's least one-way time -------------
MIN=$(( $(key pcie_wr_ns) * 2 + $(key pipe_ns) * 2 + $(key prop_ns) ))
run lat 120 "${EAL[@]}" --log-level=error -- --test write --mode lat -s 8 -n 5000 \
    --dev sw:timing=cx6-200g --loopback
rc=$?
tmin=$(awk '$1 == 8 && NF >= 5 { print $3 }' "$TMP/lat.out")
if [ $rc -eq 0 ] && [ -n "$tmin" ] && awk -v t="$tmin" -v m="$MIN" 'BEGIN { exit !(t * 1000 >= m) }'; then
    pass "write lat 8 B: t_min $tmin us >= the profile's $MIN ns"
else
    fail "write lat 8 B: rc $rc, t_min '$tmin' vs $MIN ns:"; cat "$TMP/lat.out" "$TMP/lat.err"
fi

# --- a profile by path: named by its file ----------------------------
cp "$PROF" "$TMP/mynic.conf"
run path 60 "${EAL[@]}" --log-level=error -- --test write --mode bw -s 4096 -n 2000 \
    --dev "sw:timing=$TMP/mynic.conf" --loopback
if [ $? -eq 0 ] && grep -q "software device, timing mynic (modelled)" "$TMP/path.out"; then
    pass "a profile by path: timing mynic (modelled)"
else
    fail "a profile by path:"; cat "$TMP/path.out" "$TMP/path.err"
fi

# --- a footer line per row: each size's own WQEs ----------------------
run rows 120 "${EAL[@]}" --log-level=error -- --test write --mode bw --sizes 64,64K -n 2000 \
    --dev sw:timing=cx6-200g --loopback
rc=$?
foot() { # SIZE: that row's modelled ceiling (Mop/s) from its footer line
    sed -n "s/.*(timing cx6-200g (modelled), $1 B, 1 QP).*the modelled NIC would do \([0-9.]*\) Mop\/s.*/\1/p;
            s/.*timing cx6-200g (modelled), $1 B, 1 QP: .*busy [0-9]*% of the run (\([0-9.]*\) Mop\/s).*/\1/p" "$TMP/rows.out"
}
c64=$(foot 64); c64k=$(foot 65536)
# the 64-B row's ceiling is the message rate's, the 64 KiB row's the link's
if [ $rc -eq 0 ] && [ -n "$c64" ] && [ -n "$c64k" ] &&
   awk -v a="$c64" -v b="$c64k" 'BEGIN { exit !(a > 10 * b) }'; then
    pass "footer per row: 64 B $c64 Mop/s, 64 KiB $c64k Mop/s"
else
    fail "footer per row: rc $rc, '$c64' '$c64k':"; cat "$TMP/rows.out" "$TMP/rows.err"
fi

# --- timing off: as before --------------------------------------------
run off 60 "${EAL[@]}" --log-level=error -- --test write --mode bw --sizes 64K -n 2000 --dev sw --loopback
if [ $? -eq 0 ] && grep -q "dev sw (software device, progress inline, driver sw)" "$TMP/off.out" &&
   grep -q "^\*\*\* results on the SOFTWARE mlx5 device (a model, not a NIC): sw \*\*\*" "$TMP/off.out" &&
   ! grep -Eq "modelled|model-bound" "$TMP/off.out"; then
    pass "timing off: labels as before, no footer"
else
    fail "timing off:"; cat "$TMP/off.out" "$TMP/off.err"
fi
finish
