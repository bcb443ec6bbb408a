/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf reports: every knob in force, one row per lcore and a total per
 * run, a progress line per run on stderr, the table and clusterperf lines on
 * stdout, JSON/CSV files, and the per-WR log (-o).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "rdx_report.h"
#include "rdx_runtime.h"

#include "cp_print.h"
#include "perf_app.h"
#include "perf_mpi.h"
#include "perf_opts.h"
#include "perf_wire.h"

static const char *
mode_name(enum perf_mode m)
{
	return m == PERF_MODE_LAT ? "lat" : "bw";
}

/* The latency is halved (ping-pong, as perftest's ib_write_lat). */
static bool
lat_halved(const struct perf_app *a)
{
	return a->o.mode == PERF_MODE_LAT && a->eng->lat_kind == PERF_LAT_HALF_RTT &&
	       a->o.rate == 0 && a->o.nb_rates == 0;
}

/*
 * What a latency figure measures. Loopback with both ends on one lcore
 * (loopback_lcores same): that lcore runs the client, the server end and,
 * on the software device's inline progress, the model too, so a ping-pong
 * "half RTT" is half of one single-core loop, not one side's half of a
 * round trip between two processors as perftest's ib_write_lat measures.
 */
static const char *
lat_kind(const struct perf_app *a)
{
	bool one_lcore = a->client && a->responder && !a->o.split;

	/* the stream loop times an op from its post to its completion */
	if (a->o.mode == PERF_MODE_BW && perf_engine_loop(a->eng, a->o.mode) == PERF_LOOP_STREAM)
		return "completion";
	if (lat_halved(a))
		return one_lcore ? "loop-rtt/2 (one lcore)" : "half-rtt";
	return one_lcore ? "rtt (one lcore)" : "rtt";
}

struct rdx_report *
perf_report_open(struct perf_app *a, const char *title, const char *kind, bool mix)
{
	const struct perf_opts *o = &a->o;
	struct rdx_report *r = rdx_report_create(title);
	char buf[PERF_MAX_SIZES * 16] = "", one[16];
	unsigned int i;
	size_t len = 0;

	if (r == NULL) {
		fprintf(stderr, "rdx-perf: cannot create the report\n");
		return NULL;
	}
	a->rep = r;
	rdx_report_knob_set(r, "test", "%s", o->test);
	rdx_report_knob_set(r, "mode", "%s", mode_name(o->mode));
	rdx_report_knob_set(r, "lat_kind", "%s", kind);
	if (mix) {
		for (i = 0; i < o->nb_mix; i++) {
			perf_size_name(o->mix_size[i], one, sizeof(one));
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s:%u", i ? "," : "",
						one, o->mix_weight[i]);
		}
		rdx_report_knob_set(r, "mix", "%s", buf);
		rdx_report_knob_set(r, "mix_seed", "client id");
	} else {
		for (i = 0; i < o->nb_sizes; i++) {
			perf_size_name(o->sizes[i], one, sizeof(one));
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "", one);
		}
		rdx_report_knob_set(r, "sizes", "%s", buf);
	}
	if (o->duration != 0)
		rdx_report_knob_set(r, "duration_s", "%g", o->duration);
	else
		rdx_report_knob_set(r, "iterations", "%" PRIu64, o->iters);
	if (o->warmup_s != 0)
		rdx_report_knob_set(r, "warmup", "%gs", o->warmup_s);
	else
		rdx_report_knob_set(r, "warmup", "%" PRIu64, o->warmup_iters);
	return r;
}

/* The software device's progress mode by its devargs name. */
const char *
perf_sw_progress_name(enum rdx_sw_progress p)
{
	return p == RDX_SW_PROGRESS_THREAD ? "thread" : p == RDX_SW_PROGRESS_POLL ? "poll" : "inline";
}

void
perf_report_dev_knobs(const struct perf_app *a)
{
	const struct rdx_dev_attr *at = a->attr;

	rdx_report_knob_set(a->rep, "dev", "%s", at->name);
	rdx_report_knob_set(a->rep, "driver", "%s", at->driver);
	rdx_report_knob_set(a->rep, "device_kind", "%s", perf_dev_kind_json(perf_dev_kind(at)));
	if (at->software)
		rdx_report_knob_set(a->rep, "sw_progress", "%s", perf_sw_progress_name(a->o.sw_progress));
	if (at->model[0] != '\0')
		rdx_report_knob_set(a->rep, "device_model", "%s", at->model);
}

int
perf_report_files(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	int rc = 0;

	int wrc;

	if (o->json != NULL && (wrc = rdx_report_write_json(a->rep, o->json)) < 0) {
		fprintf(stderr, "rdx-perf: cannot write %s: %s\n", o->json, strerror(-wrc));
		rc = -EIO;
	}
	if (o->csv != NULL && (wrc = rdx_report_write_csv(a->rep, o->csv)) < 0) {
		fprintf(stderr, "rdx-perf: cannot write %s: %s\n", o->csv, strerror(-wrc));
		rc = -EIO;
	}
	rdx_report_free(a->rep);
	a->rep = NULL;
	return rc;
}

