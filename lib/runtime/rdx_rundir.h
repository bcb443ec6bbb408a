/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to lib/runtime (not installed): EAL runtime directories, checked
 * and removed without trusting anything another local user could have put
 * in their place.
 *
 * EAL keeps each process's runtime files (config, sockets, fbarrays) in
 * <base>/<file-prefix>, base = /var/run/dpdk for root, else
 * $XDG_RUNTIME_DIR/dpdk or /tmp/dpdk (eal_create_runtime_dir). /tmp is
 * shared: another user can create /tmp/dpdk first and fill it with links.
 * So the base must be a real directory owned by the effective user and
 * writable by nobody else, and every entry removed is checked the same way
 * and reached through directory descriptors opened with O_NOFOLLOW.
 */
#ifndef RDX_RUNDIR_H
#define RDX_RUNDIR_H

#include <stddef.h>

/* The base directory EAL uses for this process (buf holds it if needed). */
const char *rdx_rundir_base(char *buf, size_t len);

/*
 * Whether base may hold this user's runtime directories: absent (EAL
 * creates it 0700), or a directory, not a symbolic link, owned by the
 * effective uid, without group or other write permission.
 * @return 0, or -EPERM / -ENOTDIR / -errno with a one-line reason in err.
 */
int rdx_rundir_base_check(const char *base, char *err, size_t err_len);

/*
 * Remove base/name, a flat runtime directory: only if it is a directory
 * (not a link) owned by the effective uid; only its entries that are not
 * directories are unlinked (a symbolic link is removed as a link, never
 * followed). @return 0, or a negative errno (nothing outside it touched).
 */
int rdx_rundir_remove(const char *base, const char *name);

/*
 * Remove every base/<prefix><pid> whose process is gone (rdx_rundir_remove
 * rules; base must pass rdx_rundir_base_check's rules, checked on the
 * descriptor it is read through: else -EPERM).
 * @return the number removed, or a negative errno.
 */
int rdx_rundir_prune(const char *base, const char *prefix);

#endif /* RDX_RUNDIR_H */
