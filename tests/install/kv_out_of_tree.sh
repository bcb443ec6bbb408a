#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install rdx into a staging prefix and build the KV example (examples/kv)
# out of tree against it with exactly the commands doc/embedding.md shows:
# the block between its "kv-out-of-tree:begin" and "kv-out-of-tree:end"
# lines is extracted and run as it is, in a directory holding only copies
# of the example's three files. Then the two programs it built run a
# session over the software device (kv_client --check).
# Usage: kv_out_of_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
stage=$(mktemp -d /tmp/rdx-kv-install.XXXXXX)
spid=
cleanup() {
    [ -n "$spid" ] && kill "$spid" 2>/dev/null || true
    rm -rf "$stage"
}
trap cleanup EXIT

meson install -C "$build" --no-rebuild --destdir "$stage/root" >/dev/null
pc=$(find "$stage/root" -name rdx.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no rdx.pc installed"; exit 1; }
for h in rdx_rpc.h rdx_conn.h rdx_runtime.h rdx_dev.h rdx_hist.h; do
    find "$stage/root" -path "*/include/rdx/$h" | grep -q . ||
        { echo "FAIL: header $h not installed"; exit 1; }
done
# Installing with --prefix=$PREFIX would have put the tree (and rdx.pc's
# prefix=) there; a staged install is the same tree under --destdir.
inst_prefix=$(sed -n 's/^prefix=//p' "$pc")
PREFIX=$stage/root$inst_prefix
sed -i "s|^prefix=.*|prefix=$PREFIX|" "$pc"
export PREFIX

block=$(sed -n '/kv-out-of-tree:begin/,/kv-out-of-tree:end/p' "$src/doc/embedding.md" |
        sed '1d;$d')
[ -n "$block" ] || { echo "FAIL: no kv-out-of-tree block in doc/embedding.md"; exit 1; }
mkdir "$stage/kv"
cp "$src/examples/kv/kv_proto.h" "$src/examples/kv/kv_store.h" "$src/examples/kv/kv_service.h" \
    "$src/examples/kv/kv_boot.h" \
    "$src/examples/kv/kv_server.c" "$src/examples/kv/kv_client.c" \
    "$stage/kv/"
echo "running the documented commands in $stage/kv:"
echo "$block" | sed 's/^/  | /'
(cd "$stage/kv" && bash -euo pipefail -c "$block")
[ -x "$stage/kv/kv_server" ] && [ -x "$stage/kv/kv_client" ] ||
    { echo "FAIL: the documented commands did not build kv_server and kv_client"; exit 1; }
# they link the installed shared library, not the build tree's
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir rdx)
ldd_out=$(LD_LIBRARY_PATH="$libdir" ldd "$stage/kv/kv_server")
echo "$ldd_out" | grep -q "librdx.so.* => $libdir/" ||
    { echo "FAIL: kv_server does not use $libdir/librdx.so: $ldd_out"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
LD_LIBRARY_PATH="$libdir" timeout -k 5 60 "$stage/kv/kv_server" --no-huge -l 0 -- \
    --transport homa+infud --dev sw -p "$port" >"$stage/s.out" 2>&1 &
spid=$!
for _ in $(seq 100); do
    ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
    sleep 0.1
done
rc=0
LD_LIBRARY_PATH="$libdir" timeout -k 5 60 "$stage/kv/kv_client" --no-huge -l 1 -- \
    --transport homa+infud --dev sw --connect "127.0.0.1:$port" --check >"$stage/c.out" 2>&1 || rc=$?
wait "$spid" || rc=1
spid=
cat "$stage/c.out"
if [ $rc -ne 0 ] || ! grep -q "check OK" "$stage/c.out"; then
    echo "FAIL: the out-of-tree KV pair: $(cat "$stage/s.out")"
    exit 1
fi
echo "PASS: installed rdx builds the KV example out of tree with the documented commands"
