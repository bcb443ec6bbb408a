/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf -R in a build without librdmacm (apps/rdx-perf/meson.build
 * compiles this instead of rdmacm.c): each end refuses -R with one line
 * before any QP is connected.
 */
#include <errno.h>
#include <stdio.h>

#include "perf_app.h"

static int
cm_unavailable(void)
{
	fprintf(stderr, "rdx-perf: -R (rdma_cm): this rdx-perf was built without librdmacm "
		"(install the Debian package librdmacm-dev and rebuild)\n");
	return -ENOTSUP;
}

int
perf_cm_listen(struct perf_app *a)
{
	(void)a;
	return cm_unavailable();
}

int
perf_cm_connect(struct perf_app *a, struct perf_ep *eps)
{
	(void)a;
	(void)eps;
	return cm_unavailable();
}

void
perf_cm_close(struct perf_app *a)
{
	(void)a;
}