int
perf_report_init(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	const struct rdx_dev_attr *at = a->attr;
	struct rdx_report *r;
	char title[64];

	snprintf(title, sizeof(title), "rdx-perf %s %s", o->test, mode_name(o->mode));
	r = perf_report_open(a, title, lat_kind(a), false);
	if (r == NULL)
		return -ENOMEM;
	rdx_report_knob_set(r, "qps_per_lcore", "%u", o->sweep_lo);
	if (o->sweep_hi != o->sweep_lo && o->sweep_factor != 0)
		rdx_report_knob_set(r, "qp_sweep", "%u-%u*%u", o->sweep_lo, o->sweep_hi,
				    o->sweep_factor);
	else if (o->sweep_hi != o->sweep_lo)
		rdx_report_knob_set(r, "qp_sweep", "%u-%u", o->sweep_lo, o->sweep_hi);
	rdx_report_knob_set(r, "lcores", "%u", a->nb_lcores);
	/* the other sweeps, as the options gave them (the rows carry each step) */
	if (o->lsweep_lo != 0)
		rdx_report_knob_set(r, "lcore_sweep", "%u-%u%s%.0u", o->lsweep_lo, o->lsweep_hi,
				    o->lsweep_factor != 0 ? "*" : "", o->lsweep_factor);
	if (o->tsweep_lo != 0)
		rdx_report_knob_set(r, "tx_depth_sweep", "%u-%u%s%.0u", o->tsweep_lo, o->tsweep_hi,
				    o->tsweep_factor != 0 ? "*" : "", o->tsweep_factor);
	rdx_report_knob_set(r, "window", "%u", a->window);
	rdx_report_knob_set(r, "post_list", "%u", o->post_list);
	rdx_report_knob_set(r, "inline", "%u", o->inline_max);
	rdx_report_knob_set(r, "sig_every", "%u", o->sig_every);
	rdx_report_knob_set(r, "events", "%s", o->events ? "on" : "off");
	if (o->mtu != 0)
		rdx_report_knob_set(r, "mtu", "%u", o->mtu);
	else
		rdx_report_knob_set(r, "mtu", "port");
	rdx_report_knob_set(r, "rx_depth", "%u", o->rx_depth);
	rdx_report_knob_set(r, "sq_depth", "%u", a->sq_depth);
	rdx_report_knob_set(r, "mem", "%s", rdx_mem_type_name(o->mem));
	rdx_report_knob_set(r, "verify", "%s", o->verify ? "on" : "off");
	rdx_report_knob_set(r, "transport", "%s", o->transport == PERF_TRANSPORT_UD ? "ud" : "rc");
	if (o->transport == PERF_TRANSPORT_UD) {
		rdx_report_knob_set(r, "ud_qkey", "0x%08x", PERF_UD_QKEY);
		rdx_report_knob_set(r, "ud_timeout_ms", "%u", PERF_UD_TIMEOUT_MS);
	}
	perf_report_dev_knobs(a);
	rdx_report_knob_set(r, "role", "%s", o->loopback || (a->client && a->responder) ?
			    "loopback" : a->client ? "client" : "server");
	if (o->connect != NULL)
		rdx_report_knob_set(r, "peer", "%s", o->connect);
	/* how the server process waits during a run (boot.c: it sleeps on the
	 * bootstrap socket when the test leaves it nothing to poll) */
	if (!a->responder || !a->client)
		rdx_report_knob_set(r, "server_wait", "%s",
				    perf_server_waits_on_socket(a) ? "socket" : "poll");
	if (a->client && a->responder)
		rdx_report_knob_set(r, "loopback_lcores", "%s", o->split ? "split" : "same");
	rdx_report_knob_set(r, "bootstrap_timeout_s", "%g", o->boot_timeout);
	if (o->label[0] != '\0')
		rdx_report_knob_set(r, "label", "%s", o->label);
	if (a->eng->report_knobs != NULL)
		a->eng->report_knobs(a, r);
	if (a->eng->atomic || o->keys > 1 || o->key_stride != 0) {
		rdx_report_knob_set(r, "keys", "%u", o->keys);
		/* 0 on write/read: each run's message size */
		rdx_report_knob_set(r, "key_stride", "%" PRIu64,
				    a->eng->atomic ? perf_key_stride(o, 8) : (uint64_t)o->key_stride);
	}
	if (o->rate != 0)
		rdx_report_knob_set(r, "rate_ops_per_s", "%.0f", o->rate);
	if (o->nb_rates != 0)
		rdx_report_knob_set(r, "rate_sweep", "%u rates, %.0f..%.0f ops/s", o->nb_rates,
				    o->rates[0], o->rates[o->nb_rates - 1]);
	if (o->rate != 0 || o->nb_rates != 0)
		rdx_report_knob_set(r, "rate_split", "total of the client, even over its QPs");
	if (o->ib_port != 0)
		rdx_report_knob_set(r, "ib_port", "%u", o->ib_port);
	if (o->gid_index >= 0)
		rdx_report_knob_set(r, "gid_index", "%d%s", o->gid_index,
				    at->software ? " (the software device has no GID table: unused)" : "");
	if (o->cpu_freq_ok)
		rdx_report_knob_set(r, "cpu_freq", "-F given (rdx-perf times with the TSC: no frequency check to skip)");
	if (perf_bidir_procs(a)) {
		rdx_report_knob_set(r, "bidirectional", "on (both processes post)");
		if (a->client)
			rdx_report_knob_set(r, "bidir_rows", "rank 0 client (this process), rank 1 server (its ENDACK), rank -1 their sum: seconds = bytes / (client B/s + server B/s)");
		else
			rdx_report_knob_set(r, "bidir_rows", "rank 1 server (this process); the client prints both and the sum");
	} else if (o->bidir) {
		rdx_report_knob_set(r, "bidirectional", "on (both ends of each QP pair post, one process)");
	}
	if (o->rdma_cm)
		rdx_report_knob_set(r, "rdma_cm", "-R: QPs connected through rdma_cm%s%s",
				    o->source_ip != NULL ? ", --source_ip " : "",
				    o->source_ip != NULL ? o->source_ip : "");
	if (o->infinite)
		rdx_report_knob_set(r, "run_infinitely", "a row every %g s", o->duration);
	rdx_report_knob_set(r, "tsc_hz", "%" PRIu64, rdx_tsc_hz());
	rdx_report_knob_set(r, "tsc_cost_cycles", "%.1f", rdx_tsc_cost_cycles());
	return 0;
}

