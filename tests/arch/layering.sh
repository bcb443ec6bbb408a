#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One direction of dependency: apps -> drivers -> lib, never back.
#  1. No file under lib/ includes a header of drivers/ or apps/ (by path or
#     by the name of any header there), nor <infiniband/mlx5dv.h> (the mlx5
#     driver's vendor interface).
#  2. `nm` of each component's static library (BUILD/lib/librdx_<c>.a)
#     names no driver symbol (rdx_mlx5_*, rdx_sw_*, rdx_verbs_*) and no
#     mlx5dv_* function.
# Known exceptions are listed, one per line, in LAYERING_ALLOWLIST below;
# an entry that no longer matches anything fails the test too, so the list
# only ever shrinks (remove the entry with the code that needed it).
#
# usage: layering.sh SOURCE_DIR BUILD_DIR   (NM overrides the nm program)
set -euo pipefail

# Empty since driver registration (drivers register themselves; lib/dev
# names none). Keep it empty: fix the dependency instead of listing it.
LAYERING_ALLOWLIST=""

[ $# -eq 2 ] || { echo "usage: layering.sh SOURCE_DIR BUILD_DIR" >&2; exit 2; }
src=$1
build=$2
nm=${NM:-nm}
sym_re='^(rdx_mlx5_|rdx_sw_|rdx_verbs_|mlx5dv_)'

# Header names that belong to drivers/ and apps/.
forbidden_headers() {
    (cd "$src" && find drivers apps -name '*.h' -printf '%f\n' | sort -u)
    echo "mlx5dv.h"
}

# include_violations LIBDIR: "file:included" for each forbidden include.
include_violations() {
    local dir=$1 names
    names=$(forbidden_headers)
    (cd "$dir/.." && find lib -name '*.[ch]' | sort) | while read -r f; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' \
            "$dir/../$f" | while read -r inc; do
            case "$inc" in
            *drivers/*|*apps/*) echo "$f:$inc"; continue ;;
            esac
            if grep -qxF "${inc##*/}" <<<"$names"; then
                echo "$f:$inc"
            fi
        done
    done
}

# symbol_violations ARCHIVE LABEL: "LABEL:symbol" for each driver symbol
# (defined or referenced); exits non-zero when nm cannot read the archive.
symbol_violations() {
    local syms
    syms=$("$nm" "$1") || { echo "FAIL: $nm cannot read $1" >&2; return 1; }
    awk 'NF >= 2 { print $NF }' <<<"$syms" | grep -E "$sym_re" | sort -u |
        sed "s|^|$2:|" || true
}

allowed() {
    grep -qxF "$1" <<<"$LAYERING_ALLOWLIST"
}

# Self-check first: a planted violation must be caught, or the check is blind.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib/x"
printf '#include "rdx_mlx5.h"\n#include <stdio.h>\n' > "$tmp/lib/x/bad.c"
printf '#include "../../drivers/verbs/anything.h"\n' > "$tmp/lib/x/bad2.h"
printf 'void rdx_x(void);\n' > "$tmp/lib/x/good.c"
self=$(include_violations "$tmp/lib" | sort)
expect=$(printf 'lib/x/bad.c:rdx_mlx5.h\nlib/x/bad2.h:../../drivers/verbs/anything.h')
if [ "$self" != "$expect" ]; then
    echo "FAIL: self-check: planted includes not found as expected; got:"
    echo "$self"
    exit 1
fi

found=()
while read -r v; do
    [ -n "$v" ] && found+=("$v")
done < <(include_violations "$src/lib")

nb_libs=0
for d in "$src"/lib/*/; do
    c=$(basename "$d")
    [ -f "$d/meson.build" ] || continue
    a="$build/lib/librdx_$c.a"
    if [ ! -f "$a" ]; then
        echo "FAIL: $a not built (lib/meson.build builds every lib component there)"
        exit 1
    fi
    nb_libs=$((nb_libs + 1))
    syms=$(symbol_violations "$a" "lib/librdx_$c.a") || exit 1
    while read -r v; do
        [ -n "$v" ] && found+=("$v")
    done <<<"$syms"
done
if [ "$nb_libs" -eq 0 ]; then
    echo "FAIL: no lib components found under $src/lib"
    exit 1
fi

rc=0
for v in "${found[@]}"; do
    if allowed "$v"; then
        echo "allowed: $v"
    else
        echo "FAIL: lib depends on a driver: $v"
        rc=1
    fi
done
while read -r e; do
    [ -z "$e" ] && continue
    hit=0
    for v in "${found[@]}"; do
        [ "$v" = "$e" ] && hit=1
    done
    if [ "$hit" -eq 0 ]; then
        echo "FAIL: allowlist entry no longer needed, remove it from LAYERING_ALLOWLIST: $e"
        rc=1
    fi
done <<<"$LAYERING_ALLOWLIST"
[ "$rc" -eq 0 ] && echo "PASS: $nb_libs lib components, no dependency on drivers/ or apps/ beyond the allowlist"
exit $rc
