#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two worker lcores on one software device, each posting on its own QP pair
# (loopback on each lcore, so each lcore's doorbell register is rung by
# its own thread): a correct datapath gets no device error, even when one
# lcore's progress call takes the other's QP over and looks at that
# lcore's register while it rings (rdx-perf exits 1 on any device error).
# The same with post lists and with --verify.
source "$(dirname "$0")/lib.sh"

L=(--no-huge --lcores '0@0,1@0,2@1')
i=0
for extra in "-l 1" "-l 1" "-l 1" "-l 4" "-l 1 --verify"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    if run "r$i" 120 "${L[@]}" -- --test write --mode bw -s 8 -t 64 $extra -n 2000000 \
            --dev sw --loopback; then
        pass "two lcores, write bw $extra: exit 0, no device error"
    else
        fail "two lcores, write bw $extra: exit $?: $(grep -m 3 -E 'device error|rdx-perf:' "$TMP/r$i.err" | tr '\n' '|')"
    fi
done
finish
