/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf on DPDK telemetry: /rdx_perf/progress answers what the run is
 * doing now (test, mode, current size and QP count, device) and, per
 * lcore, the ops, bytes and errors so far. It reads the counters the
 * lcores keep anyway (struct perf_lcore) with relaxed loads from DPDK's
 * telemetry thread: nothing is added to the fast path.
 *
 * Which fields are live: ops and bytes grow with every completion of the
 * measured phase (they stay 0 during warm-up, "measuring" says which phase
 * runs) and restart at 0 with each run; verify_errors grows as --verify
 * finds bad bytes and is moved to the process total after each run; error
 * is the lcore's errno once it failed.
 *
 * /rdx/lcores and /rdx/lcore,<id> (lib/telemetry) list rdx-perf's lcores
 * too: their loops are rdx-perf's own, not rdx_lcore_loops, so the hook
 * below adds what they count (ops, bytes, polls, busy polls, QPs).
 * /rdx_perf/qps gives every QP's counters while a run is on: the endpoints
 * exist from setup to teardown, and the move to "done" waits for a callback
 * still reading them. Its WR counts (sends, receives posted and completed,
 * doorbells, errors) come from the library (rdx_qp_xstats_get, as
 * /rdx/qp_xstats gives them); what it adds is the app's view: role, lcore,
 * the ops posted, completed and in flight (an echo op is a request and its
 * answer) and recv_done (receive completions, or answers seen in memory).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_telemetry.h>

#include "rdx_runtime.h"
#include "rdx_telemetry.h"

#include "perf_app.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PERF_TEL_CMD_QPS "/rdx_perf/qps"

/* What the callback may read at any time: the app is static, the device is
 * not (it is closed at the end), so its name and kind are copied here. */
static struct {
	const struct perf_app *app;
	char dev[80];
	bool software;
	int state;                 /* enum perf_tel_state */
	int readers;               /* /rdx_perf/qps callbacks reading endpoints */
} tel;

static const char *const state_names[] = {
	[PERF_TEL_SETUP] = "setup", [PERF_TEL_RUNNING] = "running",
	[PERF_TEL_DONE] = "done",
};

static int
tel_progress(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct perf_app *a = tel.app;
	uint64_t ops = 0, bytes = 0, errors = 0, now = rdx_tsc(), hz = rdx_tsc_hz();
	unsigned int l, nb;
	int state;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (a == NULL)
		return -ENODEV;
	state = LOAD(tel.state);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "state", state_names[state]);
	rte_tel_data_add_dict_string(d, "test", a->o.test);
	rte_tel_data_add_dict_string(d, "mode", a->o.mode == PERF_MODE_LAT ? "lat" : "bw");
	rte_tel_data_add_dict_string(d, "role", a->client ? (a->responder ? "loopback" : "client")
							  : "server");
	rte_tel_data_add_dict_u64(d, "size", LOAD(a->run.size));
	rte_tel_data_add_dict_u64(d, "qps_per_lcore", LOAD(a->run.qps));
	rte_tel_data_add_dict_u64(d, "runs_done", LOAD(a->nb_runs));
	rte_tel_data_add_dict_string(d, "device", tel.dev);
	rte_tel_data_add_dict_int(d, "software", tel.software ? 1 : 0);
	if (tel.software)
		rte_tel_data_add_dict_string(d, "results", "software device");
	rte_tel_data_add_dict_string(d, "live",
		"ops,bytes: measured phase of the current run; verify_errors: current run; error");
	nb = RTE_MIN(a->nb_lcores, (unsigned int)RDX_MAX_LCORES);
	for (l = 0; l < nb; l++) {
		const struct perf_lcore *lc = &a->lcores[l];
		struct rte_tel_data *c = rte_tel_data_alloc();
		uint64_t lo = LOAD(lc->ops), lb = LOAD(lc->bytes), le = LOAD(lc->verify_errors);
		bool measuring = LOAD(lc->measure);
		uint64_t t0 = LOAD(lc->t_start);
		char key[32];

		ops += lo;
		bytes += lb;
		errors += le;
		if (c == NULL)
			continue;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "ops", lo);
		rte_tel_data_add_dict_u64(c, "bytes", lb);
		rte_tel_data_add_dict_u64(c, "verify_errors", le);
		rte_tel_data_add_dict_int(c, "error", LOAD(lc->err));
		rte_tel_data_add_dict_int(c, "measuring", state == PERF_TEL_RUNNING && measuring);
		/* ms since the measured phase began (t_start, set by the lcore) */
		if (state == PERF_TEL_RUNNING && measuring && t0 != 0 && now > t0 && hz != 0)
			rte_tel_data_add_dict_u64(c, "elapsed_ms", (now - t0) / (hz / 1000));
		snprintf(key, sizeof(key), "lcore_%u", a->lcore_ids[l]);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
			rte_tel_data_free(c);
	}
	rte_tel_data_add_dict_u64(d, "ops", ops);
	rte_tel_data_add_dict_u64(d, "bytes", bytes);
	rte_tel_data_add_dict_u64(d, "verify_errors", errors);
	return 0;
}

