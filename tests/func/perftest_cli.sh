#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest's command lines run unchanged through "rdx-perf ib_write_bw ..."
# (apps/rdx-perf/perftest_cli.c) on the software device: each line once as
# a server (no host) and once as its client (host 127.0.0.1), the client's
# output parsed as perftest's scripts parse perftest's own (a result row is
# the line whose first field is the size; bandwidth and latency columns are
# numbers), and perftest's defaults checked in the header.
source "$(dirname "$0")/lib.sh"

wait_listen() { # PORT PID: until PORT listens, PID exits, or 20 s
    for _ in $(seq 200); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# pair NAME PROG ARGS..: "PROG ARGS" as a server and "PROG ARGS 127.0.0.1"
# as its client, each on an lcore of its own; outputs in $TMP/NAME.{s,c}.*
pair() {
    local name=$1 prog=$2 port; shift 2
    port=$(free_port)
    RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" "$prog" "$@" -p "$port" \
        >"$TMP/$name.s.out" 2>"$TMP/$name.s.err" &
    local spid=$!
    wait_listen "$port" "$spid"
    RDX_EAL="--no-huge -l 1" timeout -k 5 60 "$PERF" "$prog" "$@" -p "$port" 127.0.0.1 \
        >"$TMP/$name.c.out" 2>"$TMP/$name.c.err"
    CRC=$?
    wait "$spid"
    SRC_RC=$?
}
# parse FILE KIND [ROWS]: perftest's column rules on the client's output
parse() {
    python3 - "$@" <<'PY'
import sys
path, kind = sys.argv[1], sys.argv[2]
rows_wanted = int(sys.argv[3]) if len(sys.argv) > 3 else None
lines = open(path).read().splitlines()
if kind in ("bandwidth", "latency", "message_rate"):
    # --output: the figure alone
    # printf "%lf", as perftest's print_report_bw / print_report_lat
    assert len(lines) == 1, lines
    float(lines[0])
    assert len(lines[0].split(".")[1]) == 6, lines[0]
    sys.exit(0)
rows = [l.split() for l in lines if l.split() and l.split()[0].isdigit()]
assert rows, "no result row"
head = [l for l in lines if l.lstrip().startswith("#bytes")]
assert len(head) == 1, head
for r in rows:
    int(r[0]); int(r[1])
    if kind == "bw":
        # #bytes #iterations BW peak BW average MsgRate; the peak a
        # number (perftest's), at least the average (its windows include
        # the whole run), except the -b rows of the server and the sum
        if "server" not in r and "(-b)" not in r:
            assert float(r[2]) >= float(r[3]) * 0.999 > 0, r
        float(r[3]); float(r[4])
    else:
        # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
        for v in r[2:9]:
            float(v)
if rows_wanted is not None:
    assert len(rows) == rows_wanted, (len(rows), rows_wanted)
print(len(rows))
PY
}

# NAME | KIND | ROWS | the command line (perftest's README and man pages)
cases=(
"wbw|bw|1|ib_write_bw -d sw"
"wbw8|bw|1|ib_write_bw -d sw -s 8 -n 100000"
"wbwa|bw|23|ib_write_bw -d sw -a -n 100"
"wbwq|bw|1|ib_write_bw -d sw -q 2"
"wbwD|bw|1|ib_write_bw -d sw -D 1"
"wbwb|bw|3|ib_write_bw -d sw -b"
"wbwg|bw|1|ib_write_bw -d sw --report_gbits"
"wbwo|bandwidth||ib_write_bw -d sw --output=bandwidth"
"wbwm|message_rate||ib_write_bw -d sw -s 8 --output=message_rate"
"wbwt|bw|1|ib_write_bw -d sw -t 64 -Q 16 -l 4"
"wlat|lat|1|ib_write_lat -d sw"
"wlata|lat|23|ib_write_lat -d sw -a -n 100"
"wlats|lat|1|ib_write_lat -d sw -s 64 -n 5000"
"wlato|latency||ib_write_lat -d sw --output=latency"
"rbw|bw|1|ib_read_bw -d sw"
"rbwq|bw|1|ib_read_bw -d sw -s 4096 -q 4"
"rbwD|bw|1|ib_read_bw -d sw -D 1 --report_gbits"
"rlat|lat|1|ib_read_lat -d sw"
"rlata|lat|23|ib_read_lat -d sw -a -n 100"
"sbw|bw|1|ib_send_bw -d sw"
"sbwq|bw|1|ib_send_bw -d sw -q 2"
"sbwb|bw|3|ib_send_bw -d sw -b -s 1024"
"slat|lat|1|ib_send_lat -d sw"
"slats|lat|1|ib_send_lat -d sw -s 1024 -n 2000"
"abw|bw|1|ib_atomic_bw -d sw"
"abwf|bw|1|ib_atomic_bw -d sw -A FETCH_AND_ADD"
"abwc|bw|1|ib_atomic_bw -d sw -A CMP_AND_SWAP -q 2"
"alat|lat|1|ib_atomic_lat -d sw"
"alatc|lat|1|ib_atomic_lat -d sw -A CMP_AND_SWAP"
"slato|latency||ib_send_lat -d sw --output=latency"
"wbwc|bw|1|ib_write_bw -d sw -D 1 --cpu_util"
"rlatc|lat|1|ib_read_lat -d sw -D 1 --cpu_util"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name kind rows line <<<"$c"
    read -ra argv <<<"$line"
    pair "$name" "${argv[@]}"
    if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
       got=$(parse "$TMP/$name.c.out" "$kind" $rows 2>"$TMP/$name.parse"); then
        pass "$line: server and client exit 0, ${got:-the figure} parsed"
    else
        fail "$line: client $CRC server $SRC_RC: $(head -c 300 "$TMP/$name.c.err" "$TMP/$name.s.err" "$TMP/$name.parse" | tr '\n' '|') $(head -c 600 "$TMP/$name.c.out")"
    fi
done

# perftest's defaults, from the names (perftest_parameters.c: DEF_TX_BW 128,
# DEF_CQ_MOD 100, DEF_SIZE_LAT 2, DEF_ITERS_WB 5000 for ib_write_bw only)
hdr() { grep -q -- "$2" "$TMP/$1.c.out" && grep -qE -- "$3" "$TMP/$1.c.out"; }
if hdr wbw "-t 128 -Q 100 .* -n 5000 per QP" "^ 65536 +5000 " && hdr rbw "-n 1000 per QP" "^ 65536 +1000 " &&
   hdr wlat "write lat" "^ 2 +1000 " && hdr rlat "read lat" "^ 2 +1000 " && hdr slat "send lat" "^ 2 +1000 " &&
   hdr abw "faa bw" "^ 8 +1000 " && hdr abwc "cas bw" "^ 8 +" && hdr alatc "cas lat" "^ 8 +1000 " &&
   ! grep -q "defaults that differ from perftest's" "$TMP"/*.c.out; then
    pass "perftest's defaults: -t 128 -Q 100, -n 5000 (ib_write_bw) / 1000, lat -s 2, -A FETCH_AND_ADD"
else
    fail "perftest's defaults: $(head -n 2 "$TMP/wbw.c.out" "$TMP/abw.c.out" | tr '\n' '|')"
fi

# perftest's parameter block and address lines, parsed as a perftest
# script reads them: before the first result row, the test name in the
# frame, "key : value" fields, one local and one remote address line per
# QP; the client's local QPs are the server's remote ones and back
ptblock() { # CLIENT_OUT SERVER_OUT TITLE QPS VERB
    python3 - "$@" <<'PY'
import re, sys
cli, srv, title, qps, verb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
def block(path, client):
    lines = open(path).read().splitlines()
    first = next((i for i, l in enumerate(lines) if l.split() and l.split()[0].isdigit()), len(lines))
    head = lines[:first]
    dash = [i for i, l in enumerate(head) if re.fullmatch(r"-{80,}", l)]
    assert len(dash) >= 3, ("frame", dash)
    assert head[dash[0] + 1].strip() == title, head[dash[0] + 1]
    kv = {}
    for l in head[dash[0] + 2:dash[1]]:
        for part in l.split("\t\t"):
            k, _, v = part.partition(":")
            kv[k.strip()] = v.strip()
    assert kv["Number of qps"] == str(qps), kv
    assert kv["Connection type"] == "RC" and kv["Device"] == "sw", kv
    assert int(kv["Mtu"].rstrip("[B]")) in (256, 512, 1024, 2048, 4096), kv
    assert kv["Link type"] in ("IB", "Ethernet"), kv
    if client:
        assert kv["TX depth"] == ("128" if title.endswith("BW Test") else "1"), kv
    if title.endswith("BW Test"):
        assert kv["CQ Moderation"] == "100", kv
    if verb in ("read", "atomic"):
        assert int(kv["Outstand reads"]) > 0, kv
    else:
        int(kv["Max inline data"].rstrip("[B]"))
    rx = r" (local|remote) address: LID (0x[0-9a-f]+|0+) QPN (0x[0-9a-f]+|0+) PSN (0x[0-9a-f]+|0+)"
    if verb == "read":
        rx += r" OUT 0x[0-9a-f]+"
    if verb in ("read", "write"):
        rx += r" RKey (0x[0-9a-f]+|0+) VAddr (0x[0-9a-f]+)"
    addr = {"local": [], "remote": []}
    for l in head[dash[1] + 1:dash[2]]:
        m = re.fullmatch(rx, l)
        assert m, ("address line", l, rx)
        assert int(m.group(2), 16) == 0, ("sw LID is 0 as on RoCE", l)
        addr[m.group(1)].append(int(m.group(3), 16))
    assert len(addr["local"]) == qps and len(addr["remote"]) == qps, addr
    return addr
c, s = block(cli, True), block(srv, False)
assert c["local"] == s["remote"] and c["remote"] == s["local"], (c, s)
print("%d+%d address lines" % (len(c["local"]), len(c["remote"])))
PY
}
for b in "wbw|RDMA_Write BW Test|1|write" "wbwq|RDMA_Write BW Test|2|write" "rbwq|RDMA_Read BW Test|4|read" \
         "sbw|Send BW Test|1|send" "wlat|RDMA_Write Latency Test|1|write" "abwc|Atomic CMP_AND_SWAP BW Test|2|atomic"; do
    IFS='|' read -r name title qps verb <<<"$b"
    if got=$(ptblock "$TMP/$name.c.out" "$TMP/$name.s.out" "$title" "$qps" "$verb" 2>"$TMP/$name.pt"); then
        pass "$name: perftest's block before the first row, '$title', $got, client and server agree"
    else
        fail "$name: perftest's block: $(tail -c 400 "$TMP/$name.pt" | tr '\n' '|')"
    fi
done

# a link named as the program (meson installs them in libexec/rdx/perftest)
mkdir -p "$TMP/bin"
ln -s "$(cd "$(dirname "$PERF")" && pwd)/$(basename "$PERF")" "$TMP/bin/ib_read_lat"
if RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$TMP/bin/ib_read_lat" -d sw --loopback -n 500 >"$TMP/link.out" 2>"$TMP/link.err" &&
   grep -qE "^ 2 +500 " "$TMP/link.out" && grep -q "read lat" "$TMP/link.out"; then
    pass "a link named ib_read_lat runs ib_read_lat"
else
    fail "link ib_read_lat: $(head -c 300 "$TMP/link.err")"
fi

# the parameter block before the first result: on stdout while a -D 30
# run is under way, then once, and Ctrl-C still ends with the table
RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_bw -d sw --loopback -D 30 \
    >"$TMP/hd.out" 2>"$TMP/hd.err" &
hpid=$!
for _ in $(seq 100); do
    grep -q "^ rdx-perf write bw |" "$TMP/hd.out" && break
    sleep 0.1
done
sleep 0.5
early=$(grep -c -- "-t 128 -Q 100 .* -D 30 s" "$TMP/hd.out")
pt_early=$(grep -cE "^( +RDMA_Write BW Test$| local address: LID 0000 QPN )" "$TMP/hd.out")
rows_early=$(grep -cE "^ 65536 " "$TMP/hd.out")
kill -INT "$hpid"
wait "$hpid"; hrc=$?
if [ "$early" -eq 1 ] && [ "$pt_early" -eq 2 ] && [ "$rows_early" -eq 0 ] && [ "$hrc" -eq 130 ] &&
   [ "$(grep -c "^ rdx-perf write bw |" "$TMP/hd.out")" -eq 1 ] && grep -qE "^ 65536 +[0-9]+ " "$TMP/hd.out"; then
    pass "-D 30: perftest's block and the parameter line on stdout during the run, once; Ctrl-C: the row, exit 130"
else
    fail "header first: early $early, perftest's $pt_early, rows $rows_early, exit $hrc: $(head -c 400 "$TMP/hd.out")"
fi

# the table's rows as each size ends: the 2-byte row is out while the
# 8-byte run is under way; at the end every row and the closing lines once
RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_lat -d sw --loopback --sizes 2,8 -D 1.5 \
    >"$TMP/rw.out" 2>"$TMP/rw.err" &
rpid=$!
for _ in $(seq 100); do
    grep -qE "^ 2 +[0-9]+ " "$TMP/rw.out" && break
    sleep 0.1
done
r2=$(grep -cE "^ 2 +[0-9]+ " "$TMP/rw.out"); r8=$(grep -cE "^ 8 +[0-9]+ " "$TMP/rw.out")
wait "$rpid"; rrc=$?
if [ "$r2" -eq 1 ] && [ "$r8" -eq 0 ] && [ "$rrc" -eq 0 ] && [ "$(grep -c "#bytes" "$TMP/rw.out")" -eq 1 ] &&
   [ "$(grep -cE "^ (2|8) +[0-9]+ " "$TMP/rw.out")" -eq 2 ] && [ "$(grep -c "status: completed" "$TMP/rw.out")" -eq 1 ]; then
    pass "--sizes 2,8 -D 1.5: the 2-byte row before the 8-byte run ended; one header, two rows, one status"
else
    fail "rows as they end: early 2B $r2 8B $r8, exit $rrc: $(head -c 600 "$TMP/rw.out")"
fi

# the header says the sweep, not its first step; the device kind in the
# header and the JSON (dev_kind.c: NIC, software RDMA device, the model)
timeout -k 5 60 "$PERF" --no-huge -l 0 -- --test write --mode bw --dev sw -n 500 --qp-sweep '1-4*2' \
    --json "$TMP/sw.json" >"$TMP/sw.out" 2>"$TMP/sw.err"
src=$?
if [ "$src" -eq 0 ] && grep -q "| 1 lcore(s) x 1-4\*2 (--qp-sweep) QP(s) |" "$TMP/sw.out" &&
   grep -q "dev sw (software device, progress inline, driver sw)" "$TMP/sw.out" &&
   [ "$(grep -cE "^ 65536 +[0-9]+ " "$TMP/sw.out")" -eq 3 ] &&
   python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["knobs"]; assert k["device_kind"] == "software device", k' "$TMP/sw.json"; then
    pass "--qp-sweep 1-4*2: the header says 1-4*2 QP(s), three rows; device_kind 'software device'"
else
    fail "--qp-sweep header: exit $src: $(head -c 400 "$TMP/sw.out") $(head -c 200 "$TMP/sw.err")"
fi

# the progress line: on stderr once a second during a long run when stderr
# is a terminal (script(1) gives it one), never into a pipe or a file
if command -v script >/dev/null; then
    RDX_EAL="--no-huge -l 0" timeout -k 5 60 script -qec \
        "'$PERF' ib_write_bw -d sw --loopback -D 3" /dev/null >"$TMP/tty.out" 2>&1
    trc=$?
    RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_bw -d sw --loopback -D 3 \
        >"$TMP/notty.out" 2>"$TMP/notty.err"
    nrc=$?
    tl=$(grep -cE "^rdx-perf: progress: write bw size 65536 B: [0-9]+ s, [0-9]+ ops, [0-9.]+ MiB/s" "$TMP/tty.out")
    if [ "$trc" -eq 0 ] && [ "$nrc" -eq 0 ] && [ "$tl" -ge 1 ] && [ "$tl" -le 4 ] &&
       ! grep -q "progress:" "$TMP/notty.out" "$TMP/notty.err"; then
        pass "-D 3: $tl progress line(s) on a terminal, none into a file"
    else
        fail "progress line: tty exit $trc ($tl lines), file exit $nrc: $(grep progress "$TMP/tty.out" "$TMP/notty.err" | head -c 300)"
    fi
else
    fail "script(1) (util-linux) is missing: the progress line's terminal case cannot run"
fi

# bad input: one line, exit 2
bad() { # WHAT PATTERN ARGS..
    local d=$1 pat=$2; shift 2
    RDX_EAL="--no-huge -l 0" timeout -k 2 30 "$PERF" "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
        pass "$d: $(cat "$TMP/err")"
    else
        fail "$d: exit $rc: $(head -c 300 "$TMP/err" | tr '\n' '|')"
    fi
}
# every perftest flag rdx-perf does not implement: refused by its name
for f in "-L 3" --recv_post_list=4 --mmap=/dev/zero --pkey_index=1 \
         --wait_destroy=1 --force-link=IB --report-per-port --use_old_post_send --disable_pcie_relaxed \
         -j --ts "-X 1" --tcp "-B 00:11:22:33:44:55" --use_cuda_dmabuf --cpu_id=1 -P --data_validation \
         --comm_rdma_cm --write_with_imm; do
    read -ra fa <<<"$f"
    n=${fa[0]%%=*}
    bad "$n" "perftest's .*${n#-}.* is not implemented by rdx-perf" ib_write_bw -d sw "${fa[@]}" 127.0.0.1
done
# every long option of perftest (perftest_parameters.c's long_options) is
# rdx-perf's or refused by its name: never "unknown option" (an option
# after it that is unknown ends the parse before anything runs)
pt_long=(
    CPU-freq MGID aes_block_size aes_xts all atomic_type bidirectional bind_source_ip burst_size client
    comm_rdma_cm congest_type connection connectionless cpu_id cpu_util cq-mod cqe_poll credentials_path
    cuda_mem_type data_enc_key_app_path data_enc_keys_number data_validation data_validation_debug
    dest_ip dest_mac dest_port disable_dynamic_polling disable_numa disable_pcie_relaxed dlid
    dont_xchg_versions dualport duration encrypt_on_tx ethertype events flow_label flows flows_burst
    force-link gid-index gpu_touch help hop_limit ib-dev ib-port inline_size ipv6 ipv6-addr iters
    kek_path latency_gap limit_bw limit_msgrate local_ip local_mac local_port log_active_dci_streams
    log_dci_streams mac_fwd margin mcg mmap mmap-offset mr_per_qp mtu noPeak no_enhanced_reorder no_lock
    numa_node odp opencl_platform_id out_json out_json_file output outs payload_file_path
    perform_warm_up ph pin_cores pkey_index port post_list promiscuous qp qp-timeout rate_limit
    rate_limit_type rate_units raw_ipv6 raw_mcast rdma_cm recv_post_list remote_ip remote_mac
    remote_port reply_every report-both report-counters report-cycles report-histogrm report-per-port
    report-unsorted report_gbits retry_count reversed run_infinitely rx-depth send_with_imm server
    sig_before sig_offload size sl sniffer source_ip source_mac source_port tclass tcp tos tph_mem
    tx-depth typical_pkt_size unsolicited_write use-null-mr use-srq use_cuda use_cuda_bus_id
    use_cuda_dmabuf use_cuda_pcie_mapping use_data_direct use_hl use_hugepages use_ib_dm_dmabuf use_mlu
    use_mlu_dmabuf use_musa use_musa_bus_id use_musa_dmabuf use_musa_pcie_mapping use_neuron
    use_neuron_dmabuf use_old_post_send use_ooo use_opencl use_rocm use_rocm_dmabuf use_rss vector
    version vlan_en vlan_pcp wait_destroy write_with_imm
)
unknown=()
for n in "${pt_long[@]}"; do
    RDX_EAL="--no-huge -l 0" timeout -k 2 10 "$PERF" ib_write_bw -d sw "--$n" --no-such-rdx-option \
        >/dev/null 2>"$TMP/lo.err"
    rc=$?
    # --help and --version print and exit 0
    if { [ "$rc" -ne 2 ] && ! { [ "$rc" -eq 0 ] && [[ $n == help || $n == version ]]; }; } ||
       grep -q "unknown option '--$n" "$TMP/lo.err"; then
        unknown+=("--$n (exit $rc: $(head -c 120 "$TMP/lo.err"))")
    fi
done
if [ "${#unknown[@]}" -eq 0 ] && [ "${#pt_long[@]}" -ge 150 ]; then
    pass "all ${#pt_long[@]} perftest long options are rdx-perf's or refused by name"
else
    fail "perftest options unknown to rdx-perf: ${unknown[*]}"
fi
# perftest's -Z/--server: the server (waits for a client on -p)
zp=$(free_port)
RDX_EAL="--no-huge -l 0" timeout -k 2 3 "$PERF" ib_write_bw -d sw -Z -p "$zp" >"$TMP/z.out" 2>"$TMP/z.err"
zrc=$?
if [ "$zrc" -eq 124 ] && grep -q "waiting for a client on port $zp" "$TMP/z.out"; then
    pass "-Z: a server that waits for its client"
else
    fail "-Z: exit $zrc: $(head -c 300 "$TMP/z.err")"
fi
# --use_hugepages is --mem huge: the same run (or the same refusal
# when the kernel has no hugepages)
RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_bw -d sw --loopback -n 1000 --use_hugepages \
    >"$TMP/hp.out" 2>"$TMP/hp.err"
hrc=$?
RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_bw -d sw --loopback -n 1000 --mem huge \
    >"$TMP/mh.out" 2>"$TMP/mh.err"
mrc=$?
if [ "$hrc" -eq "$mrc" ] && { [ "$hrc" -eq 0 ] || grep -q "of huge memory" "$TMP/hp.err"; } &&
   { [ "$hrc" -ne 0 ] || grep -qE "^ 65536 +1000 " "$TMP/hp.out"; }; then
    pass "--use_hugepages = --mem huge (exit $hrc both)"
else
    fail "--use_hugepages: exit $hrc, --mem huge exit $mrc: $(head -c 300 "$TMP/hp.err")"
fi
# -x on the software device: run, and said unused in one line
if RDX_EAL="--no-huge -l 0" timeout -k 5 60 "$PERF" ib_write_lat -d sw --loopback -n 200 -x 3 \
       >"$TMP/x.out" 2>"$TMP/x.err" && [ "$(wc -l <"$TMP/x.err")" -eq 1 ] &&
   grep -q "^rdx-perf: -x 3 is unused: the software device has no GID table" "$TMP/x.err" &&
   grep -qE "^ 2 +200 " "$TMP/x.out"; then
    pass "-x 3 on sw: $(cat "$TMP/x.err")"
else
    fail "-x 3 on sw: $(head -c 300 "$TMP/x.err")"
fi
bad "-A on write"   "-A applies to ib_atomic_bw and ib_atomic_lat" ib_write_bw -d sw -A FETCH_AND_ADD
bad "-A bad value"  "bad value 'ADD' for -A" ib_atomic_bw -d sw -A ADD
bad "-A no value"   "-A needs a value" ib_atomic_bw -d sw -A
bad "-- among them" "no '--' (EAL options go in RDX_EAL)" ib_write_bw -- -d sw
bad "-g (pingpong's GID index)" "perftest's -g/--mcg is not implemented by rdx-perf: multicast is not implemented (ibv_rc_pingpong's -g GID index is -x/--gid-index)" \
    ib_write_bw -d sw -g 1
finish
