/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the two-process software-device tests (sw_xproc_ut, sw_ud_ut):
 * whole messages over the parent/child pipes.
 */
#ifndef SW_UT_PIPE_H
#define SW_UT_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Read exactly n bytes; -1 on EOF or error. */
static inline int
rd_all(int fd, void *p, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, p, n);

		if (r <= 0)
			return -1;
		p = (uint8_t *)p + r;
		n -= (size_t)r;
	}
	return 0;
}

/* Write exactly n bytes; -1 on error. */
static inline int
wr_all(int fd, const void *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);

		if (r <= 0)
			return -1;
		p = (const uint8_t *)p + r;
		n -= (size_t)r;
	}
	return 0;
}

#endif /* SW_UT_PIPE_H */
