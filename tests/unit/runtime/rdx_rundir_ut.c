/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_rundir.c: the base check and the pruning of stale EAL runtime
 * directories, against a base made in a temporary directory. The cases that
 * need files of another uid (chown) run only as root and say so otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/runtime/rdx_rundir.h"

#define OTHER_UID 4242

static char top[64];  /* mkdtemp */
static char base[PATH_MAX]; /* top/dpdk */
static char outside[PATH_MAX]; /* top/victim: must never change */

static void
path_of(char *buf, const char *a, const char *b)
{
	CU_ASSERT_FATAL(snprintf(buf, PATH_MAX, "%s/%s", a, b) < PATH_MAX);
}

static void
touch(const char *dir, const char *name)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "x", 1) == 1);
	close(fd);
}

static bool
exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(p, dir, name);
	return lstat(p, &st) == 0;
}

/* A pid that is not running (a child that has been reaped). */
static long
dead_pid(void)
{
	pid_t p = fork();

	CU_ASSERT_FATAL(p >= 0);
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static int
rm_rf(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	return system(cmd);
}

static int
setup(void)
{
	snprintf(top, sizeof(top), "/tmp/rdx_rundir_ut.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	snprintf(base, sizeof(base), "%s/dpdk", top);
	snprintf(outside, sizeof(outside), "%s/victim", top);
	return 0;
}

static int
teardown(void)
{
	return rm_rf(top) == 0 ? 0 : -1;
}

/* Fresh base (mode 0700) and a victim directory with two files. */
static void
fresh(void)
{
	CU_ASSERT_FATAL(rm_rf(base) == 0 && rm_rf(outside) == 0);
	CU_ASSERT_FATAL(mkdir(base, 0700) == 0);
	CU_ASSERT_FATAL(mkdir(outside, 0700) == 0);
	touch(outside, "doc1");
	touch(outside, "doc2");
}

static void
test_base_check(void)
{
	char err[512], link[PATH_MAX];

	CU_ASSERT(rm_rf(base) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == 0); /* absent: EAL makes it */
	fresh();
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == 0);
	CU_ASSERT(chmod(base, 0777) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == -EPERM);
	CU_ASSERT(strstr(err, "writable by others") != NULL);
	CU_ASSERT(chmod(base, 0720) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == -EPERM);
	CU_ASSERT(chmod(base, 0755) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == 0);
	/* a link as the base, even to a private directory of ours */
	CU_ASSERT(rm_rf(base) == 0);
	CU_ASSERT(symlink(outside, base) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == -ENOTDIR);
	CU_ASSERT(strstr(err, "symbolic link") != NULL);
	CU_ASSERT(rdx_rundir_prune(base, "rdx-") < 0);
	CU_ASSERT(exists(outside, "doc1") && exists(outside, "doc2"));
	CU_ASSERT(unlink(base) == 0);
	/* a file as the base */
	path_of(link, top, "dpdk");
	touch(top, "dpdk");
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == -ENOTDIR);
	CU_ASSERT(unlink(link) == 0);
}

static void
test_base_of_another_user(void)
{
	char err[512];

	if (geteuid() != 0) {
		printf("(skipped: chown needs root) ");
		return;
	}
	fresh();
	CU_ASSERT(chown(base, OTHER_UID, OTHER_UID) == 0);
	CU_ASSERT(rdx_rundir_base_check(base, err, sizeof(err)) == -EPERM);
	CU_ASSERT(strstr(err, "owned by uid 4242") != NULL);
	CU_ASSERT(rdx_rundir_prune(base, "rdx-") == -EPERM);
}

