/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A progress line on stderr, at most once a second, during a long measured
 * run, only when stderr is a terminal (perftest prints none; a script that
 * reads stderr from a pipe or a file sees nothing new). The client's first
 * lcore prints it from its slow checks (perf_check_slow, every 256 passes),
 * summing the lcores' live counters as the telemetry callback does; the
 * first line comes once the measured phase has run 1 s, so short runs
 * print none.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "rdx_runtime.h"

#include "perf_app.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static const struct perf_app *prog_app;
static uint64_t prog_next;

void
perf_progress_init(const struct perf_app *a)
{
	prog_app = a->client && a->mpi == NULL && isatty(STDERR_FILENO) ? a : NULL;
	prog_next = 0;
}

void
perf_progress_tick(const struct perf_lcore *lc, uint64_t now)
{
	const struct perf_app *a = prog_app;
	uint64_t hz = rdx_tsc_hz(), ops = 0, bytes = 0, t0 = LOAD(lc->t_start);
	unsigned int l;
	double s;

	if (a == NULL || lc->idx != 0 || !lc->measure || t0 == 0 || now < t0 + hz || now < prog_next)
		return;
	prog_next = now + hz;
	for (l = 0; l < a->nb_lcores; l++) {
		ops += LOAD(a->lcores[l].ops);
		bytes += LOAD(a->lcores[l].bytes);
	}
	s = (double)(now - t0) / (double)hz;
	fprintf(stderr, "rdx-perf: progress: %s %s size %" PRIu64 " B: %.0f s, %" PRIu64 " ops, %.2f MiB/s, %.6f Mpps\n",
		a->o.test, a->o.mode == PERF_MODE_LAT ? "lat" : "bw", a->run.size, s, ops,
		(double)bytes / s / (1024.0 * 1024.0), (double)ops / s / 1e6);
}
