#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what is missing, build, and run every test this machine can run:
# the CUnit unit tests and the end-to-end app tests (meson test -v), then the
# same again under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# soft-RoCE functional suite in a qemu guest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --softroce

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
    meson test -C build-asan -v --no-suite softroce --no-suite slow --no-suite install --print-errorlogs \
    --num-processes 1 --timeout-multiplier 3

# The real RDMA stack: rdx on rdma_rxe inside a qemu guest.
meson test -C build -v --suite softroce --print-errorlogs --num-processes 1
