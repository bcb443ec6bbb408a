/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf --pattern reports (doc/cluster.md), collective over the ranks:
 * one row per client rank and lcore (with rank and host) gathered on rank
 * 0, a cluster total whose percentiles come from the ranks' histograms
 * merged exactly (MPI_Reduce with rdx_hist_merge as the operation: bucket
 * counts add up, never percentiles), and with --flows-start the share
 * analysis of rdx-flows (first finisher, shares over the common interval,
 * Jain's index) computed from every rank's per-WR log.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "rdx_report.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_mpi_priv.h"
#include "perf_opts.h"

/* One row of one rank, as gathered. */
struct crow {
	int32_t rank;
	int32_t lcore;
	uint32_t qps;
	uint32_t has_lat;
	uint64_t ops;
	uint64_t bytes;
	int64_t t0_ns;            /* CLOCK_REALTIME of the measured phase */
	int64_t t1_ns;
	double busy;
	double peak;              /* perftest's BW peak, bytes/s (0: none) */
	struct rdx_hist_summary lat;
};

/* TSC -> CLOCK_REALTIME ns, both clocks sampled by perf_cluster_run. */
static int64_t rt_ns0;
static uint64_t rt_tsc0;

int64_t
perf_cluster_tsc_ns(uint64_t tsc)
{
	uint64_t hz = rdx_tsc_hz();

	if (tsc <= rt_tsc0)
		return rt_ns0 - (int64_t)((double)(rt_tsc0 - tsc) * 1e9 / (double)hz);
	return rt_ns0 + (int64_t)((double)(tsc - rt_tsc0) * 1e9 / (double)hz);
}

void
perf_cluster_clock_sample(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	rt_tsc0 = rdx_tsc();
	rt_ns0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* MPI_Op: inout[k] += in[k] (histograms, as bytes). */
static void
hist_merge_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const struct rdx_hist *src = in;
	struct rdx_hist *dst = inout;
	int k;

	(void)dt;
	for (k = 0; k < *len; k++)
		rdx_hist_merge(&dst[k], &src[k]);
}

/* Hosts with other TSC frequencies: the histogram in ns, each bucket's
 * count moved to the bucket of its midpoint (within a bucket's width,
 * 1/128 of the value); count, min, max and moments carried exactly. */
void
perf_cluster_hist_to_ns(struct rdx_hist *dst, const struct rdx_hist *src, uint64_t hz)
{
	const double k = 1e9 / (double)hz;
	double d;
	unsigned int b;

	rdx_hist_init(dst);
	if (src->count == 0)
		return;
	for (b = 0; b < RDX_HIST_BUCKETS; b++) {
		uint64_t v = b;

		if (src->buckets[b] == 0)
			continue;
		if (b >= 2 * RDX_HIST_SUB_COUNT) {
			unsigned int sh = b / RDX_HIST_SUB_COUNT - 1;
			uint64_t m = b - sh * RDX_HIST_SUB_COUNT;

			v = (m << sh) + ((1ull << sh) >> 1);
		}
		v = (uint64_t)((double)v * k);
		if (v >> RDX_HIST_MAX_BITS)
			dst->overflow += src->buckets[b];
		else
			dst->buckets[rdx_hist_bucket_index(v)] += src->buckets[b];
	}
	dst->count = src->count;
	dst->overflow += src->overflow;
	dst->min = (uint64_t)((double)src->min * k);
	dst->max = (uint64_t)((double)src->max * k);
	dst->shift = (uint64_t)((double)src->shift * k);
	/* k x - shift' = k (x - shift) + d */
	d = (double)src->shift * k - (double)dst->shift;
	dst->sum = k * src->sum + (double)src->count * d;
	dst->sum_sq = k * k * src->sum_sq + 2 * k * d * src->sum + (double)src->count * d * d;
}

int
perf_cluster_init(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	const struct perf_opts *o = &a->o;
	unsigned int hosts = 0;
	int r, q;

	MPI_Type_contiguous((int)sizeof(struct rdx_hist), MPI_BYTE, &mp->hist_type);
	MPI_Type_commit(&mp->hist_type);
	MPI_Op_create(hist_merge_op, 1, &mp->hist_op);
	if (mp->rank != 0 || a->rep == NULL)
		return 0;
	for (r = 0; r < mp->size; r++) {
		for (q = 0; q < r; q++)
			if (strcmp(mp->hosts[q], mp->hosts[r]) == 0)
				break;
		hosts += q == r;
	}
	/* rank 0 speaks for the cluster: its own role knobs do not apply */
	rdx_report_knob_set(a->rep, "role", "cluster");
	rdx_report_knob_set(a->rep, "lat_kind", "%s",
			    o->mode == PERF_MODE_BW &&
			    perf_engine_loop(a->eng, o->mode) == PERF_LOOP_STREAM ? "completion" :
			    o->mode == PERF_MODE_LAT && a->eng->lat_kind == PERF_LAT_HALF_RTT ?
			    "half-rtt" : "rtt");
	rdx_report_knob_set(a->rep, "pattern", "%s", perf_pattern_name(mp->m.pattern));
	rdx_report_knob_set(a->rep, "ranks", "%d", mp->size);
	rdx_report_knob_set(a->rep, "hosts", "%u", hosts);
	rdx_report_knob_set(a->rep, "qps_per_client_rank", "%u", mp->t);
	rdx_report_knob_set(a->rep, "bootstrap", "mpi");
	rdx_report_knob_set(a->rep, "hist_merge", "%s", mp->same_hz ?
			    "exact (bucket counts, one TSC frequency)" :
			    "ns buckets (TSC frequencies differ between hosts)");
	if (mp->m.flows != PERF_FLOWS_OFF)
		rdx_report_knob_set(a->rep, "flows_start", "%s",
				    mp->m.flows == PERF_FLOWS_TOGETHER ? "together" : "staggered");
	if (mp->m.flows == PERF_FLOWS_STAGGERED)
		rdx_report_knob_set(a->rep, "stagger_ms", "%u", mp->m.stagger_ms);
	return 0;
}

static void
row_fill(const struct perf_app *a, struct rdx_result *x)
{
	const struct perf_opts *o = &a->o;
	char sz[16];

	memset(x, 0, sizeof(*x));
	snprintf(x->test, sizeof(x->test), "%s", o->test);
	snprintf(x->mode, sizeof(x->mode), "%s", o->mode == PERF_MODE_LAT ? "lat" : "bw");
	snprintf(x->lat_kind, sizeof(x->lat_kind), "%s", rdx_report_knob_get(a->rep, "lat_kind"));
	perf_size_name(a->run.size, sz, sizeof(sz));
	snprintf(x->name, sizeof(x->name), "%s%s", o->test, sz);
	if (a->eng->desc != NULL)
		a->eng->desc(a, sz, x->desc, sizeof(x->desc));
	else
		snprintf(x->desc, sizeof(x->desc), "%s %sB%s", rdx_op_name(a->eng->op), sz,
			 o->mode == PERF_MODE_LAT ? "" : " stream");
	x->size = a->run.size;
	x->has_rank = true;
	x->cut_short = a->run_cut;
}

/* --flows-start: rdx-flows' method over the ranks' logs (flow = rank). */
struct flow_span {
	int64_t first;            /* earliest post, ns */
	int64_t last;             /* latest completion, ns */
	uint64_t ops;
	uint32_t has;
	uint32_t full;            /* a per-WR log of the rank filled: its end is
				   * the log's, not the flow's */
};
struct flow_cut {
	uint64_t ops_at;          /* completed by T1 */
	uint64_t bytes_in;        /* completed in (T0, T1] */
};

static int
flows_run(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	struct flow_span me = { INT64_MAX, INT64_MIN, 0, 0, 0 }, *all;
	struct flow_cut cut = { 0, 0 }, *cuts = NULL;
	int64_t t0 = INT64_MIN, t1 = INT64_MAX;
	int r, first = -1, n = 0;
	unsigned int l;
	uint64_t i;
	double sum = 0, sq = 0;

	all = calloc((size_t)mp->size, sizeof(*all));
	if (mp->rank == 0)
		cuts = calloc((size_t)mp->size, sizeof(*cuts));
	if (all == NULL || (mp->rank == 0 && cuts == NULL))
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (l = 0; l < a->nb_lcores && a->client; l++) {
		const struct perf_lcore *lc = &a->lcores[l];

		me.full |= lc->log_full;
		for (i = 0; lc->log != NULL && i < lc->log_n; i++) {
			if (lc->log[i].done == 0)
				continue;
			me.first = RTE_MIN(me.first, perf_cluster_tsc_ns(lc->log[i].post));
			me.last = RTE_MAX(me.last, perf_cluster_tsc_ns(lc->log[i].done));
			me.ops++;
		}
	}
	me.has = me.ops > 0;
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	for (r = 0; r < mp->size; r++) {
		if (!all[r].has)
			continue;
		n++;
		t0 = RTE_MAX(t0, all[r].first);
		if (all[r].last < t1) {
			t1 = all[r].last;
			first = r;
		}
	}
	for (l = 0; l < a->nb_lcores && a->client && me.has; l++) {
		const struct perf_lcore *lc = &a->lcores[l];

		for (i = 0; lc->log != NULL && i < lc->log_n; i++) {
			int64_t d;

			if (lc->log[i].done == 0)
				continue;
			d = perf_cluster_tsc_ns(lc->log[i].done);
			cut.ops_at += d <= t1;
			if (d > t0 && d <= t1)
				cut.bytes_in += lc->log[i].bytes;
		}
	}
	MPI_Gather(&cut, (int)sizeof(cut), MPI_BYTE, cuts, (int)sizeof(cut), MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	if (mp->rank == 0) {
		char sz[16];

		perf_size_name(a->run.size, sz, sizeof(sz));
		if (n < 2 || t0 >= t1) {
			printf("rdx-perf: flows (%s %s): %s\n", a->o.test, sz, n < 2 ?
			       "fewer than 2 flows logged: no shares" :
			       "the flows never ran at the same time (no common interval): no shares");
		} else {
			double secs = (double)(t1 - t0) / 1e9;

			printf("rdx-perf: flows (--flows-start %s, %s %s size %s): first to finish: rank %d (%s); common interval %.3f s\n",
			       mp->m.flows == PERF_FLOWS_TOGETHER ? "together" : "staggered",
			       a->o.test, a->o.mode == PERF_MODE_LAT ? "lat" : "bw", sz, first,
			       mp->hosts[first], secs);
			printf("  %-5s %-16s %12s %12s %12s %7s\n", "rank", "host", "ops", "ops@finish",
			       "MB/s(1e6)", "share");
			for (r = 0; r < mp->size; r++)
				if (all[r].has)
					sum += (double)cuts[r].bytes_in / secs;
			for (r = 0; r < mp->size; r++) {
				double bw;

				if (!all[r].has)
					continue;
				bw = (double)cuts[r].bytes_in / secs;
				sq += bw * bw;
				printf("  %-5d %-16s %12" PRIu64 " %12" PRIu64 " %12.2f %6.1f%%\n", r,
				       mp->hosts[r], all[r].ops, cuts[r].ops_at, bw / 1e6,
				       sum > 0 ? 100 * bw / sum : 0);
			}
			printf("  Jain's fairness index over %d flows: %.4f\n", n,
			       sq > 0 ? sum * sum / ((double)n * sq) : 0);
			for (r = 0; r < mp->size; r++)
				if (all[r].has && all[r].full)
					printf("  rank %d: its per-WR log filled (%u WRs per lcore): its ops and end are the log's; %s\n",
					       r, PERF_WRLOG_CAP, r == first ?
					       "the first to finish is the first log to fill and the interval ends there (shorter -D, larger -s)" :
					       "the shares over the common interval hold");
		}
		fflush(stdout);
	}
	free(all);
	free(cuts);
	return 0;
}

/*
 * UD: this run's datagrams summed over the ranks on rank 0, each rank's
 * client ends and server ends alike (a rank of all-to-all has both), read
 * after the run (every rank is past "serve run": the server ends are
 * drained). Rank 0 prints the line of the other modes; returns a stream's
 * arrived / sent there, else 1.
 */
static double
ud_run(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	struct perf_ud_run mine, all = { 0 };

	perf_ud_counts(a, &mine);
	MPI_Reduce(&mine, &all, (int)PERF_UD_RUN_WORDS, MPI_UINT64_T, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	if (mp->rank != 0)
		return 1.0;
	return perf_report_ud_run(a, &all, perf_engine_loop(a->eng, a->o.mode) ==
				  PERF_LOOP_STREAM);
}

int
perf_cluster_run(struct perf_app *a, bool last)
{
	struct perf_mpi *mp = a->mpi;
	struct crow *mine = NULL, *rows = NULL;
	struct rdx_hist *local, *conv, *merged;
	int *counts = NULL, *displs = NULL, nmine = 0, total = 0, r;
	uint64_t hz = rdx_tsc_hz();
	double arrived = 1.0;
	unsigned int l;
	int rc = 0;

	(void)last;
	perf_cluster_clock_sample();
	local = calloc(1, sizeof(*local));
	conv = calloc(1, sizeof(*conv));
	merged = calloc(1, sizeof(*merged));
	mine = calloc(a->nb_lcores + 1, sizeof(*mine));
	counts = calloc((size_t)mp->size, sizeof(int));
	displs = calloc((size_t)mp->size, sizeof(int));
	if (local == NULL || conv == NULL || merged == NULL || mine == NULL || counts == NULL ||
	    displs == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);   /* collectives follow: no way back */
	rdx_hist_init(local);
	rdx_hist_init(merged);
	for (l = 0; l < a->nb_lcores && a->client; l++) {
		const struct perf_lcore *lc = &a->lcores[l];
		struct crow *x = &mine[nmine++];

		x->rank = mp->rank;
		x->lcore = (int32_t)lc->lcore_id;
		x->qps = lc->nb_eps;
		x->ops = lc->ops;
		x->bytes = lc->bytes;
		x->t0_ns = perf_cluster_tsc_ns(lc->t_start);
		x->t1_ns = perf_cluster_tsc_ns(lc->t_end);
		x->busy = lc->polls > 0 ? 100.0 * (double)lc->busy_polls / (double)lc->polls : -1;
		/* perftest's BW peak of the lcore, as report.c's rows */
		if (lc->peak.best_n != 0 && lc->peak.best_dt != 0)
			x->peak = (double)a->run.size * (double)lc->peak.best_n * (double)hz /
				(double)lc->peak.best_dt;
		x->has_lat = lc->hist->count > 0;
		if (x->has_lat)
			rdx_hist_summarize(lc->hist, hz, &x->lat);
		rdx_hist_merge(local, lc->hist);
	}
	if (!mp->same_hz) {
		perf_cluster_hist_to_ns(conv, local, hz);
		memcpy(local, conv, sizeof(*local));
	}
	MPI_Reduce(local, merged, 1, mp->hist_type, mp->hist_op, 0, MPI_COMM_WORLD);
	MPI_Gather(&nmine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (mp->rank == 0) {
		for (r = 0; r < mp->size; r++) {
			displs[r] = total * (int)sizeof(struct crow);
			total += counts[r];
			counts[r] *= (int)sizeof(struct crow);
		}
		rows = calloc((size_t)total + 1, sizeof(*rows));
		if (rows == NULL)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gatherv(mine, nmine * (int)sizeof(struct crow), MPI_BYTE, rows, counts, displs,
		    MPI_BYTE, 0, MPI_COMM_WORLD);
	if (a->o.transport == PERF_TRANSPORT_UD)
		arrived = ud_run(a);
	if (mp->rank == 0 && a->rep != NULL) {
		struct rdx_result x, tot;
		int64_t t0 = INT64_MAX, t1 = INT64_MIN;
		double busy = 0;
		unsigned int nbusy = 0;
		int i;

		row_fill(a, &tot);
		tot.lcore = RDX_REPORT_LCORE_TOTAL;
		tot.rank = -1;
		snprintf(tot.host, sizeof(tot.host), "cluster");
		for (i = 0; i < total; i++) {
			const struct crow *c = &rows[i];

			row_fill(a, &x);
			x.rank = c->rank;
			snprintf(x.host, sizeof(x.host), "%s", mp->hosts[c->rank]);
			x.lcore = c->lcore;
			x.qps = c->qps;
			/* a UD stream: what arrived, the cluster's ratio */
			x.ops = arrived < 1.0 ? (uint64_t)((double)c->ops * arrived) : c->ops;
			x.bytes = arrived < 1.0 ? x.ops * a->run.size : c->bytes;
			x.seconds = c->t1_ns > c->t0_ns ? (double)(c->t1_ns - c->t0_ns) / 1e9 : 0;
			x.has_lat = c->has_lat != 0;
			x.lat = c->lat;
			x.busy_pct = c->busy;
			x.peak_bytes_per_s = c->peak;
			rdx_report_add(a->rep, &x);
			/* the total's peak adds the rows' (report.c's total) */
			tot.peak_bytes_per_s += c->peak;
			tot.qps += c->qps;
			tot.ops += x.ops;
			tot.bytes += x.bytes;
			t0 = RTE_MIN(t0, c->t0_ns);
			t1 = RTE_MAX(t1, c->t1_ns);
			/* -1: a row with no polls to measure, not 0 % busy */
			if (c->busy >= 0) {
				busy += c->busy;
				nbusy++;
			}
		}
		/* the cluster's span: first start to last end (CLOCK_REALTIME) */
		tot.seconds = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
		tot.busy_pct = nbusy > 0 ? busy / nbusy : -1;
		tot.has_lat = merged->count > 0;
		if (tot.has_lat)
			rdx_hist_summarize(merged, mp->same_hz ? hz : 0, &tot.lat);
		rdx_report_add(a->rep, &tot);
		a->measured_s += tot.seconds;
		{
			char sz[16];

			perf_size_name(a->run.size, sz, sizeof(sz));
			fprintf(stderr, "rdx-perf: cluster %s %s %s size %s: %d client row(s), %" PRIu64 " ops in %.3f s, p50 %.2f us, %.3f Mop/s, %.1f MB/s (10^6 B/s)\n",
				perf_pattern_name(mp->m.pattern), a->o.test,
				a->o.mode == PERF_MODE_LAT ? "lat" : "bw", sz, total, tot.ops,
				tot.seconds, tot.has_lat ? tot.lat.p50 / 1000 : 0,
				tot.seconds > 0 ? (double)tot.ops / tot.seconds / 1e6 : 0,
				tot.seconds > 0 ? (double)tot.bytes / tot.seconds / 1e6 : 0);
		}
	}
	if (mp->m.flows != PERF_FLOWS_OFF)
		rc = flows_run(a);
	free(local);
	free(conv);
	free(merged);
	free(mine);
	free(rows);
	free(counts);
	free(displs);
	return rc;
}

int
perf_cluster_finish(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;

	if (mp->rank != 0 || a->nb_runs == 0)
		return 0;
	/* the table, the clusterperf lines, --json and --csv */
	return perf_report_finish(a);
}

void
perf_cluster_fini(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;

	if (mp->hist_op != MPI_OP_NULL)
		MPI_Op_free(&mp->hist_op);
	if (mp->hist_type != MPI_DATATYPE_NULL)
		MPI_Type_free(&mp->hist_type);
}
