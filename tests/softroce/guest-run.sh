#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run a command inside a throw-away qemu guest that has a real RDMA stack:
# soft-RoCE (rdma_rxe) devices rxe0 and rxe1 on the two ends of a veth pair.
#
#   tests/softroce/guest-run.sh "<command>" [timeout_seconds]
#
# The guest boots the Debian kernel under TCG (no network device at all),
# sees the host's / read-only over virtio-9p with a tmpfs overlay on top (so
# the build tree and every installed tool are at the same paths), runs the
# command as root in the caller's current directory, and powers off. The
# command's output is printed here and its exit status is ours. A timeout is
# a failure (exit 124); exit 77 when qemu or the kernel is missing and cannot
# be installed. Inside the guest: RDX_GUEST=1, RDX_XCHG=<a folder shared
# with the host>, addresses 10.77.0.1 (veth0/rxe0) and 10.77.0.2 (veth1/rxe1).
#
# Knobs (environment): RDX_SOFTROCE_CACHE (initramfs cache, default
# /var/tmp/rdx-softroce), RDX_SOFTROCE_SMP (vCPUs, 2), RDX_SOFTROCE_MEM (MiB,
# 2048), RDX_SOFTROCE_MTU (veth MTU, 1500 -> rxe active_mtu 1024),
# RDX_SOFTROCE_KEEP=1 keeps the exchange folder for inspection.
set -uo pipefail

usage() {
    echo "usage: $0 \"<command>\" [timeout_seconds]" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] && [ -n "$1" ] || usage
cmd=$1
tmo=${2:-300}
case "$tmo" in ''|*[!0-9]*) echo "guest-run: timeout must be a number of seconds, not '$tmo'" >&2; exit 2 ;; esac
smp=${RDX_SOFTROCE_SMP:-2}
mem=${RDX_SOFTROCE_MEM:-2048}
mtu=${RDX_SOFTROCE_MTU:-1500}
cache=${RDX_SOFTROCE_CACHE:-/var/tmp/rdx-softroce}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

skip() { echo "guest-run: SKIP: $*" >&2; exit 77; }

