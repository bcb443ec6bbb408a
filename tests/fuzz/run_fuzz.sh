#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One bounded fuzzing run for meson test (suite fuzz):
#   run_fuzz.sh TARGET CORPUS DICT WORKDIR SECONDS
# New inputs go to WORKDIR/corpus (the checked-in corpus is only read),
# reproducers to WORKDIR/artifacts. Exit non-zero on any crash, leak,
# sanitizer report or timeout (libFuzzer's own exit status).
set -eu
target=$1 corpus=$2 dict=$3 work=$4 secs=$5
mkdir -p "$work/corpus" "$work/artifacts"
exec "$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -dict="$dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" "$corpus"