static void
row_common(const struct perf_app *a, struct rdx_result *x)
{
	char sz[16];

	memset(x, 0, sizeof(*x));
	snprintf(x->test, sizeof(x->test), "%s", a->o.test);
	snprintf(x->mode, sizeof(x->mode), "%s", mode_name(a->o.mode));
	snprintf(x->lat_kind, sizeof(x->lat_kind), "%s", lat_kind(a));
	perf_size_name(a->run.size, sz, sizeof(sz));
	snprintf(x->name, sizeof(x->name), "%s%s", a->o.test, sz);
	if (a->eng->desc != NULL)
		a->eng->desc(a, sz, x->desc, sizeof(x->desc));
	else
		snprintf(x->desc, sizeof(x->desc), "%s %sB%s", rdx_op_name(a->eng->op), sz,
			 a->o.mode == PERF_MODE_LAT ? "" : " stream");
	x->size = a->run.size;
	x->offered_ops_per_s = a->run.offered;
	if (a->o.transport == PERF_TRANSPORT_UD) {
		/* UD rows: datagrams sent and arrived, both directions summed */
		size_t l = strlen(x->desc);

		snprintf(x->desc + l, sizeof(x->desc) - l, " | UD %" PRIu64 " sent %" PRIu64 " arrived %" PRIu64 " resent",
			 a->ud_fwd_tx + a->ud_back_tx, a->ud_fwd_rx + a->ud_back_rx, a->ud_resent);
	}
}

double
perf_report_ud_run(struct perf_app *a, const struct perf_ud_run *u, bool stale)
{
	const bool stream = perf_engine_loop(a->eng, a->o.mode) == PERF_LOOP_STREAM;
	char sz[16], st[64] = "";

	a->ud_fwd_tx = u->cli_tx;
	a->ud_back_rx = u->cli_rx;
	a->ud_back_tx = u->srv_tx;
	a->ud_fwd_rx = u->srv_rx;
	a->ud_resent = u->resent;
	a->ud_tot_tx += a->ud_fwd_tx + a->ud_back_tx;
	a->ud_tot_rx += a->ud_fwd_rx + a->ud_back_rx;
	a->ud_tot_resent += a->ud_resent;
	perf_size_name(a->run.size, sz, sizeof(sz));
	if (stale)
		snprintf(st, sizeof(st), "; %" PRIu64 " stale (of earlier runs, late)", u->stale);
	fprintf(stderr, "rdx-perf: UD %s %s size %s: client->server %" PRIu64 " datagrams sent, %" PRIu64 " arrived; server->client %" PRIu64 " sent, %" PRIu64 " arrived; %" PRIu64 " request(s) sent again after %u ms%s\n",
		a->o.test, mode_name(a->o.mode), sz, a->ud_fwd_tx, a->ud_fwd_rx,
		a->ud_back_tx, a->ud_back_rx, a->ud_resent, PERF_UD_TIMEOUT_MS, st);
	/* a stream counts what arrived: the measured ops x arrived/sent */
	if (stream && a->ud_fwd_tx > 0 && a->ud_fwd_rx < a->ud_fwd_tx)
		return (double)a->ud_fwd_rx / (double)a->ud_fwd_tx;
	return 1.0;
}

/* UD: this run's datagrams (the server's come with ENDACK in two processes). */
static double
ud_run_counts(struct perf_app *a)
{
	struct perf_ud_run u;

	perf_ud_counts(a, &u);
	if (a->conn != NULL) {
		u.srv_tx = a->ud_back_tx;
		u.srv_rx = a->ud_fwd_rx;
	}
	/* a stream's stale count when the server ends are ours */
	return perf_report_ud_run(a, &u, a->conn == NULL &&
				  perf_engine_loop(a->eng, a->o.mode) == PERF_LOOP_STREAM);
}