/* /rdx/lcores hook: rdx-perf's counters of lcore id, when it runs one of ours. */
static int
tel_lcore_hook(unsigned int id, struct rte_tel_data *d, void *arg)
{
	const struct perf_app *a = arg;
	const struct perf_lcore *lc = NULL;
	uint64_t polls, busy;
	unsigned int l;

	for (l = 0; l < RTE_MIN(a->nb_lcores, (unsigned int)RDX_MAX_LCORES); l++)
		if (a->lcore_ids[l] == id)
			lc = &a->lcores[l];
	if (lc == NULL)
		return 0;
	polls = LOAD(lc->polls);
	busy = LOAD(lc->busy_polls);
	rte_tel_data_add_dict_string(d, "app", "rdx-perf");
	rte_tel_data_add_dict_u64(d, "ops", LOAD(lc->ops));
	rte_tel_data_add_dict_u64(d, "bytes", LOAD(lc->bytes));
	rte_tel_data_add_dict_u64(d, "polls", polls);
	rte_tel_data_add_dict_u64(d, "busy_polls", busy);
	/* the share of passes whose polls returned completions (report's busy%) */
	rte_tel_data_add_dict_int(d, "busy_pct", polls == 0 ? 0 :
				  (int)((200 * (double)busy / (double)polls + 1) / 2));
	rte_tel_data_add_dict_u64(d, "client_qps", LOAD(lc->nb_eps));
	rte_tel_data_add_dict_u64(d, "server_qps", LOAD(lc->nb_srv));
	rte_tel_data_add_dict_int(d, "measuring", LOAD(lc->measure));
	return 1;
}

static void
tel_qp(struct rte_tel_data *d, const struct perf_ep *ep, unsigned int lcore, bool server)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	uint64_t posted = LOAD(ep->posted), done = LOAD(ep->completed);
	struct rdx_dev_xstat xs[RDX_QP_XSTATS_COMMON];
	bool lib;
	char key[32];

	if (c == NULL)
		return;
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_string(c, "role", server ? "server" : "client");
	rte_tel_data_add_dict_int(c, "lcore", (int)lcore);
	rte_tel_data_add_dict_u64(c, "qp_num", ep->qp != NULL ? ep->qp->qp_num : 0);
	rte_tel_data_add_dict_u64(c, "posted", posted);
	rte_tel_data_add_dict_u64(c, "completed", done);
	/* a server's posts (answers) are not counted back as completions */
	if (!server)
		rte_tel_data_add_dict_u64(c, "in_flight", posted >= done ? posted - done : 0);
	/* the WR counts from the library; the app's own if its driver keeps none */
	lib = ep->qp != NULL && rdx_qp_xstats_get(ep->qp, xs, RTE_DIM(xs)) >=
		RDX_QP_XSTATS_COMMON;
	rte_tel_data_add_dict_string(c, "wr_counts", lib ? "library" : "app");
	rte_tel_data_add_dict_u64(c, "sends", lib ? xs[RDX_QP_XSTAT_SEND_POSTED].value :
				  LOAD(ep->tx));
	rte_tel_data_add_dict_u64(c, "recv_posted", lib ? xs[RDX_QP_XSTAT_RECV_POSTED].value :
				  LOAD(ep->recv_posted));
	/* the app's: receive completions, or answers seen in memory (lat) */
	rte_tel_data_add_dict_u64(c, "recv_done", LOAD(ep->recv_done));
	if (lib) {
		rte_tel_data_add_dict_u64(c, "recv_completed",
					  xs[RDX_QP_XSTAT_RECV_COMPLETED].value);
		rte_tel_data_add_dict_u64(c, "sends_completed",
					  xs[RDX_QP_XSTAT_SEND_COMPLETED].value);
		rte_tel_data_add_dict_u64(c, "send_doorbells",
					  xs[RDX_QP_XSTAT_SEND_DOORBELLS].value);
		rte_tel_data_add_dict_u64(c, "recv_doorbells",
					  xs[RDX_QP_XSTAT_RECV_DOORBELLS].value);
		rte_tel_data_add_dict_u64(c, "wrs_error", xs[RDX_QP_XSTAT_SEND_ERROR].value +
					  xs[RDX_QP_XSTAT_RECV_ERROR].value);
		rte_tel_data_add_dict_u64(c, "wrs_flushed", xs[RDX_QP_XSTAT_SEND_FLUSHED].value +
					  xs[RDX_QP_XSTAT_RECV_FLUSHED].value);
	}
	snprintf(key, sizeof(key), "%s%u", server ? "srv" : "qp", ep->index);
	if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
		rte_tel_data_free(c);
}

