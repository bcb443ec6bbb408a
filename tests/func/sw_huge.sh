#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --mem huge on the software device: hugepages or one line and exit 2.
# With the kernel's pool empty (and EAL on --no-huge) the run is refused;
# as root the test then reserves a few 2 MiB pages for itself
# (/proc/sys/vm/nr_hugepages, restored on exit) and checks that a verified
# run takes them. Exits 77 when neither half can run here.
source "$(dirname "$0")/lib.sh"

NR=/proc/sys/vm/nr_hugepages
hp() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
ran=0

if [ "$(hp HugePages_Free)" = 0 ]; then
    ran=1
    run nohuge 60 "${EAL[@]}" -- --test write --mode bw -s 4K -n 100 --dev sw --mem huge
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/nohuge.err")" -eq 1 ] &&
       grep -q "huge memory.*no hugepages" "$TMP/nohuge.err"; then
        pass "no hugepages: refused, exit 2: $(cat "$TMP/nohuge.err")"
    else
        fail "no hugepages: exit $rc, stderr: $(tr '\n' '|' <"$TMP/nohuge.err")"
    fi
else
    echo "note: the kernel has free hugepages: the refusal is not tested"
fi

# two processes: the hugepage buffers are process memory, a peer could not
# reach them: refused before any connection, whatever the pool holds
for role in "--server -p 1" "--connect 127.0.0.1:1"; do
    ran=1
    run twoproc 60 "${EAL[@]}" -- $role --test write --dev sw --mem huge
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/twoproc.err")" -eq 1 ] &&
       grep -q "peer process cannot reach" "$TMP/twoproc.err"; then
        pass "${role%% *} --mem huge: refused, exit 2"
    else
        fail "${role%% *} --mem huge: exit $rc: $(tr '\n' '|' <"$TMP/twoproc.err")"
    fi
done

old=$(cat $NR 2>/dev/null || echo x)
want=8     # 16 MiB: two 256 KiB buffers round up to a page each
if [ "$(id -u)" = 0 ] && [ "$old" != x ] && echo $((old + want)) >$NR 2>/dev/null; then
    trap 'echo "$old" >$NR; rm -rf "$TMP"' EXIT
    free0=$(hp HugePages_Free)
    if [ "$free0" -lt 2 ]; then
        echo "note: the kernel reserved $free0 free hugepages of $want asked"
    else
        ran=1
        # the buffers live as long as the run: sample the pool meanwhile
        "$PERF" "${EAL[@]}" -- --test write --mode bw -s 4K -D 3 --dev sw --mem huge --verify \
            --json "$TMP/huge.json" >"$TMP/huge.out" 2>"$TMP/huge.err" &
        pid=$!
        low=$free0
        for _ in $(seq 100); do
            f=$(hp HugePages_Free)
            [ "$f" -lt "$low" ] && low=$f
            kill -0 $pid 2>/dev/null || break
            sleep 0.05
        done
        wait $pid
        rc=$?
        mem=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["knobs"].get("mem"))' \
              "$TMP/huge.json" 2>/dev/null)
        if [ $rc -eq 0 ] && [ "$low" -le $((free0 - 2)) ] && [ "$mem" = huge ] &&
           grep -q "verify: every payload byte checked: OK" "$TMP/huge.err"; then
            pass "hugepages reserved: the verified run took $((free0 - low)) of $free0 free 2 MiB pages (mem=$mem)"
        else
            fail "hugepages reserved: exit $rc, free $free0 -> lowest $low, mem=$mem: $(tail -n 2 "$TMP/huge.err" | tr '\n' '|')"
        fi
    fi
else
    echo "note: cannot reserve hugepages here (not root, or the kernel refused $NR)"
fi
if [ $ran -eq 0 ]; then
    echo "SKIP: neither the refusal (free hugepages exist) nor a hugepage run (none could be reserved) can be tested here"
    exit 77
fi
finish
