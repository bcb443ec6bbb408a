/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's table with a tail column: -b across two processes (the
 * client's row, the server's and their sum, a "side" column) and
 * --run_infinitely's head with --cpu_util's column. report.c calls these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_report.h"

#include "perf_app.h"
#include "perf_wire.h"

/* -b across processes: which process a row is (JSON/CSV rank and host):
 * 0 the client, 1 the server, -1 the sum of both. */
void
perf_bidir_side(struct rdx_result *x, int rank)
{
	x->has_rank = true;
	x->rank = rank;
	snprintf(x->host, sizeof(x->host), "%s", rank == 0 ? "client" : rank == 1 ? "server" :
		 "client+server");
}

/* -b across processes, client: the server's row (its ENDACK) and the sum. */
void
perf_bidir_rows(struct perf_app *a, const struct rdx_result *cli)
{
	struct rdx_result srv, sum;
	double bc, bs;

	srv = *cli;
	srv.qps = a->peer_qps;
	srv.ops = a->peer_ops;
	srv.bytes = a->peer_bytes;
	srv.seconds = (double)a->peer_ns / 1e9;
	srv.has_lat = false;     /* the server's latencies stay on its side */
	srv.has_perf = false;
	srv.busy_pct = -1;
	/* --cpu_util: the server's CPUs are measured and printed on its side */
	srv.cpu_util_pct = -1;
	/* the server's BW peak (ENDACK, KiB/s resolution; 0: "-") */
	srv.peak_bytes_per_s = perf_boot_peer_peak(a);
	perf_bidir_side(&srv, 1);
	rdx_report_add(a->rep, &srv);
	sum = srv;
	sum.qps = cli->qps + srv.qps;
	sum.ops = cli->ops + srv.ops;
	sum.bytes = cli->bytes + srv.bytes;
	/* perftest's -b peak adds the two ends' peaks; one not measured: "-" */
	sum.peak_bytes_per_s = cli->peak_bytes_per_s > 0 && srv.peak_bytes_per_s > 0 ?
		cli->peak_bytes_per_s + srv.peak_bytes_per_s : 0;
	/* perftest's -b figure: the two bandwidths added; the row keeps exact
	 * bytes and a time that gives that rate */
	bc = cli->seconds > 0 ? (double)cli->bytes / cli->seconds : 0;
	bs = srv.seconds > 0 ? (double)srv.bytes / srv.seconds : 0;
	sum.seconds = bc + bs > 0 ? (double)sum.bytes / (bc + bs) : 0;
	perf_bidir_side(&sum, -1);
	rdx_report_add(a->rep, &sum);
}

/* One line of the compact table (head or row) with `tail` appended. */
void
perf_compact_line_with(const struct perf_app *a, const struct rdx_result *x,
		  enum rdx_report_compact_kind kind, const char *tail)
{
	char *line = NULL;
	size_t n = 0;
	bool short_run = false, cut = false;
	FILE *m = open_memstream(&line, &n);

	if (m == NULL)
		return;
	if (x != NULL)
		rdx_report_print_compact_row(x, m, kind, a->o.gbits);
	else
		rdx_report_print_compact_head(m, kind, a->o.gbits, a->run.offered > 0);
	fclose(m);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	/* the side before the row's SHORT and CUT marks */
	if (n >= 4 && strcmp(line + n - 4, " CUT") == 0) {
		cut = true;
		n -= 4;
		line[n] = '\0';
	}
	if (n >= 6 && strcmp(line + n - 6, " SHORT") == 0) {
		short_run = true;
		n -= 6;
		line[n] = '\0';
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = '\0';
	}
	printf("%s%s%s%s%s\n", line, tail[0] != '\0' ? " " : "", tail, short_run ? " SHORT" : "",
	       cut ? " CUT" : "");
	free(line);
}

/* -b across processes: perftest's table with a column saying whose row it is. */
void
perf_bidir_compact(const struct perf_app *a)
{
	enum perf_dev_kind kind = perf_dev_kind(a->attr);
	unsigned int i, nb_short = 0;

	printf("%s%s\n", kind == PERF_DEV_KIND_MODEL ?
	       "*** results on the SOFTWARE mlx5 device (a model, not a NIC): " :
	       kind == PERF_DEV_KIND_SOFT_RDMA ?
	       "*** results on a SOFTWARE RDMA device of the kernel (rdma_rxe/siw, not a NIC): " :
	       "*** results on HARDWARE: ", a->attr->name);
	perf_compact_line_with(a, NULL, RDX_REPORT_COMPACT_BW, a->o.cpu_util ? "CPU_Util[%] side" : "side");
	for (i = 0; i < rdx_report_count(a->rep); i++) {
		const struct rdx_result *x = rdx_report_get(a->rep, i);

		if (x->lcore != RDX_REPORT_LCORE_TOTAL)
			continue;
		perf_compact_line_with(a, x, RDX_REPORT_COMPACT_BW, x->rank == 0 ? "client (this process)" :
				  x->rank == -1 ? "sum (-b)" : a->client ? "server" :
				  "server (this process)");
		nb_short += x->short_run;
	}
	printf(" %s; MsgRate: 10^6 ops/s; BW peak: size / the shortest time per op from a post to a later completion, each process's own (the server's sent at 1 KiB/s resolution), the sum adds both (-: not measured)\n",
	       a->o.gbits ? "Gb = 10^9 bits" : "MiB = 2^20 bytes");
	if (a->client)
		printf(" -b: both processes posted; the sum adds the client's and the server's bandwidth\n");
	if (a->client && a->o.cpu_util)
		printf(" CPU_Util: the client's lcores' CPUs (/proc/stat); the server and sum rows 0.00: the server prints its own\n");
	else if (a->o.cpu_util)
		printf(" CPU_Util: user / (user + idle) time of this process's lcores' CPUs over its own loop (/proc/stat)\n");
	if (nb_short > 0)
		printf(" SHORT: %u row(s) measured over < %g s or < %u ops: run longer (-n / -D)\n",
		       nb_short, RDX_REPORT_SHORT_S, RDX_REPORT_SHORT_OPS);
	rdx_report_print_status(a->rep, stdout, " ");
}
