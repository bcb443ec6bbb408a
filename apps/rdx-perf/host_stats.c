/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's --cpu_util and -W/--report-counters around each run of the
 * client: the CPU time of the CPUs the measuring lcores run on (lib/stats
 * rdx_cpu.h) and the port counters the kernel shows in sysfs (lib/dev
 * rdx_dev_sysfs.h), read before the run and after it. main.c and report.c
 * call these; the state is the process's one run at a time. A --server
 * (which measures nothing) reads them once around all the runs it serves
 * and prints them after its last line, as perftest's server prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_lcore.h>

#include "rdx_cpu.h"
#include "rdx_dev_sysfs.h"

#include "perf_app.h"
#include "perf_wire.h"

#define PERF_MAX_COUNTERS 32

static struct {
	cpu_set_t cpus;
	bool cpu_on;
	struct rdx_cpu_times t0;
	double cpu_pct;           /* the last run's; < 0: none */
	unsigned int nb;          /* -W counters read (0: none, or the software device) */
	char list[512];
	const char *name[PERF_MAX_COUNTERS];
	uint64_t v0[PERF_MAX_COUNTERS];
	uint64_t delta[PERF_MAX_COUNTERS]; /* the last run's */
	uint64_t total[PERF_MAX_COUNTERS]; /* all runs' */
	const char *dev;
	unsigned int port;
} hs = { .cpu_pct = -1 };

static int
counters_init(const struct perf_app *a)
{
	char *tok, *save = NULL;
	uint64_t v;
	int rc;

	if (perf_dev_kind(a->attr) == PERF_DEV_KIND_MODEL) {
		fprintf(stderr, "rdx-perf: -W: port counters are not available on the software device (%s has no sysfs counters); the run goes on without them\n",
			a->attr->name);
		return 0;
	}
	if (strlen(a->o.counters) >= sizeof(hs.list)) {
		fprintf(stderr, "rdx-perf: bad value for -W: list longer than %zu bytes\n",
			sizeof(hs.list) - 1);
		return -EINVAL;
	}
	snprintf(hs.list, sizeof(hs.list), "%s", a->o.counters);
	hs.dev = a->attr->name;
	hs.port = a->o.ib_port != 0 ? a->o.ib_port : 1;
	for (tok = strtok_r(hs.list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (hs.nb == PERF_MAX_COUNTERS) {
			fprintf(stderr, "rdx-perf: bad value for -W: at most %d counters\n",
				PERF_MAX_COUNTERS);
			return -EINVAL;
		}
		rc = rdx_dev_port_counter_read(NULL, hs.dev, hs.port, tok, &v);
		if (rc < 0) {
			fprintf(stderr, "rdx-perf: bad value '%s' for -W: %s (a file under %s/%s/ports/%u/, e.g. counters/port_xmit_data)\n",
				tok, rc == -EINVAL ? "not a counter name" : strerror(-rc),
				RDX_DEV_SYSFS_IB, hs.dev, hs.port);
			return -EINVAL;
		}
		hs.name[hs.nb++] = tok;
	}
	if (hs.nb == 0) {
		fprintf(stderr, "rdx-perf: bad value '%s' for -W: expected counter names, e.g. counters/port_xmit_data,counters/port_rcv_data\n",
			a->o.counters);
		return -EINVAL;
	}
	return 0;
}

int
perf_host_stats_init(const struct perf_app *a)
{
	unsigned int l, c;
	struct rdx_cpu_times t;

	if (a->o.cpu_util) {
		CPU_ZERO(&hs.cpus);
		for (l = 0; l < a->nb_lcores; l++) {
			rte_cpuset_t s = rte_lcore_cpuset(a->lcore_ids[l]);

			for (c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &s))
					CPU_SET(c, &hs.cpus);
		}
		hs.cpu_on = rdx_cpu_times_read(NULL, &hs.cpus, &t) == 0;
		if (!hs.cpu_on)
			fprintf(stderr, "rdx-perf: --cpu_util: /proc/stat has no line for the lcores' CPUs: not measured\n");
	}
	if (a->o.counters != NULL)
		return counters_init(a);
	return 0;
}

