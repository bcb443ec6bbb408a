#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# EAL runtime directories under another local user's attack: with no
# XDG_RUNTIME_DIR a non-root user's base is /tmp/dpdk, which any local user
# can create first and fill with links named rdx-<dead pid>. Two
# unprivileged uids (setpriv) play attacker and victim; /tmp is a private
# tmpfs (unshare -m) so the real /tmp/dpdk is the one attacked. Checks: the
# victim's files outside its runtime directory are never touched, a base the
# victim does not own or that others may write is refused in one line, and
# the victim's own stale directories are still pruned.
# Usage: rundir.sh PATH/TO/rdx-perf [PATH/TO/kv_server]
# Needs root (setpriv, unshare); otherwise exits 77 and says so.
. "$(dirname "$0")/lib.sh"

KV=${2:-$(cd "$(dirname "$PERF")/../.." && pwd)/examples/kv_server}
ATT=4711 VIC=4712
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null || ! unshare -m true 2>/dev/null; then
    echo "skipped: needs root, setpriv and unshare -m (two uids, a private /tmp)"
    exit 77
fi
if ! setpriv --reuid=$VIC --regid=$VIC --clear-groups test -x "$PERF"; then
    echo "skipped: $PERF is not executable by another uid (a build tree under a private directory)"
    exit 77
fi