/* Every QP the lcores drive now: client endpoints, then server ones. */
static int
tel_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct perf_app *a = tel.app;
	unsigned int l, i, nb;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (a == NULL)
		return -ENODEV;
	__atomic_fetch_add(&tel.readers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tel.state, __ATOMIC_SEQ_CST) != PERF_TEL_RUNNING) {
		__atomic_fetch_sub(&tel.readers, 1, __ATOMIC_RELEASE);
		return -EAGAIN;      /* no run on: no endpoints to show */
	}
	rte_tel_data_start_dict(d);
	nb = RTE_MIN(a->nb_lcores, (unsigned int)RDX_MAX_LCORES);
	for (l = 0; l < nb; l++) {
		const struct perf_lcore *lc = &a->lcores[l];
		unsigned int ne = LOAD(lc->nb_eps), ns = LOAD(lc->nb_srv);

		for (i = 0; i < ne && lc->eps != NULL; i++)
			tel_qp(d, lc->eps[i], lc->lcore_id, false);
		for (i = 0; i < ns && lc->srv != NULL; i++)
			tel_qp(d, lc->srv[i], lc->lcore_id, true);
	}
	__atomic_fetch_sub(&tel.readers, 1, __ATOMIC_RELEASE);
	return 0;
}

int
perf_telemetry_register(const struct perf_app *a)
{
	if (rdx_telemetry_dev_name(a->dev, tel.dev, sizeof(tel.dev)) != 0)
		snprintf(tel.dev, sizeof(tel.dev), "%s", a->attr->name);
	tel.software = a->attr->software;
	__atomic_store_n(&tel.state, PERF_TEL_SETUP, __ATOMIC_RELAXED);
	__atomic_store_n(&tel.app, a, __ATOMIC_RELEASE);
	rdx_telemetry_lcore_info_set(tel_lcore_hook, (void *)(uintptr_t)a);
	if (rte_telemetry_register_cmd(PERF_TEL_CMD_QPS, tel_qps,
		"rdx-perf: every QP of the run: role, lcore, ops posted/completed/in flight; WR counts as /rdx/qp_xstats. No parameters.") != 0)
		return -EINVAL;
	return rte_telemetry_register_cmd(PERF_TEL_CMD_PROGRESS, tel_progress,
		"rdx-perf: test, size, QPs, device, and per lcore ops, bytes and errors so far. No parameters.");
}

void
perf_telemetry_state(enum perf_tel_state s)
{
	__atomic_store_n(&tel.state, (int)s, __ATOMIC_SEQ_CST);
	/* leaving the run: the endpoints go next; wait out a reader of them */
	while (s != PERF_TEL_RUNNING && __atomic_load_n(&tel.readers, __ATOMIC_SEQ_CST) != 0)
		rte_pause();
}
