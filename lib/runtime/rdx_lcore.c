/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run-to-completion loop of one lcore: pollers called in turn, each pass
 * timed with one TSC read per poller (the end of one call is the start of
 * the next), busy when the poller reports work. Nothing in the loop
 * allocates, locks, logs or makes a system call.
 *
 * While rdx_lcore_loop_run runs, the loop is listed under its lcore so that
 * telemetry can read its counters from another thread (relaxed loads, see
 * rdx_lcore_loop_snapshot). The list's lock is taken once when the run
 * starts and once when it ends, never inside the loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "rdx_runtime.h"

void
rdx_lcore_loop_init(struct rdx_lcore_loop *loop)
{
	if (loop != NULL)
		memset(loop, 0, sizeof(*loop));
}

int
rdx_lcore_loop_add(struct rdx_lcore_loop *loop, const char *name,
		   rdx_poller_fn_t fn, void *arg)
{
	struct rdx_poller *p;

	if (loop == NULL || fn == NULL)
		return -EINVAL;
	if (loop->nb_pollers >= RDX_MAX_POLLERS)
		return -ENOSPC;
	p = &loop->pollers[loop->nb_pollers];
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->arg = arg;
	p->name = name != NULL ? name : "poller";
	loop->nb_pollers++;
	return 0;
}

/* rte_rdtsc() inline rather than rdx_tsc(): no call per poller. */
static inline int
loop_pass(struct rdx_lcore_loop *loop)
{
	uint64_t t0 = rte_rdtsc(), t1, busy = 0, idle = 0;
	unsigned int i;
	int work = 0;

	for (i = 0; i < loop->nb_pollers; i++) {
		struct rdx_poller *p = &loop->pollers[i];
		int n = p->fn(p->arg);

		t1 = rte_rdtsc();
		p->calls++;
		if (n > 0) {
			p->busy_calls++;
			p->busy_cycles += t1 - t0;
			busy += t1 - t0;
			work += n;
		} else {
			p->idle_cycles += t1 - t0;
			idle += t1 - t0;
		}
		t0 = t1;
	}
	loop->busy_cycles += busy;
	loop->idle_cycles += idle;
	loop->iterations++;
	return work;
}

int
rdx_lcore_loop_run_once(struct rdx_lcore_loop *loop)
{
	if (loop == NULL)
		return -EINVAL;
	return loop_pass(loop);
}

/* Loops running now, by lcore id (threads that are no EAL lcore are not
 * listed). */
static pthread_mutex_t loops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdx_lcore_loop *loops[RTE_MAX_LCORE];

/* List loop under the calling lcore; false when it cannot be (not an EAL
 * lcore, or a loop already runs there: a nested run stays unlisted). */
static bool
loop_list(struct rdx_lcore_loop *loop)
{
	unsigned int id = rte_lcore_id();
	bool listed = false;

	if (id >= RTE_MAX_LCORE)
		return false;
	pthread_mutex_lock(&loops_lock);
	if (loops[id] == NULL) {
		loops[id] = loop;
		listed = true;
	}
	pthread_mutex_unlock(&loops_lock);
	return listed;
}

static void
loop_unlist(struct rdx_lcore_loop *loop)
{
	unsigned int id = rte_lcore_id();

	pthread_mutex_lock(&loops_lock);
	if (id < RTE_MAX_LCORE && loops[id] == loop)
		loops[id] = NULL;
	pthread_mutex_unlock(&loops_lock);
}

int
rdx_lcore_loop_run(struct rdx_lcore_loop *loop)
{
	const volatile int *stop;
	bool listed;

	if (loop == NULL)
		return -EINVAL;
	stop = rdx_runtime_stop_flag();
	listed = loop_list(loop);
	while (likely(!loop->stop && __atomic_load_n(stop, __ATOMIC_RELAXED) == 0))
		loop_pass(loop);
	if (listed)
		loop_unlist(loop);
	return 0;
}

unsigned int
rdx_lcore_loop_lcores(unsigned int *ids, unsigned int max)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&loops_lock);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		if (loops[i] == NULL)
			continue;
		if (ids != NULL && n < max)
			ids[n] = i;
		n++;
	}
	pthread_mutex_unlock(&loops_lock);
	return n;
}

/* The owner lcore bumps these without atomics; relaxed 64-bit loads are
 * torn-free on 64-bit hosts and counters need no ordering. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

int
rdx_lcore_loop_snapshot(unsigned int lcore_id, struct rdx_lcore_loop *out)
{
	const struct rdx_lcore_loop *l;
	unsigned int i;
	int ret = 0;

	if (out == NULL || lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&loops_lock);
	l = loops[lcore_id];
	if (l == NULL) {
		ret = -ENOENT;
		goto out;
	}
	/* pollers are added before the run starts: their set is fixed */
	out->nb_pollers = RTE_MIN(l->nb_pollers, (unsigned int)RDX_MAX_POLLERS);
	for (i = 0; i < out->nb_pollers; i++) {
		const struct rdx_poller *p = &l->pollers[i];
		struct rdx_poller *q = &out->pollers[i];

		q->fn = p->fn;
		q->arg = p->arg;
		q->name = p->name;
		q->calls = LOAD(p->calls);
		q->busy_calls = LOAD(p->busy_calls);
		q->busy_cycles = LOAD(p->busy_cycles);
		q->idle_cycles = LOAD(p->idle_cycles);
	}
	out->stop = l->stop;
	out->busy_cycles = LOAD(l->busy_cycles);
	out->idle_cycles = LOAD(l->idle_cycles);
	out->iterations = LOAD(l->iterations);
out:
	pthread_mutex_unlock(&loops_lock);
	return ret;
}
#undef LOAD

void
rdx_lcore_loop_stop(struct rdx_lcore_loop *loop)
{
	if (loop != NULL)
		loop->stop = true;
}

double
rdx_lcore_loop_busy_pct(const struct rdx_lcore_loop *loop)
{
	uint64_t total;

	if (loop == NULL)
		return 0.0;
	total = loop->busy_cycles + loop->idle_cycles;
	if (total == 0)
		return 0.0;
	return 100.0 * (double)loop->busy_cycles / (double)total;
}

int
rdx_lcore_loop_dump(const struct rdx_lcore_loop *loop, FILE *f)
{
	unsigned int i;

	if (loop == NULL || f == NULL)
		return -EINVAL;
	fprintf(f, "loop: %" PRIu64 " passes, %.1f%% busy (%" PRIu64 " busy / %" PRIu64
		" idle cycles)\n", loop->iterations, rdx_lcore_loop_busy_pct(loop),
		loop->busy_cycles, loop->idle_cycles);
	for (i = 0; i < loop->nb_pollers; i++) {
		const struct rdx_poller *p = &loop->pollers[i];
		uint64_t total = p->busy_cycles + p->idle_cycles;

		fprintf(f, "  %-16s %12" PRIu64 " calls %12" PRIu64 " busy  %5.1f%% busy"
			"  %8.1f cycles/busy call\n", p->name, p->calls, p->busy_calls,
			total != 0 ? 100.0 * (double)p->busy_cycles / (double)total : 0.0,
			p->busy_calls != 0 ? (double)p->busy_cycles / (double)p->busy_calls : 0.0);
	}
	return 0;
}
