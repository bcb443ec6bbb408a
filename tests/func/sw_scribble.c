/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sw_scribble: the hostile half of tests/func/kv_hostile.sh. It maps the
 * software device segments of process PID (/dev/shm/rdx-sw-PID-*, the ones
 * that process's peers map) and writes seeded random 8-byte words over
 * their first MR, CQ and QP table slots and the first MiBs of rings and
 * buffers after the header, one every 100 us for SECONDS seconds: what
 * that process could do to its own segment while its peers' engines read
 * it. Prints how many words it wrote; exit 0, or 1 with one line when no
 * segment of PID is there.
 *
 *   sw_scribble PID SECONDS [SEED]
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sw_model.h"

#define SCRIBBLE_MAX_SEG 8

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	uint8_t *base[SCRIBBLE_MAX_SEG];
	size_t size[SCRIBBLE_MAX_SEG];
	char prefix[64], path[320];
	const size_t ring0 = (sizeof(struct sw_shm_hdr) + 4095) & ~(size_t)4095;
	unsigned int nseg = 0;
	uint64_t x, words = 0, end;
	struct dirent *de;
	DIR *d;

	if (argc < 3 || argc > 4 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: sw_scribble PID SECONDS [SEED]\n");
		return 2;
	}
	x = UINT64_C(0x2545f4914f6cdd1d) ^ (argc == 4 ? strtoull(argv[3], NULL, 0) : 1);
	snprintf(prefix, sizeof(prefix), "rdx-sw-%d-", atoi(argv[1]));
	d = opendir("/dev/shm");
	while (d != NULL && nseg < SCRIBBLE_MAX_SEG && (de = readdir(d)) != NULL) {
		struct stat st;
		int fd;

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		fd = open(path, O_RDWR);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && (size_t)st.st_size >= ring0 + (UINT64_C(4) << 20)) {
			size[nseg] = (size_t)st.st_size;
			base[nseg] = mmap(NULL, size[nseg], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			nseg += base[nseg] != MAP_FAILED;
		}
		close(fd);
	}
	if (d != NULL)
		closedir(d);
	if (nseg == 0) {
		fprintf(stderr, "sw_scribble: no segment /dev/shm/%s* to map\n", prefix);
		return 1;
	}
	end = now_ns() + (uint64_t)atoi(argv[2]) * 1000000000u;
	while (now_ns() < end) {
		uint64_t off, v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x;
		switch (x % 4) {
		case 0:
			off = offsetof(struct sw_shm_hdr, mrs) + (x >> 8) % (4 * sizeof(struct sw_mr_shm));
			break;
		case 1:
			off = offsetof(struct sw_shm_hdr, cqs) + (x >> 8) % (4 * sizeof(struct sw_cq_shm));
			break;
		case 2:
			off = offsetof(struct sw_shm_hdr, qps) + (x >> 8) % (4 * sizeof(struct sw_qp_shm));
			break;
		default:
			off = ring0 + (x >> 8) % (UINT64_C(4) << 20);
			break;
		}
		/* a segment the owner truncated would fault: its SIGBUS is this
		 * tool's end, never the server's */
		memcpy(base[(x >> 40) % nseg] + (off & ~UINT64_C(7)), &v, 8);
		words++;
		usleep(100);
	}
	printf("sw_scribble: %" PRIu64 " words over %u segment(s) of pid %s\n", words, nseg, argv[1]);
	return 0;
}
