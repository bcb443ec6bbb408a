# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers of the checks of bench's analysis scripts (sourced). Each
# check writes its input here, runs one script on it and matches the output;
# none needs a build, a guest or a device. Usage: bash bench/check/NAME.sh
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d /tmp/rdx-bench-check.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
finish() {
    if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed"; exit 1; fi
    echo "all checks passed"; exit 0
}
# want REGEX WHAT: a line of $TMP/out matches REGEX (grep -E), else the
# check fails and $TMP/out is shown
want() {
    if grep -Eq -- "$1" "$TMP/out"; then pass "$2"; else fail "$2: no line matching '$1' in:"; cat "$TMP/out"; fi
}
