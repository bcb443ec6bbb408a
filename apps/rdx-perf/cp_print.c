/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RAMCloud clusterperf's report format for the echo and basic families:
 * its line names (echo100, echo100.min, .9, .99, .999, echoBw100; the same
 * for basic.read/basic.write), its units and its columns, so that its
 * output and rdx's diff line by line. Used by the raw echo (report.c) and
 * lib/rpc's benchmarks (rpc_report.c); it calls only lib/stats.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_hist.h"
#include "rdx_report.h"

#include "cp_print.h"
#include "perf_opts.h"

/* clusterperf's names and descriptions of one family (ClusterPerf.cc's
 * echo_basic and basic): NAME, NAME.min, .9, .99, .999, then the bandwidth
 * line; %s is the size as rdx names it (100, 1K, ..). */
struct cp_family {
	const char *prefix;       /* latency lines: PREFIX<size> */
	const char *bw_prefix;    /* bandwidth line: BW_PREFIX<size> */
	const char *desc;         /* latency description, one %s */
	const char *bw_desc;      /* bandwidth description, one %s */
};

static const struct cp_family cp_echo = {
	"echo", "echoBw", "send 30B message, receive %sB message",
	"bandwidth receiving %sB messages",
};
static const struct cp_family cp_read = {
	"basic.read", "basic.readBw", "read random %sB object (30B key)",
	"bandwidth reading %sB objects (30B key)",
};
static const struct cp_family cp_write = {
	"basic.write", "basic.writeBw", "write random %sB object (30B key)",
	"bandwidth writing %sB objects (30B key)",
};

static const struct cp_family *
cp_family_of(const char *test)
{
	if (strcmp(test, "basic.read") == 0)
		return &cp_read;
	if (strcmp(test, "basic.write") == 0)
		return &cp_write;
	return &cp_echo;
}

/* clusterperf's formatTime: "%5.1f" and ns/us/ms/s, after a 20-column name */
static void
cp_time(FILE *f, const char *name, double ns, const char *desc, const char *what,
	const char *mark)
{
	const char *unit = "ns";
	double v = ns;

	if (ns >= 1e9) {
		v = ns / 1e9;
		unit = "s ";
	} else if (ns >= 1e6) {
		v = ns / 1e6;
		unit = "ms";
	} else if (ns >= 1e3) {
		v = ns / 1e3;
		unit = "us";
	}
	fprintf(f, "%-20s %5.1f %s     %s %s%s\n", name, v, unit, desc, what, mark);
}

/* clusterperf's printBandwidth: "%5.1f" and B/s, KB/s, MB/s, GB/s (here
 * decimal units, 1 MB = 10^6 B, as rdx's other reports) */
static void
cp_bw(FILE *f, const char *name, double bps, const char *desc, const char *mark)
{
	const char *unit = "B/s ";
	double v = bps;

	if (bps > 1e9) {
		v = bps / 1e9;
		unit = "GB/s";
	} else if (bps > 1e6) {
		v = bps / 1e6;
		unit = "MB/s";
	} else if (bps > 1e3) {
		v = bps / 1e3;
		unit = "KB/s";
	}
	fprintf(f, "%-20s %5.1f %s   %s%s\n", name, v, unit, desc, mark);
}

/* The lines of one total row, clusterperf's first, then rdx's extra
 * percentiles (.9999, .max). */
static void
cp_row(FILE *f, const struct cp_family *fam, const struct rdx_result *x)
{
	const char *mark = x->cut_short ? " [CUT]" : x->short_run ? " [SHORT]" : "";
	char sz[16], name[64], desc[96];
	const struct rdx_hist_summary *l = &x->lat;

	perf_size_name(x->size, sz, sizeof(sz));
	snprintf(desc, sizeof(desc), fam->desc, sz);
	if (x->has_lat && l->count > 0) {
		snprintf(name, sizeof(name), "%s%s", fam->prefix, sz);
		cp_time(f, name, l->p50, desc, "median", mark);
		snprintf(name, sizeof(name), "%s%s.min", fam->prefix, sz);
		cp_time(f, name, l->min, desc, "minimum", mark);
		snprintf(name, sizeof(name), "%s%s.9", fam->prefix, sz);
		cp_time(f, name, l->p90, desc, "90%", mark);
		snprintf(name, sizeof(name), "%s%s.99", fam->prefix, sz);
		cp_time(f, name, l->p99, desc, "99%", mark);
		snprintf(name, sizeof(name), "%s%s.999", fam->prefix, sz);
		cp_time(f, name, l->p999, desc, "99.9%", mark);
	}
	snprintf(name, sizeof(name), "%s%s", fam->bw_prefix, sz);
	snprintf(desc, sizeof(desc), fam->bw_desc, sz);
	cp_bw(f, name, x->mbytes_per_s * 1e6, desc, mark);
	if (x->has_lat && l->count > 0) {
		snprintf(desc, sizeof(desc), fam->desc, sz);
		snprintf(name, sizeof(name), "%s%s.9999", fam->prefix, sz);
		cp_time(f, name, l->p9999, desc, "99.99%", mark);
		snprintf(name, sizeof(name), "%s%s.max", fam->prefix, sz);
		cp_time(f, name, l->max, desc, "maximum", mark);
	}
}

int
perf_cp_print_rows(const struct rdx_report *rep, const char *test, FILE *f)
{
	const struct cp_family *fam = cp_family_of(test);
	unsigned int i, n = rdx_report_count(rep);

	for (i = 0; i < n; i++) {
		const struct rdx_result *x = rdx_report_get(rep, i);

		if (x == NULL || x->lcore != RDX_REPORT_LCORE_TOTAL ||
		    strncmp(x->name, "mix", 3) == 0)
			continue;
		cp_row(f, fam, x);
	}
	rdx_report_print_status(rep, f, "");
	return ferror(f) ? -EIO : 0;
}
