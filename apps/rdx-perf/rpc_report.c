/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report of echo on lib/rpc (rpc_echo.c): every knob in force (the
 * transport, clients, servers, calls in flight, lib/rpc's slots and
 * largest message), one row per client lcore and a total per size, or with
 * --mix a total per response size and one for the whole mix; the counters
 * of every endpoint (retransmissions, grants, ...) per run on stderr, in
 * each row's description and, summed, as knobs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "rdx_hist.h"
#include "rdx_report.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "cp_print.h"
#include "rpc_perf.h"


/* the endpoint whose lib/rpc fields the report shows: the first client's,
 * else (a server rank under MPI) the first server's */
static const struct rdx_rpc_endpoint *
conf_ep(void)
{
	uint32_t n;
	struct perf_rpc_srv *sv = perf_rpc_srvs(&n);

	if (perf_rpc_nb_clis > 0 && perf_rpc_lcs[0].nb_cli > 0)
		return perf_rpc_lcs[0].cli[0].ep;
	return n > 0 ? sv[0].ep : NULL;
}

static const char *
rpc_lat_kind(const struct perf_app *a)
{
	return perf_rpc_srv_same_lcore(a) ? "rtt (one lcore)" : "rtt";
}

void
perf_rpc_row_fill(const struct perf_app *a, struct rdx_result *x, uint64_t size, bool mix,
	 const struct perf_rpc_counts *n)
{
	char sz[16];

	memset(x, 0, sizeof(*x));
	perf_size_name(size, sz, sizeof(sz));
	snprintf(x->test, sizeof(x->test), "%s", perf_rpc_test_name(&a->o));
	snprintf(x->mode, sizeof(x->mode), "%s", a->o.mode == PERF_MODE_LAT ? "lat" : "bw");
	snprintf(x->lat_kind, sizeof(x->lat_kind), "%s", rpc_lat_kind(a));
	snprintf(x->name, sizeof(x->name), "%s%s", mix ? "mix" : perf_rpc_test_name(&a->o), sz);
	if (a->o.rpc_kv != 0)
		snprintf(x->desc, sizeof(x->desc), "%s random %sB object (%uB key) | %s retx %" PRIu64 " grants %" PRIu64,
			 a->o.rpc_kv == PERF_RPC_KV_READ ? "read" : "write", sz, PERF_RPC_KV_KEY,
			 perf_transport_name(a->o.transport), n->retransmits, n->grants_sent);
	else
		snprintf(x->desc, sizeof(x->desc), "send %uB message, receive %sB message | %s retx %" PRIu64 " grants %" PRIu64,
			 PERF_ECHO_REQ, sz, perf_transport_name(a->o.transport), n->retransmits,
			 n->grants_sent);
	x->size = size;
	x->busy_pct = -1;
	x->cut_short = a->run_cut;
}

static void
row_add(struct perf_app *a, struct rdx_result *x, int lcore, uint32_t qps,
	const struct rdx_hist *h, uint64_t ops, uint64_t bytes, double secs)
{
	x->lcore = lcore;
	x->qps = qps;
	x->ops = ops;
	x->bytes = bytes;
	x->seconds = secs;
	x->has_lat = h->count > 0;
	if (x->has_lat)
		rdx_hist_summarize(h, rdx_tsc_hz(), &x->lat);
	rdx_report_add(a->rep, x);
}

/* Rows of one run: per lcore and a total (one size); per size and a
 * total (--mix). */
void
perf_rpc_report_run(struct perf_app *a, uint64_t size, const struct perf_rpc_counts *n)
{
	struct rdx_hist *m = malloc(sizeof(*m)), *all = malloc(sizeof(*all));
	uint64_t hz = rdx_tsc_hz(), t0 = UINT64_MAX, t1 = 0, ops_all = 0, bytes_all = 0;
	struct rdx_result x;
	unsigned int l, k;
	double secs;

	if (m == NULL || all == NULL)
		goto out;
	rdx_hist_init(all);
	for (l = 0; l < a->nb_lcores; l++) {
		t0 = RTE_MIN(t0, perf_rpc_lcs[l].t_start);
		t1 = RTE_MAX(t1, perf_rpc_lcs[l].t_end);
	}
	secs = t1 > t0 ? (double)(t1 - t0) / (double)hz : 0;
	a->measured_s += secs;
	for (k = 0; k < perf_rpc_run.nb; k++) {
		uint64_t ops = 0, bytes = 0;

		rdx_hist_init(m);
		for (l = 0; l < a->nb_lcores; l++) {
			struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

			if (perf_rpc_run.nb == 1) {
				perf_rpc_row_fill(a, &x, perf_rpc_run.sizes[k], false, n);
				row_add(a, &x, (int)lc->lcore_id, lc->nb_cli, lc->hist[k],
					lc->ops[k], lc->bytes[k],
					lc->t_end > lc->t_start ?
					(double)(lc->t_end - lc->t_start) / (double)hz : 0);
			}
			rdx_hist_merge(m, lc->hist[k]);
			ops += lc->ops[k];
			bytes += lc->bytes[k];
		}
		rdx_hist_merge(all, m);
		ops_all += ops;
		bytes_all += bytes;
		perf_rpc_row_fill(a, &x, perf_rpc_run.sizes[k], perf_rpc_run.nb > 1, n);
		row_add(a, &x, RDX_REPORT_LCORE_TOTAL, perf_rpc_nb_clis, m, ops, bytes, secs);
	}
	if (perf_rpc_run.nb > 1) {
		perf_rpc_row_fill(a, &x, size, true, n);
		snprintf(x.name, sizeof(x.name), "mix");
		snprintf(x.desc, sizeof(x.desc), "send %uB message, receive --mix %s | %s retx %" PRIu64 " grants %" PRIu64,
			 PERF_ECHO_REQ, rdx_report_knob_get(a->rep, "mix"),
			 perf_transport_name(a->o.transport), n->retransmits, n->grants_sent);
		row_add(a, &x, RDX_REPORT_LCORE_TOTAL, perf_rpc_nb_clis, all, ops_all, bytes_all, secs);
	}
out:
	free(m);
	free(all);
}

