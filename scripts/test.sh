#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what is missing, build, and run every test this machine can run:
# the CUnit unit tests and the end-to-end app tests (meson test -v), then the
# same again under AddressSanitizer + UndefinedBehaviorSanitizer, a short
# libFuzzer run of every fuzz target (clang), then the soft-RoCE functional
# suite in a qemu guest.
#   scripts/test.sh         (no options: README.md's command, and .ci/run's)
#   scripts/test.sh --help  this usage; any other argument is refused (exit 2)
set -euo pipefail
cd "$(dirname "$0")/.."
case $# in
0) ;;
*)  case "$1" in
    -h|--help)
        [ $# -eq 1 ] || { printf "test.sh: unexpected argument '%s' after %s (usage: scripts/test.sh [--help])\n" "${2//$'\n'/^J}" "$1" >&2; exit 2; }
        echo "usage: scripts/test.sh [--help]"
        echo "  Installs what is missing (scripts/setup.sh --softroce --fuzz), builds build/ and runs"
        echo "  every test this machine can run: meson test in build/ (all but the softroce suite),"
        echo "  the same under ASan+UBSan in build-asan/, ~15 s of libFuzzer per fuzz target in"
        echo "  build-fuzz/ (when clang is installed), then the softroce suite (rdma_rxe in a qemu guest)."
        echo "  It takes no options; one suite alone: meson test -C build --suite NAME"
        exit 0 ;;
    *)  printf "test.sh: unknown argument '%s' (it takes none; usage: scripts/test.sh [--help])\n" "${1//$'\n'/^J}" >&2
        exit 2 ;;
    esac ;;
esac
bash scripts/setup.sh --softroce --fuzz

jobs=$(nproc)
build() { # dir, extra meson args...
    local dir=$1; shift
    [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
    ninja -C "$dir" -j "$jobs"
}

build build
meson test -C build -v --no-suite softroce --print-errorlogs --num-processes 1

# Sanitizers: the unit and functional tests again.
build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan -v --no-suite softroce --no-suite install --print-errorlogs \
    --num-processes 1 --timeout-multiplier 3

# Fuzzing: only the fuzz targets (and the libraries they link) are built,
# each runs ~15 s over its checked-in corpus (tests/fuzz, suite fuzz).
if command -v clang >/dev/null 2>&1; then
    [ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true -Db_lundef=false >/dev/null
    ninja -C build-fuzz -j "$jobs" tests/fuzz/fuzz_conn tests/fuzz/fuzz_perf_opts \
        tests/fuzz/fuzz_sw_wqe tests/fuzz/fuzz_mlx5_cqe tests/fuzz/fuzz_perf_wire \
        tests/fuzz/fuzz_rpc_pkt tests/fuzz/fuzz_report_json
    meson test -C build-fuzz --no-rebuild -v --suite fuzz --print-errorlogs --num-processes 1
fi

# The real RDMA stack: rdx on rdma_rxe inside a qemu guest.
meson test -C build -v --suite softroce --print-errorlogs --num-processes 1