/* The compact table's kind: perftest's latency columns for lat mode and
 * for open-loop runs (their point is the latency), else bandwidth. */
static enum rdx_report_compact_kind
compact_kind(const struct perf_app *a)
{
	return a->o.mode == PERF_MODE_LAT || a->o.rate != 0 || a->o.nb_rates != 0 ?
		RDX_REPORT_COMPACT_LAT : RDX_REPORT_COMPACT_BW;
}

/* --output=bandwidth|latency|message_rate: that one figure of a total row,
 * in the compact table's unit (MiB/s or Gb/s, usec, Mpps), with six
 * decimals as perftest prints it (printf "%lf": print_report_bw/_lat);
 * the latency is the mean (t_avg), as perftest's. */
static void
output_figure(const struct perf_app *a, const struct rdx_result *x)
{
	double bw = x->seconds > 0 ? (double)x->bytes / x->seconds : 0;

	switch (a->o.output) {
	case PERF_OUTPUT_BW:
		printf("%.6f\n", a->o.gbits ? bw * 8 / 1e9 : bw / (1024.0 * 1024.0));
		break;
	case PERF_OUTPUT_LAT:
		printf("%.6f\n", x->has_lat ? x->lat.mean / 1e3 : 0.0);
		break;
	case PERF_OUTPUT_MSG_RATE:
		printf("%.6f\n", x->mops);
		break;
	default:
		break;
	}
}

/*
 * Above the compact table: what ran, with the settings a perftest user
 * compares (perftest prints them in its header), and the defaults of ours
 * that differ from perftest's when the user did not choose them. With
 * --output the figure alone goes to stdout: the device kind goes to stderr.
 */
static void
perf_report_head(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	char diff[256] = "", mtu[16] = "port", len[48], qps[48], lcores[48], tx[48];
	enum perf_dev_kind kind = perf_dev_kind(a->attr);
	size_t n = 0;

	/* once: before the first run (perf_report_head_first), else here */
	if (a->head_printed)
		return;
	a->head_printed = true;
	perf_perftest_head(a);

	if (o->output != PERF_OUTPUT_TABLE) {
		if (a->attr->software)
			fprintf(stderr, "rdx-perf: figures from the SOFTWARE mlx5 device (a model, not a NIC): %s%s%s\n",
				a->attr->name, a->attr->model[0] != '\0' ? ", " : "", a->attr->model);
		return;
	}
	/* --qp-sweep: the QPs per lcore of the sweep, as the option gave them */
	if (o->sweep_hi != o->sweep_lo && o->sweep_factor != 0)
		snprintf(qps, sizeof(qps), "%u-%u*%u (--qp-sweep)", o->sweep_lo, o->sweep_hi, o->sweep_factor);
	else if (o->sweep_hi != o->sweep_lo)
		snprintf(qps, sizeof(qps), "%u-%u (--qp-sweep)", o->sweep_lo, o->sweep_hi);
	else
		snprintf(qps, sizeof(qps), "%u", o->sweep_lo);
	/* --lcore-sweep: the worker lcores of the steps */
	if (o->lsweep_lo != 0)
		snprintf(lcores, sizeof(lcores), "%u-%u%s%.0u (--lcore-sweep)", o->lsweep_lo, o->lsweep_hi,
			 o->lsweep_factor != 0 ? "*" : "", o->lsweep_factor);
	else
		snprintf(lcores, sizeof(lcores), "%u", a->nb_lcores);
	printf(" rdx-perf %s %s | %s | dev %s (%s%s%s%s%s, driver %s) | %s lcore(s) x %s QP(s)%s | transport %s\n",
	       o->test, mode_name(o->mode), rdx_op_name(a->eng->op), a->attr->name,
	       kind == PERF_DEV_KIND_MODEL ? "software device, " : perf_dev_kind_label(kind),
	       a->attr->model, a->attr->model[0] != '\0' ? ", " : "",
	       kind == PERF_DEV_KIND_MODEL ? "progress " : "",
	       kind == PERF_DEV_KIND_MODEL ? perf_sw_progress_name(o->sw_progress) : "", a->attr->driver,
	       lcores, qps, perf_bidir_procs(a) ? ", both processes posting (-b)" :
	       o->bidir ? ", both ends posting (-b)" : "",
	       o->transport == PERF_TRANSPORT_UD ? "UD" : "RC");
	if (o->mtu != 0)
		snprintf(mtu, sizeof(mtu), "%u", o->mtu);
	if (o->duration != 0)
		snprintf(len, sizeof(len), "-D %g s", o->duration);
	else
		snprintf(len, sizeof(len), "-n %" PRIu64 " per QP", o->iters);
	if (o->tsweep_lo != 0)
		snprintf(tx, sizeof(tx), "%u-%u%s%.0u (--tx-depth-sweep)", o->tsweep_lo, o->tsweep_hi,
			 o->tsweep_factor != 0 ? "*" : "", o->tsweep_factor);
	else
		snprintf(tx, sizeof(tx), "%u", a->window);
	printf(" -t %s -Q %u -l %u -I %u -m %s | %s | latency: %s\n", tx, o->sig_every,
	       o->post_list, o->inline_max, mtu, len, rdx_report_lat_label(lat_kind(a)));
	/* echo (a request size of its own) and atomics have no such perftest default */
	const bool like = a->eng->req_size == 0;

	if (like && o->mode == PERF_MODE_BW && o->default_window && a->window != 128)
		n += (size_t)snprintf(diff + n, sizeof(diff) - n, " -t %u (perftest 128)", a->window);
	if (o->rate != 0 || o->nb_rates != 0)
		printf(" open loop: --rate is the total of the process, even over its QPs; latency from each op's intended send time\n");
	if (like && o->mode == PERF_MODE_BW && o->default_sig && o->sig_every != 100 && n < sizeof(diff) &&
	    o->rate == 0 && o->nb_rates == 0)
		n += (size_t)snprintf(diff + n, sizeof(diff) - n, "%s -Q %u (perftest 100)",
				      n ? "," : "", o->sig_every);
	if (like && !a->eng->atomic && o->mode == PERF_MODE_LAT && o->default_size && o->sizes[0] != 2 &&
	    n < sizeof(diff))
		snprintf(diff + n, sizeof(diff) - n, "%s -s %" PRIu64 " (perftest 2)", n ? "," : "",
			 o->sizes[0]);
	if (diff[0] != '\0')
		printf(" defaults that differ from perftest's:%s\n", diff);
}

