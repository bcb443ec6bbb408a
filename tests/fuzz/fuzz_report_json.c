/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the JSON report reader (lib/stats/rdx_report_json.c),
 * which reads files anyone may hand it (reports from other machines, from
 * other versions, edited ones), now with the latency buckets. The input is
 * the file. Whatever it accepts must hold together: every row's buckets
 * ascending, hi >= lo, counts summing to lat.count; and written back and
 * read again it must give the same rows and buckets. Anything else aborts
 * (a finding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdx_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
finding(const char *what)
{
	fprintf(stderr, "fuzz_report_json: %s\n", what);
	abort();
}

/* A file holding data: a memfd, named through /proc/self/fd. */
static int
memfile(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz_report", 0);

	if (fd < 0)
		return -1;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void
check_buckets(const struct rdx_report *r)
{
	unsigned int i, j, n;

	for (i = 0; i < rdx_report_count(r); i++) {
		const struct rdx_result *x = rdx_report_get(r, i);
		const struct rdx_lat_bucket *b = rdx_report_lat_buckets(r, i, &n);
		uint64_t sum = 0;

		if (b == NULL)
			continue;
		if (!x->has_lat || n == 0)
			finding("buckets on a row without latency");
		for (j = 0; j < n; j++) {
			if (b[j].hi_ns < b[j].lo_ns || (j > 0 && b[j].lo_ns < b[j - 1].hi_ns))
				finding("buckets not ascending");
			sum += b[j].count;
		}
		if (sum != x->lat.count)
			finding("bucket counts do not sum to lat.count");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], path2[64], err[256];
	struct rdx_report *r, *back;
	unsigned int i, n, n2;
	int fd, fd2;

	fd = memfile(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	r = rdx_report_read_json_msg(path, err, sizeof(err));
	close(fd);
	if (r == NULL)
		return 0;
	check_buckets(r);
	fd2 = memfd_create("fuzz_report_out", 0);
	if (fd2 >= 0) {
		snprintf(path2, sizeof(path2), "/proc/self/fd/%d", fd2);
		if (rdx_report_write_json(r, path2) == 0) {
			back = rdx_report_read_json_msg(path2, err, sizeof(err));
			if (back == NULL)
				finding("a report it accepted, written back, is refused");
			if (rdx_report_count(back) != rdx_report_count(r))
				finding("rows lost in the round trip");
			for (i = 0; i < rdx_report_count(r); i++) {
				const struct rdx_lat_bucket *b = rdx_report_lat_buckets(r, i, &n);
				const struct rdx_lat_bucket *b2 = rdx_report_lat_buckets(back, i, &n2);

				if (n != n2 || (n > 0 && memcmp(b, b2, n * sizeof(*b)) != 0))
					finding("buckets changed in the round trip");
			}
			rdx_report_free(back);
		}
		close(fd2);
	}
	rdx_report_free(r);
	return 0;
}
