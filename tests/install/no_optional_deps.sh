#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# meson setup -Dtests=false on a machine without CUnit, Open MPI, librdmacm
# and libmlx5, simulated without removing anything: pkg-config runs through
# a wrapper that reports those four packages absent (the others pass through
# to the real pkg-config), and a native file points mpicc, meson's other way
# to find MPI, at false. The configure must succeed and its summary name
# each part left out with the Debian package that would bring it back; then
# rdx-perf builds without librdmacm; with -Dtests=true the CUnit tests are
# left out, with their reason.
# Usage: no_optional_deps.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/rdx-nodeps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

real=$(command -v pkg-config)
cat >"$tmp/pkg-config" <<SH
#!/bin/sh
for a in "\$@"; do
    case "\$a" in
    cunit|ompi|ompi-c|mpi|librdmacm|libmlx5) exit 1 ;;
    esac
done
exec $real "\$@"
SH
chmod +x "$tmp/pkg-config"
printf "[binaries]\npkgconfig = '%s'\nmpicc = 'false'\n" "$tmp/pkg-config" >"$tmp/native.ini"

if ! meson setup "$tmp/b" "$src" -Dtests=false --native-file "$tmp/native.ini" >"$tmp/setup" 2>&1; then
    tail -n 20 "$tmp/setup"
    echo "FAIL: meson setup -Dtests=false without the optional packages"
    exit 1
fi
pass "meson setup -Dtests=false succeeds without CUnit, Open MPI, librdmacm, libmlx5"
summary=$(sed -n '/^  Left out$/,/^$/p' "$tmp/setup")
echo "$summary"
want() { # regex what
    if grep -Eq -- "$1" <<<"$summary"; then pass "$2"; else fail "$2: no '$1' in the summary"; fi
}
want 'drivers/mlx5: hardware path.*: missing dependency libmlx5 \(Debian package libibverbs-dev\)' \
    "the mlx5 hardware path is left out for libmlx5"
want 'lib/boot rdmacm *: missing dependency librdmacm \(Debian package librdmacm-dev\)' \
    "lib/boot's rdmacm provider (rdx-perf -R) is left out for librdmacm"
want 'rdx-perf --pattern \(MPI\) *:.*libopenmpi-dev' "rdx-perf --pattern is left out for Open MPI"
grep -Eq 'drivers/mlx5 *: built' "$tmp/setup" && pass "the software device is still built" ||
    fail "drivers/mlx5 (the software device) not built"

if ! ninja -C "$tmp/b" apps/rdx-perf/rdx-perf >"$tmp/ninja" 2>&1; then
    tail -n 20 "$tmp/ninja"
    fail "rdx-perf does not build without the optional packages"
else
    pass "rdx-perf builds"
    exe=$tmp/b/apps/rdx-perf/rdx-perf
    # (-R itself needs a verbs device, which main.c checks first)
    if grep -q "built without librdmacm" "$exe" && ! ldd "$exe" | grep -q librdmacm; then
        pass "rdx-perf has boot.c's refusal of -R and does not link librdmacm"
    else
        fail "rdx-perf links librdmacm or lacks the -R refusal"
    fi
fi
# The same with the tests on: the CUnit tests are left out, the rest stays.
if meson setup "$tmp/t" "$src" -Dtests=true --native-file "$tmp/native.ini" >"$tmp/setup_t" 2>&1 &&
        grep -Eq 'tests: CUnit tests.*: missing dependency cunit \(Debian package libcunit1-dev\)' "$tmp/setup_t"; then
    pass "-Dtests=true without CUnit: configures, the CUnit tests left out with the reason"
else
    tail -n 20 "$tmp/setup_t"
    fail "-Dtests=true without CUnit"
fi
[ "$fails" -eq 0 ] && { echo "all checks passed"; exit 0; }
echo "$fails check(s) failed"
exit 1
