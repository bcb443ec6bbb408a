#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# -b across two processes (--server / --connect) on the software device:
# both processes run the bandwidth loop at once; the client prints its row,
# the server's row (from ENDACK) and their sum, the server its own row.
# Checked for write, read, send and write_imm with --verify: both exit 0,
# three rows, every figure non-zero (BW peak too: the server's comes in its
# ENDACK, the sum adds both), -n ops exactly on each side, the sum
# equal to the two rows (the table within its rounding, the JSON's bytes/s
# within 1e-9), the server's own row equal to the one the client got. Then
# a timed run (-D), --output=bandwidth (the sum), -b on one end only, and
# the combinations refused in one line. A server that answers ENDACK with
# bad counts: hostile_peer.sh.
source "$(dirname "$0")/lib.sh"

PAIR_TIMEOUT=90

# rows NAME OPS: the client's table, its JSON and the server's table agree
rows() {
    python3 - "$TMP/$1.c.out" "$TMP/$1.json" "$TMP/$1.s.out" "$2" <<'PY'
import json, re, sys
cout, cjson, sout, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def table(path):
    rows = {}
    for l in open(path):
        # BW peak: a number on every row
        m = re.match(r"^ (\d+) +(\d+) +(-|[0-9.]+) +([0-9.]+) +([0-9.]+) +(.+?)( SHORT)?$", l.rstrip())
        if m:
            rows[m.group(6)] = (int(m.group(2)), float(m.group(4)), float(m.group(5)))
            peaks[(path, m.group(6))] = m.group(3)
    return rows
peaks = {}
c = table(cout)
assert set(c) == {"client (this process)", "server", "sum (-b)"}, c
cl, sv, sm = c["client (this process)"], c["server"], c["sum (-b)"]
for r in (cl, sv, sm):
    assert r[0] > 0 and r[1] > 0 and r[2] > 0, c
if n > 0:
    assert cl[0] == n and sv[0] == n and sm[0] == 2 * n, c
assert sm[0] == cl[0] + sv[0], c
# BW peak: a number on every row (a parser's float()), the server's from
# its ENDACK, the sum adding the two (perftest's -b peak)
pc, ps, pm = (float(peaks[(cout, k)]) for k in ("client (this process)", "server", "sum (-b)"))
assert pc > 0 and ps > 0, peaks
assert abs(pm - (pc + ps)) <= 0.016, peaks
# MiB/s and Mpps are printed with 2 and 6 decimals
assert abs(sm[1] - (cl[1] + sv[1])) <= 0.011, c
assert abs(sm[2] - (cl[2] + sv[2])) <= 0.0000011, c
s = table(sout)
assert set(s) == {"server (this process)"}, s
own = s["server (this process)"]
assert own[0] == sv[0] and abs(own[1] - sv[1]) <= 0.011 + 1e-6 * own[1], (own, sv)
# the server's own peak and the one it sent (1 KiB/s = 0.001 MiB/s apart)
assert abs(float(peaks[(sout, "server (this process)")]) - ps) <= 0.012, peaks
rep = json.load(open(cjson))
assert rep["knobs"]["bidirectional"] == "on (both processes post)", rep["knobs"]
tot = {r["rank"]: r for r in rep["results"] if r["lcore"] == -1}
assert set(tot) == {0, 1, -1}, tot
assert [tot[k]["host"] for k in (0, 1, -1)] == ["client", "server", "client+server"]
assert tot[-1]["bytes"] == tot[0]["bytes"] + tot[1]["bytes"]
assert tot[-1]["ops"] == tot[0]["ops"] + tot[1]["ops"]
want = tot[0]["bytes_per_s"] + tot[1]["bytes_per_s"]
assert abs(tot[-1]["bytes_per_s"] - want) <= 1e-9 * want, (tot[-1]["bytes_per_s"], want)
assert abs(tot[0]["bytes_per_s"] / 2**20 - cl[1]) <= 0.011, (tot[0], cl)
pk = {k: tot[k].get("peak_bytes_per_s", 0) for k in (0, 1, -1)}
assert pk[0] > 0 and pk[1] > 0 and pk[1] % 1024 == 0, pk
assert abs(pk[-1] - (pk[0] + pk[1])) <= 1e-9 * pk[-1], pk
PY
}

