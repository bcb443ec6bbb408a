#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/softroce/sbs_ab.py on a side-by-side log written here (no guest):
# each tool's median over the rounds, the per-round ratio of a pair and how
# often the first was lower, the runs split by what ran just before (across
# rows), each tool by its place in the round and the pairs' ratio at the
# same place, a rate row read from Mop/s, "-" runs left out; a missing file and
# wrong arguments exit 2, a log without runs exits 1.
source "$(dirname "$0")/lib.sh"

AB=$SRC/bench/softroce/sbs_ab.py
cat >"$TMP/log" <<'LOG'
== round 1/3: write lat (8 B, 20000 iterations)
  server: taskset -c 1 ib_write_lat ...
  run: ib_write_lat median 10.00 us p99 20.00 us rate 0.0500 Mop/s ksoftirqd waited 0.00 ms
  run: rdx-perf median 11.00 us p99 21.00 us rate 0.0400 Mop/s ksoftirqd waited 0.10 ms
== round 1/3: write bw (4096 B, 3000 iterations)
  run: ib_write_bw median - us p99 - us rate 0.0060 Mop/s ksoftirqd waited 0.00 ms
  run: rdx-perf median - us p99 - us rate 0.0066 Mop/s ksoftirqd waited 0.00 ms
== round 2/3: write lat (8 B, 20000 iterations)
  run: rdx-perf median 12.00 us p99 22.00 us rate 0.0400 Mop/s ksoftirqd waited 0.10 ms
  run: ib_write_lat median 10.00 us p99 20.00 us rate 0.0500 Mop/s ksoftirqd waited 0.00 ms
== round 2/3: write bw (4096 B, 3000 iterations)
  run: rdx-perf median - us p99 - us rate - Mop/s ksoftirqd waited 0.00 ms
  run: ib_write_bw median - us p99 - us rate 0.0062 Mop/s ksoftirqd waited 0.00 ms
== round 3/3: write lat (8 B, 20000 iterations)
  run: ib_write_lat median 10.00 us p99 20.00 us rate 0.0500 Mop/s ksoftirqd waited 0.00 ms
  run: rdx-perf median 13.00 us p99 23.00 us rate 0.0400 Mop/s ksoftirqd waited 0.10 ms
LOG
python3 "$AB" "$TMP/log" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] && pass "a log of 3 rounds: exit 0" || fail "a log of 3 rounds: exit $rc ($(cat "$TMP/err"))"
want '^write lat \(us; 6 runs\)$' "the lat row: 6 runs, in us"
want '^  ib_write_lat +n=3 +median +10\.000 +min +10\.000 +max +10\.000$' "perftest's median over the rounds"
want '^  rdx-perf +n=3 +median +12\.000 +min +11\.000 +max +13\.000$' "rdx-perf's median, min and max"
want '^  ib_write_lat / rdx-perf: per-round ratio median 0\.833, difference median -2\.000 us, first lower in 3/3 rounds$' \
    "the per-round ratio (10/12 the median of 10/11, 10/12, 10/13) and the rounds lower"
want '^  rdx-perf +after other +n=2 +median +12\.000$' "rdx-perf after perftest: rounds 1 and 3"
want '^  rdx-perf +after rdx-perf +n=1 +median +12\.000$' "rdx-perf after rdx-perf: round 2, after round 1's bw row"
want '^  ib_write_lat +after rdx-perf +n=1 +median +10\.000$' "perftest after rdx-perf: round 2 (round 1's first run has none before it)"
want '^  ib_write_lat +after other +n=1 +median +10\.000$' "perftest after another tool: round 3, after the bw row's perftest"
want '^  ib_write_bw +after rdx-perf +n=2 +median +0\.0061$' "a run that measured nothing still ran before the next"
want '^write bw \(Mop/s; 3 runs\)$' "the bw row: the run with rate - left out"
want '^  rdx-perf +n=1 +median +0\.0066 +min +0\.0066 +max +0\.0066$' "the bw row read from Mop/s"
want '^  ib_write_lat +run 1 of its round +n=2 +median +10\.000$' "perftest first in rounds 1 and 3"
want '^  rdx-perf +run 2 of its round +n=2 +median +12\.000$' "rdx-perf second in rounds 1 and 3: 11 and 13"
want '^  ib_write_lat / rdx-perf at the same place in the round: run 1: 0\.833 \(n=2/1\), run 2: 0\.833 \(n=1/2\)$' \
    "the ratio at each place both took: 10/12 first and second"
want '^  ib_write_bw / rdx-perf at the same place in the round: run 2: 0\.939 \(n=1/1\)$' \
    "a run that measured nothing keeps its place; first place has no rdx-perf value, so only the second"
if grep -q 'after.*n=0' "$TMP/out"; then fail "an empty split printed"; else pass "no empty split"; fi

python3 "$AB" "$TMP/none.log" >/dev/null 2>"$TMP/err1"
rc=$?
[ "$rc" = 2 ] && grep -q "sbs_ab.py:" "$TMP/err1" && [ "$(wc -l <"$TMP/err1")" = 1 ] &&
    pass "a missing log: exit 2, one line" || fail "a missing log: exit $rc, stderr: $(cat "$TMP/err1")"
python3 "$AB" >/dev/null 2>"$TMP/err2"
rc=$?
[ "$rc" = 2 ] && grep -q "usage" "$TMP/err2" && pass "no argument: usage, exit 2" || fail "no argument: exit $rc"
echo "nothing here" >"$TMP/empty.log"
python3 "$AB" "$TMP/empty.log" >/dev/null 2>"$TMP/err3"
rc=$?
[ "$rc" = 1 ] && grep -q "no 'run:' lines" "$TMP/err3" && pass "a log without runs: exit 1, one line" ||
    fail "a log without runs: exit $rc, stderr: $(cat "$TMP/err3")"
finish
