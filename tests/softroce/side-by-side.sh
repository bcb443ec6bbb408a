#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdx-perf beside perftest and qperf on soft-RoCE, all in ONE guest boot (a
# benchmark: timings under TCG mean something only as ratios within a boot).
#
#   tests/softroce/side-by-side.sh [-b BUILD_DIR] [-o TABLE.md] [-T SECONDS] [-- side_by_side.py options]
#
# BUILD_DIR (default: build under the source tree) is where
# apps/rdx-perf/rdx-perf is looked for; without it only perftest and qperf
# run. The markdown table is printed and, with -o, written to TABLE.md.
# -T: the guest's time limit (default 3600 s: 5 rounds of every row take
# 25-40 min under TCG). side_by_side.py options: -r ROUNDS (interleaved,
# default 5), --rows KEYS, --only rc|ud, --rdx-perf-alt BINARY (A/B in one
# boot), --no-qperf; see its --help.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/../.." && pwd)/build
out=""
limit=3600
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=${2:?-b needs a build dir}; shift 2 ;;
    -o) out=${2:?-o needs a file}; shift 2 ;;
    -T) limit=${2:?-T needs seconds}; shift 2
        [[ "$limit" =~ ^[0-9]+$ ]] || { echo "side-by-side: -T needs a number of seconds" >&2; exit 2; } ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "side-by-side: unknown option '$1'" >&2; exit 2 ;;
    esac
done
exe="$build/apps/rdx-perf/rdx-perf"
[ -x "$exe" ] || { echo "side-by-side: no $exe: running perftest and qperf only" >&2; exe=""; }
log=$(mktemp /tmp/rdx-sbs.XXXXXX)
trap 'rm -f "$log"' EXIT
cmd="python3 $(printf '%q' "$here/side_by_side.py") --rdx-perf $(printf '%q' "$exe")"
for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
"$here/guest-run.sh" "$cmd" "$limit" | tee "$log"
rc=${PIPESTATUS[0]}
if [ -n "$out" ]; then
    sed -n '/^=== TABLE BEGIN/,/^=== TABLE END/p' "$log" | sed '1d;$d' >"$out"
    [ -s "$out" ] || { echo "side-by-side: no table produced" >&2; rc=1; }
fi
exit "$rc"
