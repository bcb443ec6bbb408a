#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/softroce/prof_diff.py on profiles written here (no guest): a
# symbol's cost per round trip is its share of the window's samples times
# 4 x the run's median; the kernel, user, other-thread and idle sums per
# tool; the symbols ordered by difference, in us and as shares of each
# tool's kernel time; a round with no median left out; bad arguments exit
# 2, a tool with no usable round exits 1.
source "$(dirname "$0")/lib.sh"

PD=$SRC/bench/softroce/prof_diff.py
D=$TMP/prof
mkdir -p "$D"
echo 10.00 >"$D/perftest.1.median"
cat >"$D/perftest.1.txt" <<'TXT'
    40.00%|000|ib_write_lat    |[k] rxe_requester
    30.00%|001|ib_write_lat    |[k] copy_data
    10.00%|000|ib_write_lat    |[.] 0x0000000000021c76
    15.00%|001|swapper         |[k] native_safe_halt
     5.00%|000|ksoftirqd/0     |[k] run_ksoftirqd
TXT
echo 10.00 >"$D/rdx-perf.1.median"
cat >"$D/rdx-perf.1.txt" <<'TXT'
# a comment line perf may print
    40.00%|000|rdx-perf        |[k] rxe_requester
    10.00%|001|rdx-perf        |[k] ksys_write
    50.00%|001|rdx-perf        |[.] perf_pingpong_run
TXT
# a round whose run printed no figure: left out
echo inf >"$D/rdx-perf.2.median"
cp "$D/rdx-perf.1.txt" "$D/rdx-perf.2.txt"
python3 "$PD" "$D" 5 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] && pass "two tools' profiles: exit 0" || fail "two tools' profiles: exit $rc ($(cat "$TMP/err"))"
want '^  perftest +rounds 1 \(medians 10\.00\): kernel +28\.00 +user +4\.00 +other threads +2\.00 +idle +6\.00$' \
    "perftest per round trip: kernel 0.7 x 40 us, user, ksoftirqd, idle"
want '^  rdx-perf +rounds 1 \(medians 10\.00\): kernel +20\.00 +user +20\.00 ' "rdx-perf: the inf round left out"
want '^  kernel +copy_data +12\.000 +0\.000 +-12\.000$' "copy_data first: the largest difference in us"
want '^  kernel +ksys_write +0\.000 +4\.000 +\+4\.000$' "ksys_write: only rdx-perf's"
want '^  other +ksoftirqd/0 +2\.000 +0\.000 +-2\.000$' "another thread's time is listed by its command"
want '^  copy_data +42\.86% +0\.00% +-42\.86$' "as a share of perftest's kernel time: 12 of 28 us"
want '^  rxe_requester +57\.14% +80\.00% +\+22\.86$' "rxe_requester: 16 of 28 against 16 of 20"
if grep -q "native_safe_halt\|perf_pingpong_run" "$TMP/out"; then fail "idle or user symbols in the kernel tables"
else pass "idle and user symbols stay out of the kernel tables"; fi

python3 "$PD" "$TMP/nowhere" >/dev/null 2>"$TMP/e1"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/e1")" = 1 ] && pass "a missing directory: exit 2, one line" ||
    fail "a missing directory: exit $rc, stderr: $(cat "$TMP/e1")"
python3 "$PD" "$D" 0 >/dev/null 2>"$TMP/e2"
rc=$?
[ "$rc" = 2 ] && grep -q "TOP" "$TMP/e2" && pass "TOP 0: exit 2" || fail "TOP 0: exit $rc"
python3 "$PD" >/dev/null 2>"$TMP/e3"
rc=$?
[ "$rc" = 2 ] && grep -q "usage" "$TMP/e3" && pass "no argument: usage, exit 2" || fail "no argument: exit $rc"
rm "$D/rdx-perf.1.median"
python3 "$PD" "$D" >/dev/null 2>"$TMP/e4"
rc=$?
[ "$rc" = 1 ] && grep -q "no usable round of rdx-perf" "$TMP/e4" && pass "no usable rdx-perf round: exit 1" ||
    fail "no usable rdx-perf round: exit $rc, stderr: $(cat "$TMP/e4")"
finish
