/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: the shared-memory segment of a device, its
 * allocator and the MR table. Control path only.
 *
 * A segment is a POSIX shm object /rdx-sw-<pid>-<n> (mode 0600), sized
 * SW_DEFAULT_SHM but sparse (tmpfs allocates pages on first touch). It is
 * unlinked when the device closes; our own segments of dead pids are
 * removed by rdx_sw_cleanup_stale() (called at every open).
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include "sw_model.h"

static uint32_t sw_domain_seq; /* naming only */

static int
sw_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int ret;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	ret = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return -ret;
}

int
sw_mutex_init_shared(pthread_mutex_t *m)
{
	return sw_mutex_init(m);
}

void
sw_lock(pthread_mutex_t *m)
{
	/* Robust: a peer process that died holding the lock leaves the
	 * protected state as it was; the model's state stays usable. */
	if (pthread_mutex_lock(m) == EOWNERDEAD)
		pthread_mutex_consistent(m);
}

/*
 * Is the holder a live process? Values that are no pid count as gone, and
 * so does a zombie (kill(pid, 0) still succeeds on a process that exited
 * until its parent reaps it; /proc/<pid>/stat's state after the command
 * name says Z or X).
 */
static bool
sw_holder_alive(uint32_t pid)
{
	char path[32], buf[256], *p;
	ssize_t n;
	int fd;

	if (pid == 0 || pid > INT32_MAX || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p == NULL || p[1] != ' ' || (p[2] != 'Z' && p[2] != 'X');
}

int
sw_qlock_wait(uint32_t *l, uint32_t pid, uint64_t wait_ns, uint32_t *dead)
{
	struct timespec t0, t;
	uint32_t checked = 0, o;
	unsigned int spins = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		o = __atomic_load_n(l, __ATOMIC_RELAXED);
		if (o == 0) {
			if (__atomic_compare_exchange_n(l, &o, pid, false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if (spins < 256) {
			spins++;
			rte_pause();
			continue;
		}
		/* after the spin: the holder's liveness, once per holder seen
		 * (again every 1024 turns) */
		if (o != pid && o != checked) {
			if (!sw_holder_alive(o)) {
				/* it died holding the lock: take it over */
				if (__atomic_compare_exchange_n(l, &o, pid, false,
								__ATOMIC_ACQUIRE,
								__ATOMIC_RELAXED)) {
					*dead = o;
					return 0;
				}
				continue;
			}
			checked = o;
		}
		sched_yield(); /* the holder may need this CPU */
		if ((++spins & 1023) == 0)
			checked = 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec)) >=
		    wait_ns)
			return -EBUSY;
	}
}

void
sw_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