# The whole scenario runs in a mount namespace with /tmp a fresh tmpfs;
# its checks print ok/FAIL lines that are counted here.
cat >"$TMP/scenario.sh" <<'EOF'
set -u
PERF=$1 KV=$2 ATT=$3 VIC=$4
# a build tree under /tmp stays reachable through a bind mount (private to
# this namespace) made before the tmpfs hides it
case "$PERF$KV" in
*/tmp/*)
    REAL=$(mktemp -d /run/rdx-rundir-tmp.XXXXXX) && mount --bind /tmp "$REAL" ||
        { echo "FAIL cannot keep the build tree under /tmp reachable"; exit 1; }
    case $PERF in /tmp/*) PERF=$REAL/${PERF#/tmp/} ;; esac
    case $KV in /tmp/*) KV=$REAL/${KV#/tmp/} ;; esac
    ;;
esac
mount -t tmpfs -o mode=1777 tmpfs /tmp || { echo "FAIL cannot mount a private /tmp"; exit 1; }
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups env -i PATH="$PATH" HOME=/tmp "$@"; }
dead_pid() { sh -c 'echo $$'; } # a pid that has exited
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; }
docs() { [ -f /tmp/victim/docs/a ] && [ -f /tmp/victim/docs/b ] && [ "$(cat /tmp/victim/docs/a)" = keep ]; }

# the victim's files
as $VIC mkdir -p /tmp/victim/docs
as $VIC sh -c 'echo keep >/tmp/victim/docs/a; echo keep >/tmp/victim/docs/b; chmod 755 /tmp/victim /tmp/victim/docs'

# 1. The attack as reported: the attacker makes /tmp/dpdk and plants a link.
p=$(dead_pid)
as $ATT mkdir -m 755 /tmp/dpdk
as $ATT ln -s /tmp/victim/docs /tmp/dpdk/rdx-$p
as $VIC "$PERF" --no-huge -l 0 -- --test write -n 1000 >/tmp/o1 2>/tmp/e1; rc=$?
docs && ok "attacker's /tmp/dpdk: the victim's files untouched (rdx-perf)" \
     || bad "attacker's /tmp/dpdk: the victim's files were touched (rdx-perf)"
if [ $rc -ne 0 ] && [ "$(wc -l </tmp/e1)" -eq 1 ] &&
   grep -q "refusing the EAL runtime directory: /tmp/dpdk is owned by uid $ATT, not by you (uid $VIC)" /tmp/e1; then
    ok "a base owned by another user is refused in one line (exit $rc)"
else
    bad "a base owned by another user: exit $rc, stderr:"; cat /tmp/e1
fi
timeout 20 setpriv --reuid=$VIC --regid=$VIC --clear-groups env -i PATH="$PATH" HOME=/tmp \
    "$KV" --no-huge -l 0 -- -p 18699 >/tmp/o2 2>/tmp/e2; rc=$?
docs && ok "attacker's /tmp/dpdk: the victim's files untouched (kv_server)" \
     || bad "attacker's /tmp/dpdk: the victim's files were touched (kv_server)"
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "refusing the EAL runtime directory" /tmp/e2; then
    ok "kv_server refuses it too (exit $rc)"
else
    bad "kv_server with an attacker's base: exit $rc, stderr:"; cat /tmp/e2
fi
rm -rf /tmp/dpdk

# 2. The victim's own base, but writable by others (mode 0777): refused.
as $VIC mkdir -m 777 /tmp/dpdk; as $VIC chmod 777 /tmp/dpdk
as $ATT ln -s /tmp/victim/docs /tmp/dpdk/rdx-$(dead_pid)
as $VIC "$PERF" --no-huge -l 0 -- --test write -n 1000 >/tmp/o3 2>/tmp/e3; rc=$?
docs && ok "a world-writable base: the victim's files untouched" \
     || bad "a world-writable base: the victim's files were touched"
[ $rc -ne 0 ] && grep -q "/tmp/dpdk is writable by others (mode 0777)" /tmp/e3 \
    && ok "a base writable by others is refused (exit $rc)" \
    || { bad "a base writable by others: exit $rc, stderr:"; cat /tmp/e3; }
rm -rf /tmp/dpdk

# 3. A private base of the victim's with a link in it (planted by root here,
#    as an older attack could have left), a stale directory of the victim's
#    own, and a stale directory of another user's: the run succeeds, the
#    victim's stale one goes, the link and the other user's stay, nothing
#    outside is touched.
as $VIC mkdir -m 700 /tmp/dpdk
lp=$(dead_pid); sp=$(dead_pid); op=$(dead_pid)
ln -s /tmp/victim/docs /tmp/dpdk/rdx-$lp
as $VIC sh -c "mkdir -m 700 /tmp/dpdk/rdx-$sp && echo x >/tmp/dpdk/rdx-$sp/config && ln -s /tmp/victim/docs/a /tmp/dpdk/rdx-$sp/mp_socket"
mkdir -m 700 /tmp/dpdk/rdx-$op; echo x >/tmp/dpdk/rdx-$op/config; chown -R $ATT:$ATT /tmp/dpdk/rdx-$op
as $VIC "$PERF" --no-huge -l 0 -- --test write -n 1000 >/tmp/o4 2>/tmp/e4; rc=$?
[ $rc -eq 0 ] && ok "own private base: the run completes" || { bad "own private base: exit $rc"; cat /tmp/e4; }
docs && ok "own base with a planted link: the victim's files untouched" \
     || bad "own base with a planted link: the victim's files were touched"
[ ! -e /tmp/dpdk/rdx-$sp ] && ok "the victim's own stale directory is pruned" \
    || bad "the victim's own stale directory is still there"
[ -L /tmp/dpdk/rdx-$lp ] && [ -f /tmp/dpdk/rdx-$op/config ] \
    && ok "a link and another user's stale directory are left alone" \
    || bad "a link or another user's directory was removed"
n=$(find /tmp/dpdk -mindepth 1 -maxdepth 1 | wc -l)
[ "$n" -eq 2 ] && ok "the run removed its own runtime directory at exit" \
    || { bad "runtime directories left: $n"; ls -la /tmp/dpdk; }
EOF

unshare -m bash "$TMP/scenario.sh" "$PERF" "$KV" $ATT $VIC >"$TMP/out" 2>&1
rmdir /run/rdx-rundir-tmp.* 2>/dev/null
cat "$TMP/out"
FAILS=$(grep -c '^FAIL' "$TMP/out")
[ "$(grep -c '^ok' "$TMP/out")" -ge 10 ] || fail "the scenario stopped early"
finish