void
perf_host_stats_begin(void)
{
	unsigned int i;

	if (hs.cpu_on && rdx_cpu_times_read(NULL, &hs.cpus, &hs.t0) < 0)
		hs.cpu_on = false;
	for (i = 0; i < hs.nb; i++)
		if (rdx_dev_port_counter_read(NULL, hs.dev, hs.port, hs.name[i], &hs.v0[i]) < 0)
			hs.v0[i] = UINT64_MAX;
}

void
perf_host_stats_end(void)
{
	struct rdx_cpu_times t1;
	unsigned int i;
	uint64_t v;

	hs.cpu_pct = -1;
	if (hs.cpu_on && rdx_cpu_times_read(NULL, &hs.cpus, &t1) == 0)
		hs.cpu_pct = rdx_cpu_util_pct(&hs.t0, &t1);
	for (i = 0; i < hs.nb; i++) {
		hs.delta[i] = 0;
		if (hs.v0[i] != UINT64_MAX &&
		    rdx_dev_port_counter_read(NULL, hs.dev, hs.port, hs.name[i], &v) == 0 && v >= hs.v0[i])
			hs.delta[i] = v - hs.v0[i];
		hs.total[i] += hs.delta[i];
	}
}

double
perf_host_cpu_util(void)
{
	return hs.cpu_pct;
}

/* perftest's lines after a row: "\tNAME=DELTA" each, then an empty line */
void
perf_host_counters_print(FILE *f)
{
	unsigned int i;

	if (hs.nb == 0)
		return;
	for (i = 0; i < hs.nb; i++)
		fprintf(f, "\t%s=%" PRIu64 "\n", hs.name[i], hs.delta[i]);
	fprintf(f, "\n");
}

/* The server's figures over the runs it served (from before the first
 * run to the client's goodbye): one CPU_Util[%] line with --cpu_util, the
 * counters' changes with -W on a kernel RDMA device. */
static void
server_print(FILE *f, unsigned int nb_runs, double secs)
{
	char cpus[128];
	size_t n = 0;
	unsigned int c;

	if (hs.cpu_on) {
		cpus[0] = '\0';
		for (c = 0; c < CPU_SETSIZE && n < sizeof(cpus) - 16; c++)
			if (CPU_ISSET(c, &hs.cpus))
				n += (size_t)snprintf(cpus + n, sizeof(cpus) - n, "%s%u",
						      n != 0 ? "," : "", c);
		if (hs.cpu_pct >= 0)
			fprintf(f, " CPU_Util[%%]: %.2f (the server's lcores' CPUs %s over the %u run(s) it served, %.3f s: user / (user + idle) time, /proc/stat)\n",
				hs.cpu_pct, cpus, nb_runs, secs);
		else
			fprintf(f, " CPU_Util[%%]: 0.00 (the server's lcores' CPUs %s over the %u run(s) it served, %.3f s: /proc/stat counted no user or idle time on them)\n",
				cpus, nb_runs, secs);
	}
	if (hs.nb != 0) {
		fprintf(f, " port counters of %s port %u over the %u run(s) served:\n", hs.dev, hs.port,
			nb_runs);
		perf_host_counters_print(f);
	}
}

/* A --server's loop (main.c). Without -b it measures nothing of its own:
 * --cpu_util and -W are read around all the runs it serves and printed
 * after its last line; with -b each run's own loop has them (main.c's
 * perf_app.launch_clients) and its rows show them. */
int
perf_host_serve(struct perf_app *a)
{
	const bool whole = !perf_bidir_procs(a);
	struct timespec s0, s1;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &s0);
	if (whole)
		perf_host_stats_begin();
	rc = perf_server_loop(a);
	if (whole)
		perf_host_stats_end();
	clock_gettime(CLOCK_MONOTONIC, &s1);
	if (whole && rc == 0 && a->nb_runs > 0)
		server_print(stdout, a->nb_runs, (double)(s1.tv_sec - s0.tv_sec) +
			     (double)(s1.tv_nsec - s0.tv_nsec) / 1e9);
	return rc;
}

/* The JSON/CSV knobs: "counter.NAME" over all runs */
void
perf_host_counters_knobs(struct rdx_report *r)
{
	char name[96];
	unsigned int i;

	for (i = 0; i < hs.nb; i++) {
		snprintf(name, sizeof(name), "counter.%s", hs.name[i]);
		rdx_report_knob_set(r, name, "%" PRIu64, hs.total[i]);
	}
}
