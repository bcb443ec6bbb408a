#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# README.md's "Using the library" recipe, run exactly as written: the first
# ```sh block of that section, line by line (bash -e), in a copy of the
# source tree with HOME in a scratch folder; then what it printed is
# checked (pkg-config's flags, the example's drivers and percentile).
# Usage: readme_recipe.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/rdx-readme.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the block, from the README itself: a README change is tested as it is
awk '/^## Using the library/ { s = 1; next }
     s && /^## / { exit }
     s && /^```sh$/ && !done { b = 1; next }
     b && /^```$/ { b = 0; done = 1; next }
     b { print }' "$src/README.md" > "$tmp/recipe.sh"
[ -s "$tmp/recipe.sh" ] || { echo "FAIL: no \`\`\`sh block under '## Using the library' in README.md"; exit 1; }
echo "--- the recipe (README.md):"
cat "$tmp/recipe.sh"

# a clean copy of the sources (no build directories)
mkdir -p "$tmp/src" "$tmp/home"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # tracked files as they are in the working tree (edits included)
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
        tar -xf - -C "$tmp/src"
else
    tar -C "$src" --exclude='./build*' -cf - . | tar -xf - -C "$tmp/src"
fi

echo "--- running it in a copy of the sources, HOME=$tmp/home"
if ! (cd "$tmp/src" && HOME="$tmp/home" PKG_CONFIG_PATH= LD_LIBRARY_PATH= \
        bash -euo pipefail "$tmp/recipe.sh") >"$tmp/out" 2>&1; then
    tail -n 30 "$tmp/out"
    echo "FAIL: the README recipe failed as typed"
    exit 1
fi
out=$(cat "$tmp/out")
fails=0
check() { # NAME REGEX
    if grep -Eq -- "$2" <<< "$out"; then echo "ok   $1"; else echo "FAIL $1: no line matching /$2/"; fails=$((fails + 1)); fi
}
check "pkg-config: the installed headers and library" "^-I$tmp/home/\.local/include/rdx .*-L$tmp/home/\.local/lib -lrdx"
check "pkg-config: DPDK's flags come along (rdx_runtime.h needs them)" "include/dpdk"
check "the example lists the software driver" "^driver sw: "
check "the example runs: 3 drivers, p50 500" "^3 drivers; p50 of 1\.\.1000 = 50[0-5]$"
pc=$(find "$tmp/home/.local" -name rdx.pc | head -n 1)
if grep -q rdmacm "$pc"; then
    echo "FAIL rdx.pc names librdmacm, which the library does not use: $(grep Requires "$pc")"
    fails=$((fails + 1))
else
    echo "ok   rdx.pc: $(grep '^Requires' "$pc" | tr '\n' ' ')"
fi
so=$(find "$tmp/home/.local/lib" -name 'librdx.so*' | head -n 1)
if readelf -d "$so" | grep -q 'librdmacm'; then
    echo "FAIL librdx.so links librdmacm"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || exit 1
echo "PASS: README's library recipe works as typed"
