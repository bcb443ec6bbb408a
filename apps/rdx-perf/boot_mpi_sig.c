/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf under MPI, a rank's options: the default -q of the patterns
 * that deal QPs over every peer, and the options every rank must share,
 * compared across the ranks with one MPI_Allgather (boot_mpi.c's
 * perf_mpi_roles). lib/boot's mpi provider chooses each rank's CPU.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "perf_app.h"
#include "perf_mpi_priv.h"
#include "perf_opts.h"

/*
 * one-to-many and all-to-all deal a client's QPs over every other rank:
 * without -q or --qp-sweep, each rank gets the fewest QPs per lcore that
 * reach all n - 1 peers (the header prints -q as for any run).
 */
void
perf_mpi_default_qps(struct perf_app *a, const struct perf_mpi *mp)
{
	const bool cp = mp->m.pattern == PERF_PATTERN_CLUSTERPERF;
	uint32_t need, peers = cp ? a->o.servers : (uint32_t)mp->size - 1;

	/* clusterperf: each client rank reaches every server rank */
	if (!a->o.default_qps || mp->size < 2 || a->nb_lcores == 0 ||
	    (mp->m.pattern != PERF_PATTERN_ONE_TO_MANY && mp->m.pattern != PERF_PATTERN_ALL_TO_ALL && !cp))
		return;
	need = (peers + a->nb_lcores - 1) / a->nb_lcores;
	if (need <= a->o.qps || need > RDX_MAX_QPS_PER_LCORE)
		return;
	a->o.qps = need;
	a->o.sweep_lo = need;
	a->o.sweep_hi = need;
}

/* The options every rank must share: they set the runs' number, sizes and
 * lengths, the wire protocol and the collectives (--pattern,
 * --flows-start). Each rank opens its own device (--dev, -i, -x, --driver
 * may differ, as in an MPMD command line over several devices). */
struct opt_sig {
	char test[16];
	int32_t pattern, flows;
	uint32_t stagger_ms;
	int32_t mode, transport;
	uint32_t verify, rpc_kv, keys, concurrent, servers, bidir, infinite;
	uint32_t sweep_lo, sweep_hi, sweep_factor;
	uint32_t nb_sizes;
	uint64_t sizes[PERF_MAX_SIZES];
	uint64_t iters, warmup_iters;
	double duration, warmup_s;
};

static const struct {
	const char *name;
	size_t off, len;
} sig_fields[] = {
#define SIG(f, n) { n, offsetof(struct opt_sig, f), sizeof(((struct opt_sig *)0)->f) }
	SIG(test, "--test"), SIG(pattern, "--pattern"), SIG(flows, "--flows-start"),
	SIG(stagger_ms, "--flows-start"), SIG(mode, "--mode"), SIG(transport, "--transport"),
	SIG(verify, "--verify"), SIG(rpc_kv, "--test"), SIG(keys, "--keys"), SIG(concurrent, "--concurrent-ops"),
	SIG(servers, "--servers"), SIG(bidir, "-b"), SIG(infinite, "--run_infinitely"),
	SIG(sweep_lo, "--qp-sweep"), SIG(sweep_hi, "--qp-sweep"),
	SIG(sweep_factor, "--qp-sweep"), SIG(nb_sizes, "-s"), SIG(sizes, "-s"),
	SIG(iters, "-n"), SIG(warmup_iters, "-w"), SIG(duration, "-D"),
	SIG(warmup_s, "-w"),
#undef SIG
};

static void
sig_fill(const struct perf_mpi *mp, const struct perf_opts *o, struct opt_sig *g)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->test, sizeof(g->test), "%s", o->test);
	g->pattern = (int32_t)mp->m.pattern;
	g->flows = (int32_t)mp->m.flows;
	g->stagger_ms = mp->m.stagger_ms;
	g->mode = (int32_t)o->mode;
	g->transport = (int32_t)o->transport;
	g->verify = o->verify;
	g->rpc_kv = o->rpc_kv;
	g->keys = o->keys;
	g->concurrent = o->concurrent;
	g->servers = o->servers;
	g->bidir = o->bidir;
	g->infinite = o->infinite;
	g->sweep_lo = o->sweep_lo;
	g->sweep_hi = o->sweep_hi;
	g->sweep_factor = o->sweep_factor;
	g->nb_sizes = RTE_MIN(o->nb_sizes, (unsigned int)PERF_MAX_SIZES);
	memcpy(g->sizes, o->sizes, g->nb_sizes * sizeof(g->sizes[0]));
	g->iters = o->iters;
	g->warmup_iters = o->warmup_iters;
	g->duration = o->duration;
	g->warmup_s = o->warmup_s;
}

/* 0 when every rank's options match rank 0's, else -EINVAL and the first
 * option that differs in err (the same on every rank). */
int
perf_mpi_sig_check(const struct perf_mpi *mp, const struct perf_opts *o, char *err, size_t len)
{
	struct opt_sig me, *all;
	unsigned int f;
	int r, rc = 0;

	sig_fill(mp, o, &me);
	all = calloc((size_t)mp->size, sizeof(*all));
	if (all == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);   /* a collective follows */
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	for (r = 1; r < mp->size && rc == 0; r++)
		for (f = 0; f < RTE_DIM(sig_fields) && rc == 0; f++)
			if (memcmp((const char *)&all[0] + sig_fields[f].off,
				   (const char *)&all[r] + sig_fields[f].off, sig_fields[f].len) != 0) {
				snprintf(err, len, "ranks differ in %s: rank 0 and rank %d were given other values (every rank needs the same test options; only the device may differ)",
					 sig_fields[f].name, r);
				rc = -EINVAL;
			}
	free(all);
	return rc;
}