int
rdx_sw_cleanup_stale(void)
{
	struct dirent *de;
	int removed = 0;
	DIR *dir;

	dir = opendir("/dev/shm");
	if (dir == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		char path[300];
		struct stat st;
		long pid;
		char *end;

		if (strncmp(de->d_name, "rdx-sw-", 7) != 0)
			continue;
		pid = strtol(de->d_name + 7, &end, 10);
		if (end == de->d_name + 7 || *end != '-' || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		/* ours only: as root, another user's segment whose pid is gone
		 * here may belong to a process of another pid namespace */
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		snprintf(path, sizeof(path), "/%s", de->d_name);
		if (shm_unlink(path) == 0)
			removed++;
	}
	closedir(dir);
	return removed;
}

/* Segments this process owns, by name, so that another device of this
 * process mapping one shares its trusted MR table. */
static pthread_mutex_t sw_owned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sw_domain *sw_owned[64];

static void
sw_shadow_put(struct sw_mr_shadow *sh)
{
	if (sh != NULL && __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(sh);
}

/*
 * SIGBUS guard. Any process that maps a segment can ftruncate it (it needs
 * the file open read-write to map it shared); every later access to the
 * cut-off part in every process is then SIGBUS, which would kill a victim
 * that did nothing wrong. POSIX shm cannot be sealed against shrinking
 * (only memfds can), so the model catches the signal instead: a fault
 * inside a mapped segment maps zero pages over the rest of that mapping
 * (the faulting instruction then completes on them) and marks the segment
 * truncated; the engine treats a truncated peer segment as a peer that no
 * longer answers (RETRY_EXC) and its own as a device error. The content of
 * the cut-off part is lost either way -- the hostile process destroyed it.
 * Faults elsewhere go to the previous handler (or kill as before).
 */
#define SW_MAX_MAPS 256
static struct sw_domain *sw_maps[SW_MAX_MAPS];
static struct sigaction sw_old_bus;
static pthread_once_t sw_bus_once = PTHREAD_ONCE_INIT;

static void
sw_sigbus(int sig, siginfo_t *si, void *uc)
{
	uint8_t *a = si->si_addr;
	uint32_t i;

	for (i = 0; i < SW_MAX_MAPS; i++) {
		struct sw_domain *d = __atomic_load_n(&sw_maps[i], __ATOMIC_ACQUIRE);
		uint8_t *pg;

		if (d == NULL || a < d->base || a >= d->base + d->size)
			continue;
		pg = (uint8_t *)((uintptr_t)a & ~(uintptr_t)4095);
		if (mmap(pg, (size_t)(d->base + d->size - pg), PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			break;
		__atomic_store_n(&d->truncated, 1, __ATOMIC_RELEASE);
		return;
	}
	if ((sw_old_bus.sa_flags & SA_SIGINFO) && sw_old_bus.sa_sigaction != NULL) {
		sw_old_bus.sa_sigaction(sig, si, uc);
		return;
	}
	if (sw_old_bus.sa_handler != SIG_DFL && sw_old_bus.sa_handler != SIG_IGN) {
		sw_old_bus.sa_handler(sig);
		return;
	}
	/* the default action: the access faults again and kills */
	signal(SIGBUS, SIG_DFL);
}

static void
sw_sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sw_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &sw_old_bus);
}

static void
sw_maps_add(struct sw_domain *d)
{
	uint32_t i;
	struct sw_domain *none;

	pthread_once(&sw_bus_once, sw_sigbus_install);
	for (i = 0; i < SW_MAX_MAPS; i++) {
		none = NULL;
		if (__atomic_compare_exchange_n(&sw_maps[i], &none, d, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return;
	}
}

static void
sw_maps_del(struct sw_domain *d)
{
	uint32_t i;

	for (i = 0; i < SW_MAX_MAPS; i++)
		if (__atomic_load_n(&sw_maps[i], __ATOMIC_ACQUIRE) == d)
			__atomic_store_n(&sw_maps[i], NULL, __ATOMIC_RELEASE);
}

/*
 * A sw device's GID names its segment: fe80::/64 (a link-local prefix, as
 * RoCE's default GID), then the owner's pid and the segment's sequence
 * number, big endian: /rdx-sw-<pid>-<n>. UD address vectors carry it in
 * rgid (doc/ud.md).
 */
void
sw_gid_from_name(const char *name, uint8_t gid[16])
{
	unsigned int pid = 0, seq = 0;
	uint32_t v;

	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	if (sscanf(name, "/rdx-sw-%u-%u", &pid, &seq) != 2)
		return;
	v = htobe32(pid);
	memcpy(gid + 8, &v, 4);
	v = htobe32(seq);
	memcpy(gid + 12, &v, 4);
}

int
sw_gid_to_name(const uint8_t gid[16], char *name, size_t len)
{
	static const uint8_t prefix[8] = { 0xfe, 0x80 };
	uint32_t pid, seq;

	if (memcmp(gid, prefix, 8) != 0)
		return -EINVAL;
	memcpy(&pid, gid + 8, 4);
	memcpy(&seq, gid + 12, 4);
	pid = be32toh(pid);
	if (pid == 0 || pid > INT32_MAX)
		return -EINVAL;
	if ((size_t)snprintf(name, len, "/rdx-sw-%u-%u", pid, be32toh(seq)) >= len)
		return -EINVAL;
	return 0;
}

static struct sw_domain *
sw_domain_mmap(const char *name, int fd, size_t size, bool owner)
{
	struct sw_domain *d;
	void *base;

	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rte_errno = errno;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		munmap(base, size);
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	sw_gid_from_name(name, d->gid);
	d->base = base;
	d->size = size;
	d->hdr = base;
	d->fd = -1;
	d->owner = owner;
	d->refs = 1;
	sw_maps_add(d);
	return d;
}

struct sw_domain *
sw_domain_create(void)
{
	struct sw_shm_hdr *h;
	struct sw_domain *d;
	char name[SW_NAME_LEN];
	uint32_t i;
	int fd;

	snprintf(name, sizeof(name), "/rdx-sw-%d-%u", (int)getpid(),
		 __atomic_fetch_add(&sw_domain_seq, 1, __ATOMIC_RELAXED));
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* a stale one of a recycled pid */
		shm_unlink(name);
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	}
	if (fd < 0) {
		rte_errno = errno;
		return NULL;
	}
	if (ftruncate(fd, (off_t)SW_DEFAULT_SHM) != 0) {
		rte_errno = errno;
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	/* Reserve the header's pages now: touching an unreserved page of a
	 * full tmpfs would be SIGBUS, a reservation fails cleanly. */
	if (fallocate(fd, 0, 0, (off_t)RTE_ALIGN_CEIL(sizeof(*h), 4096)) != 0) {
		rte_errno = errno;
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	d = sw_domain_mmap(name, fd, SW_DEFAULT_SHM, true);
	if (d == NULL) {
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	d->fd = fd;
	d->shadow = calloc(1, sizeof(*d->shadow));
	if (d->shadow == NULL)
		goto err;
	d->shadow->refs = 1;
	pthread_mutex_lock(&sw_owned_lock);
	for (i = 0; i < RTE_DIM(sw_owned); i++)
		if (sw_owned[i] == NULL) {
			sw_owned[i] = d;
			break;
		}
	pthread_mutex_unlock(&sw_owned_lock);
	h = d->hdr;
	h->size = SW_DEFAULT_SHM;
	h->owner_pid = (int32_t)getpid();
	h->brk = RTE_ALIGN_CEIL(sizeof(*h), 4096);
	if (sw_mutex_init(&h->lock) != 0)
		goto err;
	/* the QPs' and CQs' locks (sw_qlock) are free: the new segment is zeros */
	__atomic_store_n(&h->magic, SW_MAGIC, __ATOMIC_RELEASE);
	return d;
err:
	sw_domain_destroy(d);
	rte_errno = ENOMEM;
	return NULL;
}

struct sw_domain *
sw_domain_map(const char *name)
{
	struct sw_domain *d;
	struct stat st;
	uint32_t i;
	int fd;

	fd = shm_open(name, O_RDWR, 0600);
	if (fd < 0) {
		rte_errno = errno;
		return NULL;
	}
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct sw_shm_hdr)) {
		close(fd);
		rte_errno = EPROTO;
		return NULL;
	}
	d = sw_domain_mmap(name, fd, (size_t)st.st_size, false);
	close(fd);
	if (d == NULL)
		return NULL;
	if (__atomic_load_n(&d->hdr->magic, __ATOMIC_ACQUIRE) != SW_MAGIC ||
	    d->hdr->size != d->size) {
		sw_domain_unmap(d);
		rte_errno = EPROTO;
		return NULL;
	}
	/* a segment of this process: use its trusted MR table */
	pthread_mutex_lock(&sw_owned_lock);
	for (i = 0; i < RTE_DIM(sw_owned); i++)
		if (sw_owned[i] != NULL && strcmp(sw_owned[i]->name, d->name) == 0) {
			d->shadow = sw_owned[i]->shadow;
			__atomic_fetch_add(&d->shadow->refs, 1, __ATOMIC_ACQ_REL);
			break;
		}
	pthread_mutex_unlock(&sw_owned_lock);
	return d;
}

void
sw_domain_unmap(struct sw_domain *d)
{
	if (d == NULL)
		return;
	sw_maps_del(d);
	munmap(d->base, d->size);
	sw_shadow_put(d->shadow);
	free(d);
}

void
sw_domain_destroy(struct sw_domain *d)
{
	uint32_t i;

	if (d == NULL)
		return;
	pthread_mutex_lock(&sw_owned_lock);
	for (i = 0; i < RTE_DIM(sw_owned); i++)
		if (sw_owned[i] == d)
			sw_owned[i] = NULL;
	pthread_mutex_unlock(&sw_owned_lock);
	/* Peers still mapping it see closed and treat our QPs as gone. */
	__atomic_store_n(&d->hdr->closed, 1, __ATOMIC_RELEASE);
	shm_unlink(d->name);
	if (d->fd >= 0)
		close(d->fd);
	sw_domain_unmap(d);
}

#define SW_HDR_END RTE_ALIGN_CEIL(sizeof(struct sw_shm_hdr), 4096)

/* An allocation entry lies in the segment, after the header. */
static bool
sw_alloc_sane(const struct sw_domain *d, const struct sw_alloc *a)
{
	return a->off >= SW_HDR_END && a->off <= d->size && a->len <= d->size - a->off;
}

uint64_t
sw_shm_alloc(struct sw_domain *d, uint64_t len, bool dm)
{
	struct sw_shm_hdr *h = d->hdr;
	struct sw_alloc *free_slot = NULL, *best = NULL;
	uint64_t off = 0;
	uint32_t i;

	len = RTE_ALIGN_CEIL(len, 4096);
	sw_lock(&h->lock);
	if (dm && h->dm_used + len > SW_MAX_DM) {
		sw_unlock(&h->lock);
		rte_errno = ENOMEM;
		return 0;
	}
	for (i = 0; i < SW_MAX_ALLOC; i++) {
		struct sw_alloc *a = &h->allocs[i];

		if (a->len == 0) {
			if (free_slot == NULL)
				free_slot = a;
			continue;
		}
		/* the table is in shared memory: an entry outside the segment
		 * (rewritten by a peer) is never used */
		if (!sw_alloc_sane(d, a))
			continue;
		if (!a->used && a->len >= len && (best == NULL || a->len < best->len))
			best = a;
	}
	if (best != NULL) {
		best->used = 1;
		best->dm = dm;
		off = best->off;
		len = best->len;
	} else if (free_slot != NULL && h->brk >= SW_HDR_END && h->brk <= d->size &&
		   len <= d->size - h->brk) {
		free_slot->off = h->brk;
		free_slot->len = len;
		free_slot->used = 1;
		free_slot->dm = dm;
		off = h->brk;
		h->brk += len;
	}
	if (off != 0 && d->fd >= 0 &&
	    fallocate(d->fd, 0, (off_t)off, (off_t)len) != 0) {
		/* /dev/shm is full: fail here rather than SIGBUS on first touch */
		SW_LOG(ERR, "cannot reserve %lu bytes in /dev/shm: %s\n",
			(unsigned long)len, strerror(errno));
		for (i = 0; i < SW_MAX_ALLOC; i++)
			if (h->allocs[i].len != 0 && h->allocs[i].off == off)
				h->allocs[i].used = 0;
		off = 0;
	}
	if (off != 0 && best != NULL)
		/* reused memory starts zeroed, like fresh pages */
		memset(d->base + off, 0, len);
	if (off != 0 && dm)
		h->dm_used += len;
	sw_unlock(&h->lock);
	if (off == 0)
		rte_errno = ENOMEM;
	return off;
}

void
sw_shm_free(struct sw_domain *d, uint64_t off)
{
	struct sw_shm_hdr *h = d->hdr;
	uint32_t i;

	if (off == 0)
		return;
	sw_lock(&h->lock);
	for (i = 0; i < SW_MAX_ALLOC; i++) {
		struct sw_alloc *a = &h->allocs[i];

		if (a->len != 0 && a->used && a->off == off && sw_alloc_sane(d, a)) {
			a->used = 0;
			if (a->dm)
				h->dm_used -= a->len;
			/* give the pages back to tmpfs */
			madvise(d->base + off, a->len, MADV_REMOVE);
			break;
		}
	}
	sw_unlock(&h->lock);
}

uint32_t
sw_mr_add(struct sw_domain *d, enum sw_mr_kind kind, uint64_t iova, uint64_t len,
	  uint64_t shm_off, uint64_t local_addr, int access, pid_t pid)
{
	struct sw_shm_hdr *h = d->hdr;
	uint32_t i, key = 0;

	sw_lock(&h->lock);
	for (i = 0; i < SW_MAX_MR; i++) {
		struct sw_mr_shm *mr = &h->mrs[i];
		uint32_t gen;

		/* the trusted copy says which slots are free */
		if ((d->shadow != NULL ? d->shadow->mrs[i].key : mr->key) != 0)
			continue;
		/* key = slot << 8 | generation (1..255): never 0, never
		 * MLX5_INVALID_LKEY (0x100), and a stale key of a freed
		 * region does not match the next one in the slot. */
		gen = (++h->mr_gen % 255U) + 1U;
		key = i << 8 | gen;
		if (d->shadow != NULL) {
			struct sw_mr_shm *t = &d->shadow->mrs[i];

			t->access = (uint32_t)access;
			t->kind = kind;
			t->owner_pid = (int32_t)pid;
			t->iova = iova;
			t->len = len;
			t->shm_off = shm_off;
			t->local_addr = local_addr;
			__atomic_store_n(&t->key, key, __ATOMIC_RELEASE);
		}
		mr->access = (uint32_t)access;
		mr->kind = kind;
		mr->owner_pid = (int32_t)pid;
		mr->iova = iova;
		mr->len = len;
		mr->shm_off = shm_off;
		mr->local_addr = local_addr;
		__atomic_store_n(&mr->key, key, __ATOMIC_RELEASE);
		break;
	}
	sw_unlock(&h->lock);
	if (key == 0)
		rte_errno = ENOSPC;
	return key;
}

int
sw_mr_del(struct sw_domain *d, uint32_t key)
{
	struct sw_shm_hdr *h = d->hdr;
	uint32_t slot = key >> 8;

	if (slot >= SW_MAX_MR)
		return -EINVAL;
	sw_lock(&h->lock);
	if ((d->shadow != NULL ? d->shadow->mrs[slot].key : h->mrs[slot].key) != key) {
		sw_unlock(&h->lock);
		return -EINVAL;
	}
	__atomic_store_n(&h->mrs[slot].key, 0, __ATOMIC_RELEASE);
	if (d->shadow != NULL)
		__atomic_store_n(&d->shadow->mrs[slot].key, 0, __ATOMIC_RELEASE);
	sw_unlock(&h->lock);
	return 0;
}
