#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install rdx into a staging directory and build a small program against it
# with `pkg-config --cflags --libs rdx`, as a service embedding rdx would.
# Usage: pkgconfig.sh BUILD_DIR
set -euo pipefail
build=$1
stage=$(mktemp -d /tmp/rdx-install.XXXXXX)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --no-rebuild --destdir "$stage" >/dev/null
pc=$(find "$stage" -name rdx.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no rdx.pc installed"; exit 1; }
# Point rdx.pc's prefix at the stage (what installing with --prefix there
# would have written); its dependencies (libdpdk, ...) stay the system's.
mkdir -p "$stage/pc"
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed "s|^prefix=.*|prefix=$stage$prefix|" "$pc" > "$stage/pc/rdx.pc"
export PKG_CONFIG_PATH="$stage/pc"
cflags=$(pkg-config --cflags rdx)
libs=$(pkg-config --libs rdx)
echo "pkg-config rdx: $cflags $libs" | cut -c1-200

for h in rdx_dev.h rdx_dev_core.h rdx_dev_stats.h rdx_runtime.h rdx_hist.h rdx_report.h rdx_perf.h rdx_conn.h rdx_config.h; do
    find "$stage" -path "*/include/rdx/$h" | grep -q . || { echo "FAIL: header $h not installed"; exit 1; }
done
# The driver interface, the drivers' own headers and the path stamps are
# internal: never installed.
for h in rdx_dev_driver.h rdx_mlx5.h rdx_stamp.h mlx5_hw.h verbs_dev.h; do
    if find "$stage" -name "$h" | grep -q .; then
        echo "FAIL: $h is installed (internal to the tree)"; exit 1
    fi
done

cat > "$stage/embed.c" <<'C'
#include <stdio.h>
#include <rdx_dev.h>
#include <rdx_hist.h>

static struct rdx_hist h;

int main(void)
{
	rdx_hist_init(&h);
	for (unsigned int i = 1; i <= 1000; i++)
		rdx_hist_record(&h, i);
	printf("p50=%.0f mem=%s op=%s drivers=%u\n", rdx_hist_percentile(&h, 50),
	       rdx_mem_type_name(RDX_MEM_HUGE), rdx_op_name(RDX_OP_CAS),
	       rdx_dev_driver_count());
	return 0;
}
C
cc -std=gnu11 -o "$stage/embed" "$stage/embed.c" $cflags $libs
libdir=$(dirname "$(dirname "$pc")")
out=$(LD_LIBRARY_PATH="$libdir" "$stage/embed")
echo "$out"
case "$out" in
*"mem=huge op=ATOMIC_CS drivers=3"*) ;; # the shared library registers all three
*) echo "FAIL: unexpected output from the embedded program"; exit 1 ;;
esac
p50=$(echo "$out" | sed -n 's/^p50=\([0-9]*\).*/\1/p')
# Median of 1..1000 is 500; the histogram is exact below its first octave
# and within 1% above.
[ "$p50" -ge 495 ] && [ "$p50" -le 505 ] || { echo "FAIL: p50=$p50"; exit 1; }
echo "PASS: installed rdx builds and runs through pkg-config"
