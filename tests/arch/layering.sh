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
#  3. Within one folder of lib/, drivers/ or apps/, no two source files call
#     each other: from `nm` of each file's object (BUILD/compile_commands.json
#     names it), a pair where each references a function (T/W) the other
#     defines fails, named with one function each way. Data (log types, ops
#     tables) is not a call and is not counted. Known pairs are listed in
#     CIRCLE_KNOWN below and printed on every run; a new pair fails, and so
#     does a listed pair that is gone (remove it from the list).
# Known exceptions are listed, one per line, in LAYERING_ALLOWLIST below;
# an entry that no longer matches anything fails the test too, so the list
# only ever shrinks (remove the entry with the code that needed it).
#
# usage: layering.sh SOURCE_DIR BUILD_DIR   (NM overrides the nm program)
set -euo pipefail

# Empty since driver registration (drivers register themselves; lib/dev
# names none). Keep it empty: fix the dependency instead of listing it.
LAYERING_ALLOWLIST=""

# Pairs of files of one folder that still call each other. Empty since
# rdx-perf's bootstraps and loops and rdx-selfcheck's checks call only
# down (issue 28): keep it empty, fix the calls instead of listing them.
CIRCLE_KNOWN=""

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

# objects SRC BUILD: "source<TAB>object" for each source of lib/, drivers/
# and apps/ (its first object outside tests/, from compile_commands.json).
objects() {
    local src=$1 build=$2 s
    s=$(cd "$src" && pwd -P)
    # meson writes one "key": "value" per line, "file" before "output"
    awk -F'"' '$2 == "file" { f = $4 }
        $2 == "output" && f != "" && $4 !~ /^tests\// { print f "\t" $4; f = "" }' \
        "$build/compile_commands.json" |
    while IFS=$'\t' read -r f o; do
        case "$f" in /*) ;; *) f="$build/$f" ;; esac
        f=$(realpath -m "$f")
        f=${f#"$s"/}
        case "$f" in lib/*|drivers/*|apps/*) printf '%s\t%s\n' "$f" "$build/$o" ;; esac
    done | awk -F'\t' '!seen[$1]++'
}

# symbol_table: reads "source<TAB>object", prints "source D|U symbol" for the
# global symbols each object defines or references.
symbol_table() {
    local f o
    while IFS=$'\t' read -r f o; do
        "$nm" -P "$o" | awk -v f="$f" '
            $2 == "U" { print f, "U", $1; next }
            $2 == "T" || $2 == "W" { print f, "D", $1 }'
    done
}

# circle_pairs: reads "source D|U symbol"; prints one line per pair of
# sources of one folder where each references a symbol the other defines.
circle_pairs() {
    awk '
    function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
    $2 == "D" { def[$3] = $1; next }
    $2 == "U" { ref[++n] = $1 SUBSEP $3 }
    END {
        for (i = 1; i <= n; i++) {
            split(ref[i], r, SUBSEP)
            g = def[r[2]]
            if (g == "" || g == r[1] || dir(g) != dir(r[1])) continue
            if (!((r[1], g) in calls) || r[2] < calls[r[1], g])
                calls[r[1], g] = r[2]
        }
        for (k in calls) {
            split(k, p, SUBSEP)
            if (p[1] < p[2] && ((p[2], p[1]) in calls))
                printf "%s <-> %s (%s calls %s, %s calls %s)\n", p[1], p[2],
                    p[1], calls[p[1], p[2]], p[2], calls[p[2], p[1]]
        }
    }' | sort
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

# The same for the circle check, on a planted symbol table: x/a.c and x/b.c
# call each other, x/c.c only calls down, y/d.c is in another folder.
self=$(printf '%s\n' 'x/a.c D fa' 'x/a.c U fb' 'x/b.c D fb' 'x/b.c U fa' \
    'x/c.c D fc' 'x/c.c U fa' 'y/d.c D fd' 'y/d.c U fa' 'x/a.c U fd' | circle_pairs)
if [ "$self" != "x/a.c <-> x/b.c (x/a.c calls fb, x/b.c calls fa)" ]; then
    echo "FAIL: self-check: planted circle not found as expected; got:"
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

# 3. Circles within one folder.
if [ ! -f "$build/compile_commands.json" ]; then
    echo "FAIL: $build/compile_commands.json missing (meson writes it)"
    exit 1
fi
objs=$(objects "$src" "$build")
nb_objs=$(grep -c . <<<"$objs" || true)
for o in $(cut -f2 <<<"$objs"); do
    [ -f "$o" ] || { echo "FAIL: object $o not built"; exit 1; }
done
pairs=$(symbol_table <<<"$objs" | circle_pairs)
crc=0
while read -r p; do
    [ -z "$p" ] && continue
    if grep -qxF "${p%% (*}" <<<"$CIRCLE_KNOWN"; then
        echo "known: $p (issue 28)"
    else
        echo "FAIL: files call each other: $p"
        crc=1
    fi
done <<<"$pairs"
while read -r k; do
    [ -z "$k" ] && continue
    if ! grep -qF "$k (" <<<"$pairs"; then
        echo "FAIL: known pair no longer calls both ways, remove it from CIRCLE_KNOWN: $k"
        crc=1
    fi
done <<<"$CIRCLE_KNOWN"
[ "$crc" -eq 0 ] && echo "PASS: $nb_objs objects, no two files of one folder call each other beyond the known pairs"
[ "$crc" -eq 0 ] || rc=1
exit $rc
