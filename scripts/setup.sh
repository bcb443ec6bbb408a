#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages rdx needs, only those missing: a second run
# does nothing and takes about a second.
#   scripts/setup.sh            build + unit/functional tests + benchmarks
#   scripts/setup.sh --softroce also the qemu + rdma_rxe test bed
#   scripts/setup.sh --fuzz     also clang + libFuzzer (tests/fuzz, -Dfuzz=true)
set -euo pipefail

pkgs=(meson ninja-build pkgconf gcc libc6-dev libdpdk-dev libibverbs-dev ibverbs-providers
      rdma-core librdmacm-dev libcunit1-dev libjansson-dev python3 python3-matplotlib
      python3-jsonschema valgrind procps iproute2
      openmpi-bin libopenmpi-dev)
softroce=(qemu-system-x86 linux-image-amd64 busybox-static cpio kmod perftest qperf
          rdmacm-utils ibverbs-utils)
# libclang-rt-14-dev: the ASan/UBSan runtimes clang links with -fsanitize=fuzzer,address
fuzz=(clang libfuzzer-14-dev libclang-rt-14-dev)
for a in "$@"; do
    case "$a" in
    --softroce) pkgs+=("${softroce[@]}") ;;
    --fuzz) pkgs+=("${fuzz[@]}") ;;
    *) echo "setup.sh: unknown option '$a' (expected --softroce or --fuzz)" >&2; exit 2 ;;
    esac
done

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