void
perf_rpc_counts_line(const struct perf_app *a, const char *what, const struct perf_rpc_counts *n,
	    uint64_t errors, uint64_t bad_reqs)
{
	fprintf(stderr, "rdx-perf: rpc %s %s: calls ok %" PRIu64 " failed %" PRIu64 "; retransmits %" PRIu64 ", grants sent %" PRIu64 " received %" PRIu64 ", resends %" PRIu64 "/%" PRIu64 ", busy %" PRIu64 "/%" PRIu64 ", acks %" PRIu64 ", dup dropped %" PRIu64 ", no buffer %" PRIu64 ", timeouts %" PRIu64 ", bad packets %" PRIu64 ", device errors %" PRIu64 ", bad requests %" PRIu64 "; errors %" PRIu64 "\n",
		perf_transport_name(a->o.transport), what, n->calls_ok, n->calls_err,
		n->retransmits, n->grants_sent, n->grants_rcvd, n->resends_sent, n->resends_rcvd,
		n->busy_sent, n->busy_rcvd, n->acks_sent, n->dup_dropped, n->no_buf, n->timeouts,
		n->bad_pkts, n->errors, bad_reqs, errors);
}

void
perf_rpc_counts_sum(struct perf_rpc_counts *t, const struct perf_rpc_counts *n)
{
	const uint64_t *s = (const uint64_t *)n;
	uint64_t *d = (uint64_t *)t;
	size_t i;

	for (i = 0; i < sizeof(*n) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

int
perf_rpc_report_init(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	struct rdx_report *r;
	char buf[64];
	unsigned int i;

	snprintf(buf, sizeof(buf), "rdx-perf %s %s %s", perf_rpc_test_name(o),
		 o->mode == PERF_MODE_LAT ? "lat" : "bw", perf_transport_name(o->transport));
	r = perf_report_open(a, buf, rpc_lat_kind(a), o->nb_mix > 0);
	if (r == NULL)
		return -ENOMEM;
	rdx_report_knob_set(r, "transport", "%s", perf_transport_name(o->transport));
	rdx_report_knob_set(r, "lcores", "%u", a->nb_lcores);
	rdx_report_knob_set(r, "clients_per_lcore", "%u", o->qps);
	rdx_report_knob_set(r, "servers", "%u", o->servers);
	rdx_report_knob_set(r, "concurrent_ops", "%u", o->concurrent);
	rdx_report_knob_set(r, "request_size", "%u", PERF_ECHO_REQ);
	rdx_report_knob_set(r, "rpc_slots", "%u", RTE_MAX(o->concurrent, 8u));
	rdx_report_knob_set(r, "rpc_max_msg", "%u", (uint32_t)RTE_MAX(perf_rpc_max_size(o),
				    (uint64_t)RDX_RPC_DEFAULT_MAX_MSG));
	/* lib/rpc's fields in force (defaults resolved), in --rpc's order */
	{
		struct rdx_rpc_conf c;
		bool have = conf_ep() != NULL && rdx_rpc_endpoint_conf_get(conf_ep(), &c) == 0;
		const uint32_t got[PERF_RPC_KNOBS] = {
			have ? c.rto_us : 0, have ? c.call_timeout_us : 0, have ? c.window : 0,
			have ? c.rtt_bytes : 0, have ? c.overcommit : 0, have ? c.mtu : 0,
			have ? c.queue_depth : 0, have ? c.msg_bufs : 0, have ? c.sig_interval : 0,
		};

		for (i = 0; i < PERF_RPC_KNOBS; i++) {
			uint32_t v;
			const char *name = perf_rpc_knob(o, i, &v);
			char key[40];

			snprintf(key, sizeof(key), "rpc_%s", name);
			if (have)
				rdx_report_knob_set(r, key, "%u%s", got[i], v != 0 ? "" : " (default)");
			else
				rdx_report_knob_set(r, key, v != 0 ? "%u" : "default", v);
		}
	}
	if (o->rpc_kv != 0) {
		rdx_report_knob_set(r, "kv_key_len", "%u", PERF_RPC_KV_KEY);
		rdx_report_knob_set(r, "kv_server_mem", "%s", o->mem == RDX_MEM_HUGE ? "huge" : "host");
	}
	rdx_report_knob_set(r, "verify", "%s", o->verify ? "on" : "off");
	perf_report_dev_knobs(a);
	rdx_report_knob_set(r, "role", "%s", o->connect != NULL ? "client" : "loopback");
	if (o->connect != NULL)
		rdx_report_knob_set(r, "peer", "%s", o->connect);
	else
		rdx_report_knob_set(r, "server_lcore", "%s",
				    perf_rpc_srv_same_lcore(a) ? "same" : "main");
	if (o->label[0] != '\0')
		rdx_report_knob_set(r, "label", "%s", o->label);
	rdx_report_knob_set(r, "tsc_hz", "%" PRIu64, rdx_tsc_hz());
	return 0;
}

/* The knobs of clusterperf's optimisation list in force, on one "#"
 * line: the servers' table memory (basic.*), the UD transports' MTU and
 * signalling interval (lib/rpc's values, defaults resolved). */
static void
cp_knobs(const struct perf_app *a, FILE *f)
{
	struct rdx_rpc_conf c;
	char buf[256];
	int n = 0;

	buf[0] = '\0';
	if (rdx_report_knob_get(a->rep, "client_ranks") != NULL)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", mpirun: %s server rank(s), %s client rank(s), %s clients",
			      rdx_report_knob_get(a->rep, "server_ranks"),
			      rdx_report_knob_get(a->rep, "client_ranks"),
			      rdx_report_knob_get(a->rep, "clients"));
	if (a->o.rpc_kv != 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", server memory %s",
			      a->o.mem == RDX_MEM_HUGE ? "huge" : "host");
	if (a->o.transport != PERF_TRANSPORT_INFRC && conf_ep() != NULL &&
	    rdx_rpc_endpoint_conf_get(conf_ep(), &c) == 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", mtu %u, signal %u%s",
			      c.mtu, c.sig_interval, c.sig_interval == 1 ? " (every packet)" : "");
	if (n > 2)
		fprintf(f, "# %s\n", buf + 2);
}

/*
 * The clusterperf report: a section headed by the transport's name, a
 * "concurrentOps N servers S" line when either is not 1, a "#" line of the
 * knobs the optimisation list varies (cp_knobs), then per size (total rows, --mix
 * classes excluded) the lines of cp_row; the status lines end it.
 */
int
perf_rpc_print_clusterperf(const struct perf_app *a, FILE *f)
{
	const struct perf_opts *o = &a->o;
	fprintf(f, "%s\n", perf_transport_name(o->transport));
	/* clusterperf has no mixed workload: rdx's lines, per size and mix */
	if (o->nb_mix > 0)
		return rdx_report_print_clusterperf(a->rep, f);
	if (o->concurrent != 1 || o->servers != 1)
		fprintf(f, "concurrentOps %u servers %u\n", o->concurrent, o->servers);
	cp_knobs(a, f);
	return perf_cp_print_rows(a->rep, perf_rpc_test_name(o), f);
}

int
perf_rpc_report_finish(struct perf_app *a, const struct perf_rpc_counts *t)
{
	const struct perf_opts *o = &a->o;

	rdx_report_knob_set(a->rep, "rpc_retransmits", "%" PRIu64, t->retransmits);
	rdx_report_knob_set(a->rep, "rpc_grants_sent", "%" PRIu64, t->grants_sent);
	rdx_report_knob_set(a->rep, "rpc_resends_sent", "%" PRIu64, t->resends_sent);
	rdx_report_knob_set(a->rep, "rpc_busy_sent", "%" PRIu64, t->busy_sent);
	rdx_report_knob_set(a->rep, "rpc_timeouts", "%" PRIu64, t->timeouts);
	rdx_report_knob_set(a->rep, "rpc_calls_failed", "%" PRIu64, t->calls_err);
	if (a->attr->software) {
		struct rdx_dev_xstat xs[128];
		int nx = rdx_dev_xstats_get(a->dev, xs, RTE_DIM(xs)), i;

		/* the software device's UD counters: what it dropped, and why */
		for (i = 0; i < nx && i < (int)RTE_DIM(xs); i++)
			if (strncmp(xs[i].name, "sw_ud_", 6) == 0)
				rdx_report_knob_set(a->rep, xs[i].name, "%" PRIu64, xs[i].value);
	}
	rdx_report_print_table(a->rep, stdout, o->gbits);
	printf("\n");
	perf_rpc_print_clusterperf(a, stdout);
	fflush(stdout);
	return perf_report_files(a);
}