for t in write read send write_imm; do
    case $t in
    send|write_imm) n=1000; s=1K ;;
    *) n=3000; s=4K ;;
    esac
    a=(--test "$t" --mode bw -s "$s" -n "$n" -b --verify)
    pair_split "$t" "${a[@]}" :: "${a[@]}" --json "$TMP/$t.json"
    if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] &&
       grep -q "every payload byte checked: OK" "$TMP/$t.c.err" &&
       rows "$t" "$n" 2>"$TMP/$t.chk"; then
        pass "-b two processes: $t -n $n --verify: $(grep -E "sum \(-b\)" "$TMP/$t.c.out" | tr -s ' ')"
    else
        fail "-b two processes: $t: client $CRC server $SRC_RC: $(tail -n 2 "$TMP/$t.c.err" | tr '\n' '|') / $(tail -n 2 "$TMP/$t.s.err" | tr '\n' '|') $(tail -n 3 "$TMP/$t.chk" 2>/dev/null | tr '\n' '|')"
    fi
done

# -D: both loops run the same time; counts differ, the sum still adds up
a=(--test write --mode bw -s 1K -D 0.3 -b)
pair_split timed "${a[@]}" :: "${a[@]}" --json "$TMP/timed.json"
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] && rows timed 0 2>"$TMP/timed.chk"; then
    pass "-b two processes: write -D 0.3"
else
    fail "-b two processes: write -D 0.3: client $CRC server $SRC_RC: $(tail -n 1 "$TMP/timed.c.err") $(tail -n 3 "$TMP/timed.chk" 2>/dev/null | tr '\n' '|')"
fi

# --output=bandwidth: perftest's one figure of -b is the sum, one line
a=(--test write --mode bw -s 4K -n 2000 -b)
pair_split outbw "${a[@]}" :: "${a[@]}" --output=bandwidth --json "$TMP/outbw.json"
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] && [ "$(wc -l <"$TMP/outbw.c.out")" -eq 1 ] &&
   python3 - "$TMP/outbw.json" "$(cat "$TMP/outbw.c.out")" <<'PY'
import json, sys
tot = [r for r in json.load(open(sys.argv[1]))["results"] if r["lcore"] == -1 and r["rank"] == -1]
assert len(tot) == 1 and abs(tot[0]["bytes_per_s"] / 2**20 - float(sys.argv[2])) <= 0.006, (tot, sys.argv[2])
PY
then
    pass "-b --output=bandwidth: the sum, $(cat "$TMP/outbw.c.out") MiB/s"
else
    fail "-b --output=bandwidth: client $CRC server $SRC_RC: $(head -c 300 "$TMP/outbw.c.out" | tr '\n' '|')"
fi

# -b on one end only: both refuse in one line, exit 2
pair_split half --test write --mode bw -s 1K -n 100 :: --test write --mode bw -s 1K -n 100 -b
if [ "$CRC" -eq 2 ] && [ "$SRC_RC" -eq 2 ] && [ "$(wc -l <"$TMP/half.c.err")" -eq 1 ] &&
   grep -q "give -b to both ends or to neither" "$TMP/half.c.err" &&
   grep -q "give -b to both ends or to neither" "$TMP/half.s.err"; then
    pass "-b on the client only: $(cat "$TMP/half.c.err")"
else
    fail "-b on the client only: client $CRC server $SRC_RC: $(cat "$TMP/half.c.err" "$TMP/half.s.err" | tr '\n' '|')"
fi

# refused NAME PATTERN ARGS..: exit 2, exactly one stderr line matching PATTERN
refused() {
    local d=$1 pat=$2; shift 2
    timeout -k 2 30 "$PERF" --no-huge -l 0 -- --dev sw "$@" >/dev/null 2>"$TMP/err"
    local rc=$? lines
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
        pass "$d: $(cat "$TMP/err")"
    else
        fail "$d: exit $rc, $lines line(s): $(head -c 300 "$TMP/err" | tr '\n' '|')"
    fi
}
refused "-b --mode lat" "-b applies to --mode bw" --server --test write --mode lat -b
refused "-b --rate" "-b with --rate" --connect 127.0.0.1:1 --test write --mode bw --rate 1000 -b
refused "-b echo" "-b is implemented for --test write and read, send and write_imm" \
    --server --test echo -b --mode bw
refused "-b faa" "test faa is not" --server --test faa --mode bw -b
refused "-b --transport ud" "over --transport ud is not implemented" \
    --server --test send --mode bw --transport ud -b
refused "-b --qp-sweep" "--qp-sweep does not apply" --server --test write --mode bw -b --qp-sweep 1-2
refused "-b send in one process" "send and write_imm across two" --loopback --test send --mode bw -b
finish
