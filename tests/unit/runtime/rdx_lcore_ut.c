/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run-to-completion loop (rdx_lcore.c) on the calling thread, no EAL
 * needed: registration limits, per-poller busy/idle accounting, stopping by
 * loop->stop and by the global stop flag.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../lib/runtime/rdx_lcore.c"

struct worker {
	unsigned int calls;
	unsigned int work_every;   /* does work on every n-th call; 0: never */
	unsigned int stop_after;   /* stops the loop after this many calls */
	struct rdx_lcore_loop *loop;
	bool global_stop;
	volatile unsigned int sink;
};

static int
poll_worker(void *arg)
{
	struct worker *w = arg;
	int did = 0;

	w->calls++;
	if (w->work_every != 0 && w->calls % w->work_every == 0) {
		/* Some real work so busy cycles are non-zero. */
		for (unsigned int i = 0; i < 200; i++)
			w->sink += i;
		did = 3;
	}
	if (w->stop_after != 0 && w->calls >= w->stop_after) {
		if (w->global_stop)
			rdx_runtime_stop();
		else
			rdx_lcore_loop_stop(w->loop);
	}
	return did;
}

static void
test_add_limits(void)
{
	struct rdx_lcore_loop loop;
	struct worker w = { 0 };
	unsigned int i;

	rdx_lcore_loop_init(&loop);
	CU_ASSERT_EQUAL(loop.nb_pollers, 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(NULL, "x", poll_worker, &w), -EINVAL);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "x", NULL, &w), -EINVAL);
	for (i = 0; i < RDX_MAX_POLLERS; i++)
		CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, NULL, poll_worker, &w), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "one too many", poll_worker, &w), -ENOSPC);
	CU_ASSERT_EQUAL(loop.nb_pollers, RDX_MAX_POLLERS);
	CU_ASSERT_STRING_EQUAL(loop.pollers[0].name, "poller");
	CU_ASSERT_EQUAL(rdx_lcore_loop_run_once(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_lcore_loop_run(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_lcore_loop_busy_pct(NULL), 0.0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_busy_pct(&loop), 0.0);
}

static void
test_busy_vs_idle_accounting(void)
{
	struct rdx_lcore_loop loop;
	struct worker busy = { .work_every = 1 };
	struct worker idle = { .work_every = 0 };
	struct worker half = { .work_every = 2, .stop_after = 1000 };
	double pct;

	rdx_runtime_stop_reset();
	rdx_lcore_loop_init(&loop);
	half.loop = &loop;
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "busy", poll_worker, &busy), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "idle", poll_worker, &idle), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "half", poll_worker, &half), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_run(&loop), 0);

	/* Stopped by the third poller after its 1000th call. */
	CU_ASSERT_EQUAL(loop.iterations, 1000);
	CU_ASSERT_EQUAL(loop.pollers[0].calls, 1000);
	CU_ASSERT_EQUAL(loop.pollers[0].busy_calls, 1000);
	CU_ASSERT(loop.pollers[0].busy_cycles > 0);
	CU_ASSERT_EQUAL(loop.pollers[0].idle_cycles, 0);
	CU_ASSERT_EQUAL(loop.pollers[1].calls, 1000);
	CU_ASSERT_EQUAL(loop.pollers[1].busy_calls, 0);
	CU_ASSERT_EQUAL(loop.pollers[1].busy_cycles, 0);
	CU_ASSERT(loop.pollers[1].idle_cycles > 0);
	CU_ASSERT_EQUAL(loop.pollers[2].busy_calls, 500);
	CU_ASSERT(loop.pollers[2].busy_cycles > 0 && loop.pollers[2].idle_cycles > 0);
	/* The loop's totals are the sum of its pollers'. */
	CU_ASSERT_EQUAL(loop.busy_cycles, loop.pollers[0].busy_cycles +
			loop.pollers[1].busy_cycles + loop.pollers[2].busy_cycles);
	CU_ASSERT_EQUAL(loop.idle_cycles, loop.pollers[0].idle_cycles +
			loop.pollers[1].idle_cycles + loop.pollers[2].idle_cycles);
	pct = rdx_lcore_loop_busy_pct(&loop);
	CU_ASSERT(pct > 0.0 && pct < 100.0);
	CU_ASSERT_FALSE(rdx_runtime_stopping());

	/* The report: a header and one line per poller, by name. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(rdx_lcore_loop_dump(&loop, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "loop: 1000 passes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  busy "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  idle "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  half "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "100.0% busy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  0.0% busy"));
	free(text);
	CU_ASSERT_EQUAL(rdx_lcore_loop_dump(NULL, stdout), -EINVAL);
}

static void
test_run_once(void)
{
	struct rdx_lcore_loop loop;
	struct worker busy = { .work_every = 1 };
	struct worker idle = { 0 };

	rdx_lcore_loop_init(&loop);
	rdx_lcore_loop_add(&loop, "busy", poll_worker, &busy);
	rdx_lcore_loop_add(&loop, "idle", poll_worker, &idle);
	CU_ASSERT_EQUAL(rdx_lcore_loop_run_once(&loop), 3);
	CU_ASSERT_EQUAL(loop.iterations, 1);
	CU_ASSERT_EQUAL(busy.calls, 1);
	CU_ASSERT_EQUAL(idle.calls, 1);

	/* Only idle pollers: 0% busy. */
	rdx_lcore_loop_init(&loop);
	rdx_lcore_loop_add(&loop, "idle", poll_worker, &idle);
	CU_ASSERT_EQUAL(rdx_lcore_loop_run_once(&loop), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_busy_pct(&loop), 0.0);
}

static void
test_global_stop(void)
{
	struct rdx_lcore_loop loop;
	struct worker w = { .work_every = 1, .stop_after = 50, .global_stop = true };

	rdx_runtime_stop_reset();
	rdx_lcore_loop_init(&loop);
	w.loop = &loop;
	rdx_lcore_loop_add(&loop, "w", poll_worker, &w);
	CU_ASSERT_EQUAL(rdx_lcore_loop_run(&loop), 0);
	CU_ASSERT_EQUAL(loop.iterations, 50);
	CU_ASSERT_TRUE(rdx_runtime_stopping());
	CU_ASSERT_FALSE(loop.stop);
	CU_ASSERT_EQUAL(rdx_lcore_loop_busy_pct(&loop), 100.0);

	/* Already stopped: the loop returns without calling anyone. */
	CU_ASSERT_EQUAL(rdx_lcore_loop_run(&loop), 0);
	CU_ASSERT_EQUAL(w.calls, 50);
	rdx_runtime_stop_reset();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "poller registration", test_add_limits },
		{ "busy vs idle accounting", test_busy_vs_idle_accounting },
		{ "one pass", test_run_once },
		{ "global stop flag", test_global_stop },
		{ NULL, NULL },
	};

	return rdx_ut_run("lcore loop", cases, NULL, NULL);
}