/* The compact table printed row by row as the runs end: the client's
 * table of one process (-b across processes and MPI ranks print theirs
 * at the end, --run_infinitely its own way). */
static bool
compact_streamed(const struct perf_app *a)
{
	return a->o.output == PERF_OUTPUT_TABLE && !a->o.infinite && a->mpi == NULL &&
	       a->client && !perf_bidir_procs(a);
}

/* The parameter block before the first run, as perftest prints its own
 * before the first result: a long run (-D 60) or one interrupted by
 * Ctrl-C has it on stdout at once. */
void
perf_report_head_first(struct perf_app *a)
{
	perf_report_head(a);
	fflush(stdout);
	fflush(stderr);
}



/* One row per lcore and a total; the progress line for this run. */
void
perf_report_run(struct perf_app *a, bool last)
{
	struct rdx_result x, tot;
	struct rdx_hist *merged;
	struct perf_rdx_sum { uint64_t t0, t1; } span = { UINT64_MAX, 0 };
	double arrived = 1.0;
	uint64_t hz = rdx_tsc_hz();
	unsigned int l, perf_rows = 0;
	double busy_sum = 0;
	int added;

	merged = malloc(sizeof(*merged));
	if (merged == NULL)
		return;
	if (!a->o.infinite)
		perf_dev_model_row(a, a->run.size, a->run.qps * a->nb_lcores);
	if (a->o.transport == PERF_TRANSPORT_UD)
		arrived = ud_run_counts(a);
	rdx_hist_init(merged);
	row_common(a, &tot);
	tot.lcore = RDX_REPORT_LCORE_TOTAL;
	tot.has_perf = false;
	tot.cut_short = a->run_cut;
	/* --tx-depth-sweep: the step's ops in flight per QP on every row */
	tot.tx_depth = a->tx_step != 0 ? a->run.window : 0;
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_lcore *lc = &a->lcores[l];

		row_common(a, &x);
		x.tx_depth = tot.tx_depth;
		x.lcore = (int)lc->lcore_id;
		x.qps = lc->nb_eps;
		x.ops = arrived < 1.0 ? (uint64_t)((double)lc->ops * arrived) : lc->ops;
		x.bytes = arrived < 1.0 ? x.ops * a->run.size : lc->bytes;
		x.seconds = lc->t_end > lc->t_start ?
			(double)(lc->t_end - lc->t_start) / (double)hz : 0;
		x.has_lat = lc->hist->count > 0;
		if (x.has_lat)
			rdx_hist_summarize(lc->hist, hz, &x.lat);
		if (perf_bidir_procs(a))
			perf_bidir_side(&x, a->client ? 0 : 1);
		x.busy_pct = lc->polls > 0 ? 100.0 * (double)lc->busy_polls / (double)lc->polls : -1;
		/* perftest's BW peak (struct perf_peak); the total adds the lcores' */
		if (lc->peak.best_n != 0 && lc->peak.best_dt != 0)
			x.peak_bytes_per_s = (double)a->run.size * (double)lc->peak.best_n *
				(double)hz / (double)lc->peak.best_dt;
		tot.peak_bytes_per_s += x.peak_bytes_per_s;
		x.cut_short = a->run_cut;
		/* cas: the swaps that took effect and those that found the key changed */
		x.has_cas = a->eng->op == RDX_OP_CAS;
		x.cas_ok = lc->cas_ok;
		x.cas_fail = lc->cas_fail;
		tot.has_cas = x.has_cas;
		tot.cas_ok += x.cas_ok;
		tot.cas_fail += x.cas_fail;
		if (lc->perf_ok && lc->ops > 0) {
			rdx_perf_per_op(&lc->ps0, &lc->ps1, lc->ops, &x.perf);
			x.has_perf = true;
			tot.perf = x.perf;
			perf_rows++;
		}
		rdx_report_add_hist(a->rep, &x, lc->hist, hz);
		rdx_hist_merge(merged, lc->hist);
		tot.qps += x.qps;
		tot.ops += x.ops;
		tot.bytes += x.bytes;
		span.t0 = RTE_MIN(span.t0, lc->t_start);
		span.t1 = RTE_MAX(span.t1, lc->t_end);
		busy_sum += x.busy_pct;
	}
	tot.seconds = span.t1 > span.t0 ? (double)(span.t1 - span.t0) / (double)hz : 0;
	tot.has_lat = merged->count > 0;
	if (tot.has_lat)
		rdx_hist_summarize(merged, hz, &tot.lat);
	tot.busy_pct = a->nb_lcores > 0 ? busy_sum / a->nb_lcores : -1;
	/* --cpu_util: the lcores' CPUs over the run (host_stats.c) */
	tot.cpu_util_pct = perf_host_cpu_util();
	tot.has_cpu_util = a->o.cpu_util;
	/* per-op counters of the total: only meaningful for one lcore */
	tot.has_perf = perf_rows == 1 && a->nb_lcores == 1;
	if (perf_bidir_procs(a))
		perf_bidir_side(&tot, a->client ? 0 : 1);
	added = rdx_report_add_hist(a->rep, &tot, merged, hz);
	free(merged);
	a->measured_s += tot.seconds;
	if (perf_bidir_procs(a) && a->client && added == 0)
		perf_bidir_rows(a, &tot);
	if (a->o.infinite && added == 0) {
		/* --run_infinitely: this interval's row now (the header once) */
		const struct rdx_result *row = rdx_report_get(a->rep, rdx_report_count(a->rep) - 1);

		if (a->nb_runs == 1) {
			perf_report_head(a);
			/* the head with --cpu_util's column (the rows have it) */
			if (a->o.output == PERF_OUTPUT_TABLE)
				perf_compact_line_with(a, NULL, compact_kind(a),
						  a->o.cpu_util ? "CPU_Util[%]" : "");
		}
		if (row != NULL && a->o.output == PERF_OUTPUT_TABLE)
			rdx_report_print_compact_row(row, stdout, compact_kind(a), a->o.gbits);
		else if (row != NULL)
			output_figure(a, row);
		fflush(stdout);
		return;
	}
	/* the table's rows as each run ends (perftest prints each size's row
	 * when it is measured); the closing lines come with the report */
	if (compact_streamed(a) && added == 0) {
		struct rdx_report_compact_state *st = &a->compact;

		if (!st->started) {
			perf_report_head(a);
			st->many_qps = a->o.sweep_hi != a->o.sweep_lo || a->o.lsweep_lo != 0;
			st->open_loop = a->o.rate != 0 || a->o.nb_rates != 0;
			st->cpu_util = a->o.cpu_util;
			st->many_tx_depth = a->o.tsweep_lo != 0;
		}
		rdx_report_print_compact_stream(a->rep, stdout, compact_kind(a), a->o.gbits, st, false);
		/* -W: the run's counter changes under its row, as perftest */
		perf_host_counters_print(stdout);
		fflush(stdout);
	}
	if (a->o.nb_sizes > 1 || a->o.sweep_hi != a->o.sweep_lo || a->o.lsweep_lo != 0 ||
	    a->o.tsweep_lo != 0 || !last) {
		char sz[16];

		perf_size_name(a->run.size, sz, sizeof(sz));
		fprintf(stderr, "rdx-perf: %s %s size %s qps %u: %" PRIu64 " ops in %.3f s, p50 %.2f us (%s), %.3f Mop/s, %.1f MB/s (10^6 B/s)%s%s\n",
			a->o.test, mode_name(a->o.mode), sz, a->run.qps * a->nb_lcores, tot.ops,
			tot.seconds, tot.has_lat ? tot.lat.p50 / 1000 : 0,
			rdx_report_lat_label(tot.lat_kind),
			tot.seconds > 0 ? (double)tot.ops / tot.seconds / 1e6 : 0,
			tot.seconds > 0 ? (double)tot.bytes / tot.seconds / 1e6 : 0,
			tot.ops > 0 && (tot.seconds < RDX_REPORT_SHORT_S || tot.ops < RDX_REPORT_SHORT_OPS) ?
			" SHORT run: figures unstable" : "",
			a->run_cut ? " CUT: the run ended before it was done" : "");
	}
}