static void
test_prune_stale_only(void)
{
	char name[64], live[64], dir[PATH_MAX], self[64];
	long pid = dead_pid();

	fresh();
	snprintf(name, sizeof(name), "rdx-%ld", pid);
	path_of(dir, base, name);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	touch(dir, "config");
	touch(dir, "mp_socket");
	snprintf(live, sizeof(live), "rdx-%ld", (long)getppid());
	path_of(dir, base, live);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	snprintf(self, sizeof(self), "rdx-%ld", (long)getpid());
	path_of(dir, base, self);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	path_of(dir, base, "rdx-12x");
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	path_of(dir, base, "other-1");
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);

	CU_ASSERT(rdx_rundir_prune(base, "rdx-") == 1);
	CU_ASSERT(!exists(base, name));
	CU_ASSERT(exists(base, live));
	CU_ASSERT(exists(base, self));
	CU_ASSERT(exists(base, "rdx-12x"));
	CU_ASSERT(exists(base, "other-1"));
}

/* The attack: rdx-<dead pid> is a link to the victim's directory. */
static void
test_prune_never_follows_links(void)
{
	char name[64], name2[64], p[PATH_MAX], dir[PATH_MAX];

	fresh();
	snprintf(name, sizeof(name), "rdx-%ld", dead_pid());
	path_of(p, base, name);
	CU_ASSERT_FATAL(symlink(outside, p) == 0);
	/* a stale directory of ours whose entries are links to the victim's files */
	snprintf(name2, sizeof(name2), "rdx-%ld", dead_pid());
	path_of(dir, base, name2);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	path_of(p, outside, "doc1");
	{
		char l[PATH_MAX];

		path_of(l, dir, "config");
		CU_ASSERT_FATAL(symlink(p, l) == 0);
		path_of(l, dir, "sub");
		CU_ASSERT_FATAL(symlink(outside, l) == 0);
	}

	CU_ASSERT(rdx_rundir_prune(base, "rdx-") == 1);
	CU_ASSERT(exists(outside, "doc1"));
	CU_ASSERT(exists(outside, "doc2"));
	CU_ASSERT(exists(base, name));   /* the link itself is not ours to judge: left */
	CU_ASSERT(!exists(base, name2)); /* ours: emptied (links unlinked) and removed */
	CU_ASSERT(rdx_rundir_remove(base, name) == -EPERM);
	CU_ASSERT(exists(outside, "doc1") && exists(outside, "doc2"));
	CU_ASSERT(rdx_rundir_remove(base, "../victim") == -EINVAL);
	CU_ASSERT(rdx_rundir_remove(base, "..") == -EINVAL);
	CU_ASSERT(exists(outside, "doc1") && exists(outside, "doc2"));
}

static void
test_prune_leaves_other_users_dirs(void)
{
	char name[64], dir[PATH_MAX];

	if (geteuid() != 0) {
		printf("(skipped: chown needs root) ");
		return;
	}
	fresh();
	snprintf(name, sizeof(name), "rdx-%ld", dead_pid());
	path_of(dir, base, name);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	touch(dir, "config");
	CU_ASSERT(chown(dir, OTHER_UID, OTHER_UID) == 0);
	CU_ASSERT(rdx_rundir_prune(base, "rdx-") == 0);
	CU_ASSERT(exists(dir, "config"));
}

static void
test_remove_own(void)
{
	char dir[PATH_MAX];

	fresh();
	path_of(dir, base, "rdx-1");
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	touch(dir, "config");
	CU_ASSERT(rdx_rundir_remove(base, "rdx-1") == 0);
	CU_ASSERT(!exists(base, "rdx-1"));
	CU_ASSERT(rdx_rundir_remove(base, "rdx-1") == -ENOENT);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "base: absent, private, writable by others, a link, a file", test_base_check },
		{ "base of another user refused", test_base_of_another_user },
		{ "prune: only dead pids' directories", test_prune_stale_only },
		{ "prune: never through a link", test_prune_never_follows_links },
		{ "prune: another user's directory left", test_prune_leaves_other_users_dirs },
		{ "remove: own directory", test_remove_own },
		{ NULL, NULL },
	};

	return rdx_ut_run("rundir", cases, setup, teardown);
}
