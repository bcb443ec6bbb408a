/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Figures, not assertions (meson test --benchmark): the cost of one
 * rdx_tsc() as calibrated at start-up, and the poller loop's overhead per
 * poller call with empty pollers, for 1, 4 and 16 pollers. Median of runs.
 * Instruction counts, deterministic: valgrind --tool=callgrind
 * --toggle-collect=rdx_lcore_loop_run rdx_runtime_bench 65536
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "rdx_runtime.h"

#define RUNS 9

/* Poller calls per run: argv[1] (small under valgrind), default 1 Mi. */
static unsigned int calls = 1u << 20;

struct empty {
	unsigned int calls;
	unsigned int limit;
	struct rdx_lcore_loop *loop;
};

static int
empty_poller(void *arg)
{
	struct empty *e = arg;

	if (++e->calls == e->limit)
		rdx_lcore_loop_stop(e->loop);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
loop_cost(unsigned int nb_pollers)
{
	static struct rdx_lcore_loop loop;
	struct empty e[RDX_MAX_POLLERS];
	double runs[RUNS];
	unsigned int r, i;

	for (r = 0; r < RUNS; r++) {
		uint64_t t0, t1;

		rdx_lcore_loop_init(&loop);
		memset(e, 0, sizeof(e));
		for (i = 0; i < nb_pollers; i++) {
			e[i].limit = i == 0 ? calls / nb_pollers : 0;
			e[i].loop = &loop;
			rdx_lcore_loop_add(&loop, "empty", empty_poller, &e[i]);
		}
		t0 = rdx_tsc();
		rdx_lcore_loop_run(&loop);
		t1 = rdx_tsc();
		runs[r] = (double)(t1 - t0) / (double)(loop.iterations * nb_pollers);
	}
	qsort(runs, RUNS, sizeof(runs[0]), cmp_double);
	return runs[RUNS / 2];
}

int
main(int argc, char **argv)
{
	char a0[] = "rdx_runtime_bench", a1[] = "-l", a2[] = "0";
	char *eal[] = { a0, a1, a2, NULL };
	unsigned int n[] = { 1, 4, 16 };
	double hz;

	if (argc > 1) {
		char *end;
		unsigned long v = strtoul(argv[1], &end, 10);

		if (*end != '\0' || v < 16 || v > (1ul << 30)) {
			fprintf(stderr, "usage: %s [poller calls per run, 16..2^30]\n", argv[0]);
			return 2;
		}
		calls = (unsigned int)v;
	}
	if (rdx_runtime_init(3, eal) < 0)
		return 1;
	hz = (double)rdx_tsc_hz();
	printf("tsc: %.0f Hz; one rdx_tsc(): median %.1f cycles (%.1f ns), min %.1f cycles\n",
	       hz, rdx_tsc_cost_cycles(), rdx_tsc_cost_cycles() * 1e9 / hz,
	       rdx_tsc_cost_min_cycles());
	for (unsigned int k = 0; k < RTE_DIM(n); k++) {
		double c = loop_cost(n[k]);

		printf("poller loop, %2u empty pollers: %.1f cycles (%.1f ns) per poller call "
		       "(median of %d runs of %u calls)\n", n[k], c, c * 1e9 / hz, RUNS, calls);
	}
	rdx_runtime_cleanup();
	return 0;
}