have_tools() {
    command -v qemu-system-x86_64 >/dev/null && command -v cpio >/dev/null &&
        [ -x /bin/busybox ] && ls /boot/vmlinuz-6.1* >/dev/null 2>&1 &&
        command -v rdma >/dev/null && command -v ip >/dev/null
}
if ! have_tools; then
    if [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; then
        echo "guest-run: installing the soft-RoCE test bed (scripts/setup.sh --softroce)" >&2
        bash "$top/scripts/setup.sh" --softroce >&2 || skip "scripts/setup.sh --softroce failed"
    fi
    have_tools || skip "qemu-system-x86, linux-image-amd64 (6.1), busybox-static, cpio, iproute2 needed"
fi

kernel=$(ls -1 /boot/vmlinuz-6.1* | sort -V | tail -n 1)
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || skip "no /lib/modules/$kver for $kernel"

# ---------------------------------------------------------------- initramfs
# busybox + the modules to mount 9p over virtio and overlayfs + stage 1.
mods=(virtio_pci 9pnet_virtio 9p overlay)
initrd="$cache/initrd-$kver.cpio.gz"
stamp="$cache/initrd-$kver.stamp"
want_stamp="v2 $(stat -c %Y "$0") $(stat -c %Y "$kernel")"
build_initrd() {
    local root list m
    mkdir -p "$cache" || return 1
    root=$(mktemp -d "$cache/root.XXXXXX") || return 1
    mkdir -p "$root"/{bin,dev,proc,sys,ro,rw,newroot,lib/modules}
    cp /bin/busybox "$root/bin/busybox"
    : >"$root/modules.list"
    for m in "${mods[@]}"; do
        modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' >"$root/modules.list.host" || return 1
    while read -r m; do
        cp "$m" "$root/lib/modules/" || return 1
        echo "/lib/modules/$(basename "$m")" >>"$root/modules.list"
    done <"$root/modules.list.host"
    rm -f "$root/modules.list.host"
    cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# stage 1: mount the host's / (ro) under a tmpfs overlay, then chroot to stage 2
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
fail() { echo "rdx-guest: stage1: $*" >/dev/console; echo o >/proc/sysrq-trigger; sleep 60; }
while read -r m; do insmod "$m" || fail "insmod $m"; done </modules.list
xchg=$(sed -n 's/.*rdx\.xchg=\([^ ]*\).*/\1/p' /proc/cmdline)
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /ro || fail "mount hostroot"
mount -t tmpfs -o size=75% tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/ro,upperdir=/rw/upper,workdir=/rw/work /newroot || fail "mount overlay"
mkdir -p "/newroot$xchg"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xchg "/newroot$xchg" || fail "mount xchg"
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
exec chroot /newroot /bin/bash "$xchg/stage2.sh"
EOF
    chmod +x "$root/init"
    (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp" || return 1
    mv "$initrd.tmp" "$initrd"
    echo "$want_stamp" >"$stamp"
    rm -rf "$root"
}
if [ ! -f "$initrd" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
    build_initrd || { echo "guest-run: cannot build the initramfs in $cache" >&2; exit 1; }
fi

# ---------------------------------------------------------------- stage 2
xchg=$(mktemp -d /var/tmp/rdx-xchg.XXXXXX) || exit 1
cleanup() {
    [ -n "${qpid:-}" ] && kill "$qpid" 2>/dev/null
    if [ "${RDX_SOFTROCE_KEEP:-0}" = 1 ]; then
        echo "guest-run: exchange folder kept: $xchg" >&2
    else
        rm -rf "$xchg"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 777 "$xchg"
printf '%s\n' "$cmd" >"$xchg/cmd"
cat >"$xchg/stage2.sh" <<EOF
# stage 2 (inside the chroot of the host's /): soft-RoCE set-up, then the command
xchg=$xchg
cwd=$(printf '%q' "$PWD")
mtu=$mtu
tmo=$tmo
EOF
cat >>"$xchg/stage2.sh" <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
export RDX_GUEST=1 RDX_XCHG=$xchg LC_ALL=C
finish() { sync; echo o >/proc/sysrq-trigger; sleep 30; }
setup() {
    local a0=10.77.0.1 a1=10.77.0.2 i
    modprobe veth && modprobe ib_uverbs && modprobe rdma_ucm && modprobe rdma_rxe || return 1
    ip link set lo up
    ip link add veth0 type veth peer name veth1 || return 1
    for i in 0 1; do ip link set "veth$i" mtu "$mtu" up || return 1; done
    ip addr add $a0/24 dev veth0 && ip addr add $a1/24 dev veth1 || return 1
    # Both addresses are local: without this the kernel loops the packets
    # through lo and rxe never sees them. Locally generated traffic to the
    # other address leaves through the veth; the local table comes after.
    ip route add $a1/32 dev veth0 src $a0 table 100 || return 1
    ip route add $a0/32 dev veth1 src $a1 table 101 || return 1
    ip rule add pref 100 iif lo to $a1 lookup 100 || return 1
    ip rule add pref 101 iif lo to $a0 lookup 101 || return 1
    ip rule add pref 1000 lookup local && ip rule del pref 0 || return 1
    for i in all default veth0 veth1; do
        sysctl -qw "net.ipv4.conf.$i.accept_local=1" "net.ipv4.conf.$i.rp_filter=0" || return 1
    done
    rdma link add rxe0 type rxe netdev veth0 || return 1
    rdma link add rxe1 type rxe netdev veth1 || return 1
    for i in $(seq 50); do
        [ -e /sys/class/infiniband/rxe1/ports/1/gids/1 ] && break
        sleep 0.1
    done
    ulimit -l unlimited
}
if ! setup >"$xchg/setup.log" 2>&1; then
    echo "rdx-guest: soft-RoCE set-up failed:" >>"$xchg/setup.log"
    echo 1 >"$xchg/setup.failed"
    finish
fi
# A snapshot of the guest shortly before the host's timeout kills it, so
# that a run which hangs says where: every user process (state, parent,
# kernel wait channel, command line) and the kernel stack of those running
# or in uninterruptible sleep. Bash built-ins only, written to the serial
# console: it must work even when the 9p mounts (every program, the
# exchange folder) are what hangs. The host prints it with the TIMEOUT.
snapshot() {
    local p a cmd st wc l
    echo "guest-run: watchdog: the command has run for $1 s; its processes (pid ppid state wchan cmd):"
    for p in /proc/[0-9]*; do
        cmd=
        while IFS= read -r -d '' a; do cmd+="$a "; done <"$p/cmdline" 2>/dev/null
        [ -n "$cmd" ] || continue           # kernel threads, or gone
        read -r st <"$p/stat" 2>/dev/null || continue
        st=${st##*) }                       # "S ppid pgrp ..."
        wc=
        read -r wc <"$p/wchan" 2>/dev/null
        a=${st#* }
        echo "  ${p#/proc/} ${a%% *} ${st%% *} ${wc:--} $cmd"
        case $st in
        R*|D*) while IFS= read -r l; do echo "      $l"; done <"$p/stack" 2>/dev/null ;;
        esac
    done
    echo "guest-run: watchdog: end"
}
wd=$((tmo > 90 ? tmo - 40 : tmo * 2 / 3))
( sleep "$wd"; snapshot "$wd" >/dev/console 2>&1 ) &
cd "$cwd" 2>/dev/null || cd /
bash -c "$(cat "$xchg/cmd")" >"$xchg/out" 2>&1 </dev/null
echo $? >"$xchg/rc"
finish
EOF

# ---------------------------------------------------------------- boot
serial="$xchg/serial.log"
qemu-system-x86_64 -accel tcg -machine q35 -cpu max -smp "$smp" -m "$mem" \
    -nodefaults -nographic -no-reboot -nic none -serial "file:$serial" -monitor none \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 quiet panic=-1 no_timer_check rdx.xchg=$xchg" \
    -virtfs local,path=/,mount_tag=hostroot,readonly=on,security_model=passthrough,multidevs=remap \
    -virtfs "local,path=$xchg,mount_tag=xchg,security_model=passthrough" &
qpid=$!
end=$((SECONDS + tmo))
while kill -0 "$qpid" 2>/dev/null; do
    if [ $SECONDS -ge $end ]; then
        kill "$qpid" 2>/dev/null
        wait "$qpid" 2>/dev/null
        qpid=
        [ -f "$xchg/out" ] && cat "$xchg/out"
        echo "guest-run: TIMEOUT after ${tmo}s: $cmd" >&2
        if grep -q "guest-run: watchdog:" "$serial" 2>/dev/null; then
            sed '/guest-run: watchdog: the command/,$d' "$serial" | tail -n 15 >&2
            sed -n '/guest-run: watchdog: the command/,/guest-run: watchdog: end/p' "$serial" | tr -d '\r' >&2
        else
            tail -n 20 "$serial" >&2
        fi
        exit 124
    fi
    sleep 0.2
done
wait "$qpid"
qrc=$?
qpid=
[ -f "$xchg/out" ] && cat "$xchg/out"
if [ -f "$xchg/setup.failed" ]; then
    echo "guest-run: soft-RoCE set-up failed in the guest:" >&2
    cat "$xchg/setup.log" >&2
    exit 1
fi
if [ ! -f "$xchg/rc" ]; then
    echo "guest-run: the guest stopped without running the command (qemu exit $qrc); console:" >&2
    tail -n 30 "$serial" >&2
    exit 1
fi
exit "$(cat "$xchg/rc")"