void
perf_run_error(struct perf_app *a, const char *fmt, ...)
{
	char msg[PERF_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rdx-perf: %s\n", msg);
	/* the first error is the cause; later ones are its consequences */
	if (a->fail_reason[0] == '\0')
		snprintf(a->fail_reason, sizeof(a->fail_reason), "%s", msg);
}

void
perf_report_not_run(struct perf_app *a, uint64_t size, uint32_t qps, double offered)
{
	struct rdx_not_run n;

	if (a->rep == NULL)
		return;
	memset(&n, 0, sizeof(n));
	snprintf(n.test, sizeof(n.test), "%s", a->o.test);
	snprintf(n.mode, sizeof(n.mode), "%s", mode_name(a->o.mode));
	n.size = size;
	n.qps = qps;
	n.offered_ops_per_s = offered;
	rdx_report_not_run_add(a->rep, &n);
}

int
perf_report_end(struct perf_app *a, int rc)
{
	enum rdx_report_status st = RDX_REPORT_STATUS_COMPLETED;
	char why[PERF_REASON_MAX] = "";
	unsigned int nb_not_run = 0;

	/* --verify errors fail a run that otherwise ended well */
	if (rc == 0 && a->verify_errors != 0) {
		rc = -EIO;
		if (a->fail_reason[0] == '\0')
			snprintf(a->fail_reason, sizeof(a->fail_reason), "--verify: %" PRIu64 " errors",
				 a->verify_errors);
	}
	if (rc < 0 && rc != -EINTR) {
		st = RDX_REPORT_STATUS_FAILED;
		snprintf(why, sizeof(why), "%s", a->fail_reason[0] != '\0' ? a->fail_reason :
			 strerror(-rc));
	} else if (rc == -EINTR || rdx_runtime_stopping()) {
		/* lib/runtime's handler takes both and does not say which */
		st = RDX_REPORT_STATUS_INTERRUPTED;
		snprintf(why, sizeof(why), "%s", a->stop_reason[0] != '\0' ? a->stop_reason :
			 "SIGINT/SIGTERM");
	}
	if (a->rep != NULL) {
		rdx_report_status_set(a->rep, st, a->measured_s, why[0] != '\0' ? why : NULL);
		rdx_report_not_run(a->rep, &nb_not_run);
	}
	/* a failure has its line already (the reason); --run_infinitely ends
	 * by Ctrl-C alone: no line for its usual end */
	if (st == RDX_REPORT_STATUS_INTERRUPTED && !a->o.infinite)
		fprintf(stderr, "rdx-perf: the report says %s (%s): %.3f s measured, %u run(s) not run\n",
			rdx_report_status_name(st), why, a->measured_s, nb_not_run);
	return (int)st;
}



int
perf_report_finish(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	int rc = 0;

	if (o->transport == PERF_TRANSPORT_UD) {
		struct rdx_dev_xstat xs[128];
		int n = rdx_dev_xstats_get(a->dev, xs, RTE_DIM(xs)), i;

		rdx_report_knob_set(a->rep, "ud_sent", "%" PRIu64, a->ud_tot_tx);
		rdx_report_knob_set(a->rep, "ud_arrived", "%" PRIu64, a->ud_tot_rx);
		rdx_report_knob_set(a->rep, "ud_resent", "%" PRIu64, a->ud_tot_resent);
		/* the software device's own UD counters (drops it made or saw) */
		for (i = 0; i < n && i < (int)RTE_DIM(xs); i++)
			if (strncmp(xs[i].name, "sw_ud_", 6) == 0)
				rdx_report_knob_set(a->rep, xs[i].name, "%" PRIu64, xs[i].value);
	}
	perf_host_counters_knobs(a->rep);
	if (a->lcores[0].perf_ok)
		rdx_report_knob_set(a->rep, "perf_source", "%s",
				    rdx_perf_source_name(a->lcores[0].perf.source));
	else
		rdx_report_knob_set(a->rep, "perf_source", "none");
	if (o->infinite && o->output == PERF_OUTPUT_TABLE) {
		/* the rows went out as they came: how they ended */
		rdx_report_print_status(a->rep, stdout, " ");
	} else if (o->infinite) {
		/* the figures went out as they came (the status: on stderr) */
	} else if (o->output != PERF_OUTPUT_TABLE) {
		unsigned int i;

		perf_report_head(a);
		for (i = 0; i < rdx_report_count(a->rep); i++) {
			const struct rdx_result *x = rdx_report_get(a->rep, i);

			/* -b across processes: perftest's one figure is the sum */
			if (x->lcore == RDX_REPORT_LCORE_TOTAL &&
			    (!perf_bidir_procs(a) || !a->client || x->rank == -1))
				output_figure(a, x);
		}
	} else if (perf_bidir_procs(a)) {
		perf_report_head(a);
		perf_bidir_compact(a);
	} else if (a->compact.started) {
		rdx_report_print_compact_stream(a->rep, stdout, compact_kind(a), o->gbits, &a->compact,
						true);
	} else {
		perf_report_head(a);
		rdx_report_print_compact(a->rep, stdout, compact_kind(a), o->gbits);
	}
	if (o->output == PERF_OUTPUT_TABLE)
		perf_dev_model_footer(a, stdout);
	if (o->verbose) {
		printf("\n");
		rdx_report_print_table(a->rep, stdout, o->gbits);
	}
	if (o->clusterperf) {
		printf("\n");
		/* echo is clusterperf's echo_basic: its names under a section
		 * headed by the transport; the other tests have no clusterperf
		 * counterpart and keep lib/stats' lines (write8.99, read64.bw) */
		if (strcmp(a->eng->name, "echo") == 0) {
			printf("%s\n", perf_transport_name(o->transport));
			perf_cp_print_rows(a->rep, "echo", stdout);
		} else {
			rdx_report_print_clusterperf(a->rep, stdout);
		}
	}
	fflush(stdout);
	rc = perf_report_files(a);
	if (a->lost_log != 0)
		fprintf(stderr, "rdx-perf: -o: the log kept the first %u WRs per lcore; %" PRIu64 " more were not logged\n",
			PERF_WRLOG_CAP, a->lost_log);
	return rc;
}

/* Cycles -> ns in integers (a double would round epoch nanoseconds). */
static uint64_t
tsc_to_ns(uint64_t cycles, uint64_t hz)
{
	return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

/* The per-WR log of the run just finished: FILE, FILE.<lcore> with several
 * lcores, and .s<size> / .q<qps> suffixes when the run is one of several. */
int
perf_wrlog_write(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	struct timespec ts;
	uint64_t tsc0, hz = rdx_tsc_hz();
	unsigned int l;
	int rc = 0;
	char kind[32];
	size_t k;

	/* one token in the key=value header: spaces become '_' */
	snprintf(kind, sizeof(kind), "%s", lat_kind(a));
	for (k = 0; kind[k] != '\0'; k++)
		if (kind[k] == ' ')
			kind[k] = '_';

	/* TSC -> CLOCK_REALTIME: both clocks sampled together now */
	clock_gettime(CLOCK_REALTIME, &ts);
	tsc0 = rdx_tsc();
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_lcore *lc = &a->lcores[l];
		char path[4096], host[128], id[128];
		size_t n;
		uint64_t i, unlogged, rt0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		FILE *f;

		n = (size_t)snprintf(path, sizeof(path), "%s", o->wrlog);
		if (a->nb_lcores > 1)
			n += (size_t)snprintf(path + n, sizeof(path) - n, ".%u", lc->lcore_id);
		if (o->nb_sizes > 1)
			n += (size_t)snprintf(path + n, sizeof(path) - n, ".s%" PRIu64, a->run.size);
		if (o->sweep_hi != o->sweep_lo)
			snprintf(path + n, sizeof(path) - n, ".q%u", a->run.qps);
		f = fopen(path, "w");
		if (f == NULL) {
			fprintf(stderr, "rdx-perf: -o: cannot write %s: %s\n", path, strerror(errno));
			return -errno;
		}
		fprintf(f, "# rdx-wrlog v1\n");
		/* complete_ns - post_ns is always what the requester saw (a full
		 * round trip for ping-pong); lat_kind says what the report shows and
		 * report_div what it divides the logged time by (2: half RTT) */
		/* capacity: entries the log holds per lcore; unlogged: measured
		 * WRs past it (not in the file: the log is cut, rdx-flows refuses
		 * it unless told) */
		unlogged = lc->log_full && lc->ops > lc->log_n ? lc->ops - lc->log_n : 0;
		/* host= and dev_id=: did two logs' flows run on one device */
		perf_dev_identity(a, lc->nb_eps > 0 ? lc->eps[0]->qp : NULL, host, sizeof(host), id,
				  sizeof(id));
		fprintf(f, "# test=%s mode=%s size=%" PRIu64 " lcore=%u qps=%u flow=%s dev=%s tsc_hz=%" PRIu64 " lat_kind=%s report_div=%u device_kind=%s capacity=%u unlogged=%" PRIu64 "%s%s%s%s\n",
			o->test, mode_name(o->mode), a->run.size, lc->lcore_id, lc->nb_eps,
			o->label[0] != '\0' ? o->label : "-", a->attr->name, hz,
			kind, lat_halved(a) ? 2u : 1u,
			a->attr->software ? "software_device" :
			perf_dev_kind(a->attr) == PERF_DEV_KIND_SOFT_RDMA ? "software_rdma_device" : "hardware",
			PERF_WRLOG_CAP, unlogged, host[0] != '\0' ? " host=" : "", host,
			id[0] != '\0' ? " dev_id=" : "", id);
		fprintf(f, "# op qp post_ns complete_ns bytes\n");
		for (i = 0; i < lc->log_n; i++) {
			const struct perf_wrlog_ent *e = &lc->log[i];
			uint64_t post = rt0 - tsc_to_ns(tsc0 - e->post, hz);
			uint64_t done = e->done != 0 ? rt0 - tsc_to_ns(tsc0 - e->done, hz) : 0;

			fprintf(f, "%" PRIu64 " %u %" PRIu64 " %" PRIu64 " %u\n", i, e->qp,
				post, done, e->bytes);
		}
		a->lost_log += unlogged;
		if (ferror(f) | fclose(f)) {
			fprintf(stderr, "rdx-perf: -o: cannot write %s: %s\n", path, strerror(errno));
			rc = -EIO;
		}
	}
	return rc;
}
