/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL runtime directories: the base check and the removal of this user's
 * stale ones (rules in rdx_rundir.h). Every path below the base is reached
 * with *at() calls on descriptors opened O_NOFOLLOW, and each object is
 * checked on the descriptor itself (fstat), so a link or a directory
 * swapped in between a look and a removal is never followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "rdx_rundir.h"

const char *
rdx_rundir_base(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	/* eal_create_runtime_dir chooses by the real uid */
	if (getuid() == 0)
		return "/var/run/dpdk";
	snprintf(buf, len, "%s/dpdk", xdg != NULL && xdg[0] != '\0' ? xdg : "/tmp");
	return buf;
}

/* A directory of ours that nobody else may write into. */
static int
dir_is_private(const struct stat *st, char *err, size_t err_len, const char *what)
{
	if (!S_ISDIR(st->st_mode)) {
		snprintf(err, err_len, "%s is not a directory", what);
		return -ENOTDIR;
	}
	if (st->st_uid != geteuid()) {
		snprintf(err, err_len, "%s is owned by uid %u, not by you (uid %u)", what,
			 (unsigned int)st->st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(err, err_len, "%s is writable by others (mode %04o)", what,
			 (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Open base as a directory without following a link in its last part. */
static int
open_dir_nofollow(int at, const char *path)
{
	return openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int
rdx_rundir_base_check(const char *base, char *err, size_t err_len)
{
	struct stat st;
	int fd, ret;

	fd = open_dir_nofollow(AT_FDCWD, base);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return 0; /* EAL creates it, mode 0700 */
		if (e == ELOOP || e == ENOTDIR) {
			snprintf(err, err_len, "%s is a symbolic link or not a directory", base);
			return -ENOTDIR;
		}
		snprintf(err, err_len, "cannot open %s: %s", base, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		snprintf(err, err_len, "cannot stat %s: %s", base, strerror(-ret));
	} else {
		ret = dir_is_private(&st, err, err_len, base);
	}
	close(fd);
	return ret;
}

/* Unlink the entries of the open directory dfd that are not directories. */
static void
empty_flat_dir(int dfd)
{
	struct dirent *e;
	int fd = dup(dfd);
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
			continue; /* EAL's runtime directories are flat */
		/* unlinkat never follows: a link goes, its target stays */
		unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

static int
remove_at(int bfd, const char *name)
{
	struct stat st, st2;
	int dfd;

	if (fstatat(bfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM; /* a link, a file or someone else's: left alone */
	dfd = open_dir_nofollow(bfd, name);
	if (dfd < 0)
		return -errno;
	/* the object opened must be the one looked at */
	if (fstat(dfd, &st2) != 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
	    st2.st_uid != geteuid()) {
		close(dfd);
		return -EPERM;
	}
	empty_flat_dir(dfd);
	close(dfd);
	return unlinkat(bfd, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
}

int
rdx_rundir_remove(const char *base, const char *name)
{
	int bfd, ret;

	if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	bfd = open_dir_nofollow(AT_FDCWD, base);
	if (bfd < 0)
		return -errno;
	ret = remove_at(bfd, name);
	close(bfd);
	return ret;
}

int
rdx_rundir_prune(const char *base, const char *prefix)
{
	size_t plen = strlen(prefix);
	struct dirent *e;
	struct stat st;
	char err[256];
	int bfd, fd, removed = 0;
	DIR *d;

	bfd = open_dir_nofollow(AT_FDCWD, base);
	if (bfd < 0)
		return errno == ENOENT ? 0 : -EPERM; /* absent, or a link / not a directory */
	/* the base checked is the one opened (rdx_rundir_base_check's rules) */
	if (fstat(bfd, &st) != 0 || dir_is_private(&st, err, sizeof(err), base) < 0) {
		close(bfd);
		return -EPERM;
	}
	fd = dup(bfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		close(bfd);
		return -ENOMEM;
	}
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		errno = 0;
		pid = strtol(e->d_name + plen, &end, 10);
		if (errno != 0 || end == e->d_name + plen || *end != '\0' || pid <= 0 ||
		    pid == (long)getpid())
			continue;
		/* alive, or another user's process (EPERM): not ours to remove */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (remove_at(bfd, e->d_name) == 0)
			removed++;
	}
	closedir(d);
	close(bfd);
	return removed;
}
