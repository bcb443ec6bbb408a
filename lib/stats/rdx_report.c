/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark reports: knobs + result rows, and the four writers (table,
 * clusterperf lines, JSON, CSV) plus the JSON reader. Control path only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include <jansson.h>

#include "rdx_config.h"
#include "rdx_perf.h"
#include "rdx_report.h"

struct rdx_knob {
	char *name;
	char *value;
};

struct rdx_report {
	char *title;
	struct rdx_knob *knobs;
	unsigned int nb_knobs;
	unsigned int knobs_cap;
	struct rdx_result *rows;
	unsigned int nb_rows;
	unsigned int rows_cap;
};

/*
 * CSV fixed columns, in order (then one "knob.<name>" column per knob):
 *   test, mode, name, desc, lat_kind  text as in struct rdx_result
 *   size, lcore, qps, ops, bytes      integers; lcore "total" for the total row
 *   seconds, mops, mbytes_per_s, gbits_per_s, busy_pct
 *                                     busy_pct empty when unknown
 *   lat_count, lat_{min,p50,p90,p99,p999,p9999,max,mean,stdev}_ns
 *                                     empty when the row has no latency
 *   perf_source                       "hw", "sw+tsc", "tsc-only"; empty without perf
 *   perf_{cycles,instructions,cache_misses,branch_misses,task_clock_ns,
 *        ctx_switches,page_faults}    per operation; empty when unmeasured
 *   short_run                         1 when the row is short (RDX_REPORT_SHORT_S/_OPS), else 0
 */
static const char *const rdx_report_csv_cols[] = {
	"test", "mode", "name", "desc", "lat_kind",
	"size", "lcore", "qps", "ops", "bytes",
	"seconds", "mops", "mbytes_per_s", "gbits_per_s", "busy_pct",
	"lat_count", "lat_min_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns",
	"lat_p999_ns", "lat_p9999_ns", "lat_max_ns", "lat_mean_ns", "lat_stdev_ns",
	"perf_source", "perf_cycles", "perf_instructions", "perf_cache_misses",
	"perf_branch_misses", "perf_task_clock_ns", "perf_ctx_switches", "perf_page_faults",
	"short_run",
};
#define RDX_REPORT_CSV_NB_COLS (sizeof(rdx_report_csv_cols) / sizeof(rdx_report_csv_cols[0]))

/* Source names: lib/perf's table (built before this library), no copy here. */
#define rdx_report_src_name rdx_perf_source_name
#define rdx_report_src_parse rdx_perf_source_parse

struct rdx_report *
rdx_report_create(const char *title)
{
	struct rdx_report *r;

	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	r->title = strdup(title != NULL ? title : "");
	if (r->title == NULL) {
		free(r);
		rte_errno = ENOMEM;
		return NULL;
	}
	return r;
}

void
rdx_report_free(struct rdx_report *r)
{
	unsigned int i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nb_knobs; i++) {
		free(r->knobs[i].name);
		free(r->knobs[i].value);
	}
	free(r->knobs);
	free(r->rows);
	free(r->title);
	free(r);
}

static int
rdx_report_knob_put(struct rdx_report *r, const char *name, char *value)
{
	struct rdx_knob *k;
	unsigned int i;

	for (i = 0; i < r->nb_knobs; i++) {
		if (strcmp(r->knobs[i].name, name) == 0) {
			free(r->knobs[i].value);
			r->knobs[i].value = value;
			return 0;
		}
	}
	if (r->nb_knobs == r->knobs_cap) {
		unsigned int cap = r->knobs_cap == 0 ? 16 : r->knobs_cap * 2;

		k = realloc(r->knobs, cap * sizeof(*k));
		if (k == NULL)
			goto nomem;
		r->knobs = k;
		r->knobs_cap = cap;
	}
	k = &r->knobs[r->nb_knobs];
	k->name = strdup(name);
	if (k->name == NULL)
		goto nomem;
	k->value = value;
	r->nb_knobs++;
	return 0;
nomem:
	free(value);
	return -ENOMEM;
}

int
rdx_report_knob_set(struct rdx_report *r, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *value;
	int n;

	if (r == NULL || name == NULL || name[0] == '\0' || fmt == NULL)
		return -EINVAL;
	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	return rdx_report_knob_put(r, name, value);
}

const char *
rdx_report_knob_get(const struct rdx_report *r, const char *name)
{
	unsigned int i;

	if (r == NULL || name == NULL)
		return NULL;
	for (i = 0; i < r->nb_knobs; i++)
		if (strcmp(r->knobs[i].name, name) == 0)
			return r->knobs[i].value;
	return NULL;
}

/* Append a row as is (no derived fields): the JSON reader uses it. */
static int
rdx_report_append(struct rdx_report *r, const struct rdx_result *res)
{
	if (r->nb_rows == r->rows_cap) {
		unsigned int cap = r->rows_cap == 0 ? 16 : r->rows_cap * 2;
		struct rdx_result *rows = realloc(r->rows, cap * sizeof(*rows));

		if (rows == NULL)
			return -ENOMEM;
		r->rows = rows;
		r->rows_cap = cap;
	}
	r->rows[r->nb_rows++] = *res;
	return 0;
}

static bool
rdx_report_is_short(const struct rdx_result *x)
{
	return x->ops > 0 && (x->seconds < RDX_REPORT_SHORT_S || x->ops < RDX_REPORT_SHORT_OPS);
}

const char *
rdx_report_lat_label(const char *k)
{
	if (k == NULL || k[0] == '\0')
		return "";
	if (strcmp(k, "half-rtt") == 0)
		return "half RTT";
	if (strcmp(k, "rtt") == 0)
		return "RTT";
	if (strcmp(k, "completion") == 0)
		return "post to completion";
	if (strncmp(k, "loop-rtt/2", 10) == 0)
		return "half of a one-lcore loop";
	if (strcmp(k, "rtt (one lcore)") == 0)
		return "RTT, one lcore";
	return k;
}

int
rdx_report_add(struct rdx_report *r, const struct rdx_result *res)
{
	struct rdx_result row;

	if (r == NULL || res == NULL)
		return -EINVAL;
	row = *res;
	if (row.seconds > 0.0) {
		row.mops = (double)row.ops / row.seconds / 1e6;
		row.mbytes_per_s = (double)row.bytes / row.seconds / 1e6;
		row.gbits_per_s = (double)row.bytes * 8.0 / row.seconds / 1e9;
	} else {
		row.mops = 0.0;
		row.mbytes_per_s = 0.0;
		row.gbits_per_s = 0.0;
	}
	row.short_run = rdx_report_is_short(&row);
	return rdx_report_append(r, &row);
}

unsigned int
rdx_report_count(const struct rdx_report *r)
{
	return r == NULL ? 0 : r->nb_rows;
}

const struct rdx_result *
rdx_report_get(const struct rdx_report *r, unsigned int i)
{
	if (r == NULL || i >= r->nb_rows)
		return NULL;
	return &r->rows[i];
}

/* ---------------------------------------------------------------- table */

static void
rdx_report_put_num(FILE *f, int width, int prec, double v)
{
	if (v < 0.0 || !isfinite(v))
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, " %*.*f", width, prec, v);
}

static void
rdx_report_banner(const struct rdx_report *r, FILE *f)
{
	const char *kind = rdx_report_knob_get(r, "device_kind");
	const char *dev = rdx_report_knob_get(r, "device");

	if (dev == NULL)
		dev = rdx_report_knob_get(r, "dev");

	if (kind == NULL)
		return;
	if (strcmp(kind, "software device") == 0)
		fprintf(f, "*** results on the SOFTWARE mlx5 device (a model, not a NIC)%s%s ***\n",
			dev != NULL ? ": " : "", dev != NULL ? dev : "");
	else if (strcmp(kind, "hardware") == 0)
		fprintf(f, "*** results on HARDWARE%s%s ***\n",
			dev != NULL ? ": " : "", dev != NULL ? dev : "");
	else
		fprintf(f, "*** results on: %s ***\n", kind);
}

int
rdx_report_print_table(const struct rdx_report *r, FILE *f, bool gbits)
{
	const char *line = "---------------------------------------------------------------"
		"---------------------------------------------------------------";
	size_t w = 0;
	unsigned int i, nb_short = 0;

	if (r == NULL || f == NULL)
		return -EINVAL;
	rdx_report_banner(r, f);
	fprintf(f, "%s\n", line);
	fprintf(f, " %s\n", r->title);
	for (i = 0; i < r->nb_knobs; i++)
		if (strlen(r->knobs[i].name) > w)
			w = strlen(r->knobs[i].name);
	for (i = 0; i < r->nb_knobs; i++)
		fprintf(f, " %-*s : %s\n", (int)w, r->knobs[i].name, r->knobs[i].value);
	fprintf(f, "%s\n", line);
	/* units in the names: MB = 10^6 bytes, Gb = 10^9 bits, Mop = 10^6 ops */
	fprintf(f, " %-8s %-4s %9s %5s %5s %12s %9s %10s", "test", "mode", "size_B", "lcore",
		"qps", "ops", "Mop/s", "MB/s(1e6)");
	if (gbits)
		fprintf(f, " %9s", "Gb/s(1e9)");
	fprintf(f, " %9s %9s %9s %9s %9s %9s %9s %9s %6s %9s %9s %9s %-8s %s\n",
		"min_us", "p50_us", "p90_us", "p99_us", "p99.9_us", "max_us", "mean_us", "stdev_us",
		"busy%", "cyc/op", "instr/op", "miss/op", "perf", "note");
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];
		char lc[16];

		if (x->lcore == RDX_REPORT_LCORE_TOTAL)
			snprintf(lc, sizeof(lc), "total");
		else
			snprintf(lc, sizeof(lc), "%d", x->lcore);
		fprintf(f, " %-8s %-4s %9" PRIu64 " %5s %5" PRIu32 " %12" PRIu64 " %9.3f %10.2f",
			x->test, x->mode, x->size, lc, x->qps, x->ops, x->mops, x->mbytes_per_s);
		if (gbits)
			fprintf(f, " %9.2f", x->gbits_per_s);
		if (x->has_lat) {
			rdx_report_put_num(f, 9, 2, x->lat.min / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p50 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p90 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p99 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p999 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.max / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.mean / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.stdev / 1e3);
		} else {
			fprintf(f, " %9s %9s %9s %9s %9s %9s %9s %9s", "-", "-", "-", "-", "-", "-",
				"-", "-");
		}
		rdx_report_put_num(f, 6, 1, x->busy_pct);
		if (x->has_perf) {
			rdx_report_put_num(f, 9, 1, x->perf.cycles);
			rdx_report_put_num(f, 9, 1, x->perf.instructions);
			rdx_report_put_num(f, 9, 3, x->perf.cache_misses);
			fprintf(f, x->short_run ? " %-8s SHORT\n" : " %s\n",
				rdx_report_src_name(x->perf.source));
		} else {
			fprintf(f, " %9s %9s %9s %s\n", "-", "-", "-",
				x->short_run ? "-        SHORT" : "-");
		}
		nb_short += x->short_run;
	}
	fprintf(f, "%s\n", line);
	{
		const char *kind = r->nb_rows > 0 ? r->rows[0].lat_kind : "";

		fprintf(f, " units: MB = 10^6 bytes, Gb = 10^9 bits, Mop/s = 10^6 ops/s; latency in us%s%s%s\n",
			kind[0] != '\0' ? " (" : "", rdx_report_lat_label(kind),
			kind[0] != '\0' ? ")" : "");
	}
	if (nb_short > 0)
		fprintf(f, " SHORT: %u row(s) measured over < %g s or < %u ops: one preemption can move"
			" them several times; run longer (-n / -D)\n", nb_short, RDX_REPORT_SHORT_S,
			RDX_REPORT_SHORT_OPS);
	return ferror(f) ? -EIO : 0;
}

/* ---------------------------------------------------------- clusterperf */

/* A time in ns as value + unit (ns, us, ms, s). */
static void
rdx_report_time_unit(double ns, double *v, const char **unit)
{
	if (ns < 1e3) {
		*v = ns;
		*unit = "ns";
	} else if (ns < 1e6) {
		*v = ns / 1e3;
		*unit = "us";
	} else if (ns < 1e9) {
		*v = ns / 1e6;
		*unit = "ms";
	} else {
		*v = ns / 1e9;
		*unit = "s";
	}
}

/* A bandwidth in bytes/s as value + unit (decimal: 1 KB = 1000 B). */
static void
rdx_report_bw_unit(double bps, double *v, const char **unit)
{
	if (bps < 1e3) {
		*v = bps;
		*unit = "B/s";
	} else if (bps < 1e6) {
		*v = bps / 1e3;
		*unit = "KB/s";
	} else if (bps < 1e9) {
		*v = bps / 1e6;
		*unit = "MB/s";
	} else {
		*v = bps / 1e9;
		*unit = "GB/s";
	}
}

static void
rdx_report_cp_line(FILE *f, const char *name, const char *suffix, double v, const char *unit,
		   const char *desc, const char *what, const char *kind, bool is_short)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", name, suffix);
	fprintf(f, "%-24s %8.1f %-4s  %s%s%s%s%s%s%s\n", key, v, unit, desc,
		desc[0] != '\0' ? " " : "", what, kind[0] != '\0' ? " (" : "", kind,
		kind[0] != '\0' ? ")" : "", is_short ? " [SHORT]" : "");
}

int
rdx_report_print_clusterperf(const struct rdx_report *r, FILE *f)
{
	static const struct {
		const char *suffix;
		const char *what;
		size_t off;
	} pct[] = {
		{ "min", "minimum", offsetof(struct rdx_hist_summary, min) },
		{ "50", "median", offsetof(struct rdx_hist_summary, p50) },
		{ "90", "90%", offsetof(struct rdx_hist_summary, p90) },
		{ "99", "99%", offsetof(struct rdx_hist_summary, p99) },
		{ "999", "99.9%", offsetof(struct rdx_hist_summary, p999) },
		{ "9999", "99.99%", offsetof(struct rdx_hist_summary, p9999) },
		{ "max", "maximum", offsetof(struct rdx_hist_summary, max) },
	};
	unsigned int i, j;
	const char *unit;
	double v;

	if (r == NULL || f == NULL)
		return -EINVAL;
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];

		if (x->name[0] == '\0' || x->lcore != RDX_REPORT_LCORE_TOTAL)
			continue;
		if (x->has_lat && x->lat.count > 0) {
			for (j = 0; j < sizeof(pct) / sizeof(pct[0]); j++) {
				double ns;

				memcpy(&ns, (const char *)&x->lat + pct[j].off, sizeof(ns));
				rdx_report_time_unit(ns, &v, &unit);
				rdx_report_cp_line(f, x->name, pct[j].suffix, v, unit, x->desc,
						   pct[j].what, rdx_report_lat_label(x->lat_kind),
						   x->short_run);
			}
		}
		if (x->mbytes_per_s > 0.0) {
			rdx_report_bw_unit(x->mbytes_per_s * 1e6, &v, &unit);
			rdx_report_cp_line(f, x->name, "bw", v, unit, x->desc, "bandwidth",
					   "decimal: 1 MB = 10^6 B", x->short_run);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ----------------------------------------------------------------- JSON */

/* A finite double, or null (jansson refuses NaN and infinities). */
static json_t *
rdx_report_jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int
rdx_report_jset(json_t *o, const char *key, json_t *v)
{
	return v == NULL ? -1 : json_object_set_new(o, key, v);
}

static json_t *
rdx_report_row_to_json(const struct rdx_result *x)
{
	json_t *o = json_object(), *lat, *perf;
	int rc = 0;

	if (o == NULL)
		return NULL;
	rc |= rdx_report_jset(o, "test", json_string(x->test));
	rc |= rdx_report_jset(o, "mode", json_string(x->mode));
	rc |= rdx_report_jset(o, "name", json_string(x->name));
	rc |= rdx_report_jset(o, "desc", json_string(x->desc));
	rc |= rdx_report_jset(o, "lat_kind", json_string(x->lat_kind));
	rc |= rdx_report_jset(o, "size", json_integer((json_int_t)x->size));
	rc |= rdx_report_jset(o, "lcore", json_integer(x->lcore));
	rc |= rdx_report_jset(o, "qps", json_integer(x->qps));
	rc |= rdx_report_jset(o, "ops", json_integer((json_int_t)x->ops));
	rc |= rdx_report_jset(o, "bytes", json_integer((json_int_t)x->bytes));
	rc |= rdx_report_jset(o, "seconds", rdx_report_jreal(x->seconds));
	rc |= rdx_report_jset(o, "mops", rdx_report_jreal(x->mops));
	rc |= rdx_report_jset(o, "mbytes_per_s", rdx_report_jreal(x->mbytes_per_s));
	rc |= rdx_report_jset(o, "gbits_per_s", rdx_report_jreal(x->gbits_per_s));
	rc |= rdx_report_jset(o, "busy_pct", rdx_report_jreal(x->busy_pct));
	rc |= rdx_report_jset(o, "short_run", json_boolean(x->short_run));
	rc |= rdx_report_jset(o, "has_lat", json_boolean(x->has_lat));
	if (x->has_lat) {
		lat = json_object();
		rc |= rdx_report_jset(o, "lat", lat);
		if (lat != NULL) {
			rc |= rdx_report_jset(lat, "count", json_integer((json_int_t)x->lat.count));
			rc |= rdx_report_jset(lat, "min", rdx_report_jreal(x->lat.min));
			rc |= rdx_report_jset(lat, "p50", rdx_report_jreal(x->lat.p50));
			rc |= rdx_report_jset(lat, "p90", rdx_report_jreal(x->lat.p90));
			rc |= rdx_report_jset(lat, "p99", rdx_report_jreal(x->lat.p99));
			rc |= rdx_report_jset(lat, "p999", rdx_report_jreal(x->lat.p999));
			rc |= rdx_report_jset(lat, "p9999", rdx_report_jreal(x->lat.p9999));
			rc |= rdx_report_jset(lat, "max", rdx_report_jreal(x->lat.max));
			rc |= rdx_report_jset(lat, "mean", rdx_report_jreal(x->lat.mean));
			rc |= rdx_report_jset(lat, "stdev", rdx_report_jreal(x->lat.stdev));
		}
	} else {
		rc |= rdx_report_jset(o, "lat", json_null());
	}
	rc |= rdx_report_jset(o, "has_perf", json_boolean(x->has_perf));
	if (x->has_perf) {
		perf = json_object();
		rc |= rdx_report_jset(o, "perf", perf);
		if (perf != NULL) {
			rc |= rdx_report_jset(perf, "source",
					      json_string(rdx_report_src_name(x->perf.source)));
			rc |= rdx_report_jset(perf, "cycles", rdx_report_jreal(x->perf.cycles));
			rc |= rdx_report_jset(perf, "instructions",
					      rdx_report_jreal(x->perf.instructions));
			rc |= rdx_report_jset(perf, "cache_misses",
					      rdx_report_jreal(x->perf.cache_misses));
			rc |= rdx_report_jset(perf, "branch_misses",
					      rdx_report_jreal(x->perf.branch_misses));
			rc |= rdx_report_jset(perf, "task_clock_ns",
					      rdx_report_jreal(x->perf.task_clock_ns));
			rc |= rdx_report_jset(perf, "ctx_switches",
					      rdx_report_jreal(x->perf.ctx_switches));
			rc |= rdx_report_jset(perf, "page_faults",
					      rdx_report_jreal(x->perf.page_faults));
		}
	} else {
		rc |= rdx_report_jset(o, "perf", json_null());
	}
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
rdx_report_write_json(const struct rdx_report *r, const char *path)
{
	json_t *root, *knobs, *results, *row;
	unsigned int i;
	int rc = 0;

	if (r == NULL || path == NULL)
		return -EINVAL;
	for (i = 0; i < r->nb_rows; i++)
		if (r->rows[i].size > INT64_MAX || r->rows[i].ops > INT64_MAX ||
		    r->rows[i].bytes > INT64_MAX || r->rows[i].lat.count > INT64_MAX)
			return -ERANGE;
	root = json_object();
	knobs = json_object();
	results = json_array();
	if (root == NULL || knobs == NULL || results == NULL) {
		json_decref(root);
		json_decref(knobs);
		json_decref(results);
		return -ENOMEM;
	}
	rc |= rdx_report_jset(root, "rdx_version", json_string(RDX_VERSION_STR));
	rc |= rdx_report_jset(root, "title", json_string(r->title));
	rc |= rdx_report_jset(root, "knobs", knobs);
	rc |= rdx_report_jset(root, "results", results);
	for (i = 0; i < r->nb_knobs; i++)
		rc |= rdx_report_jset(knobs, r->knobs[i].name, json_string(r->knobs[i].value));
	for (i = 0; i < r->nb_rows && rc == 0; i++) {
		row = rdx_report_row_to_json(&r->rows[i]);
		rc |= row == NULL ? -1 : json_array_append_new(results, row);
	}
	if (rc != 0) {
		json_decref(root);
		return -ENOMEM;
	}
	/* jansson prints reals with 17 significant digits: they read back equal. */
	rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return rc == 0 ? 0 : -EIO;
}

struct rdx_json_ctx {
	const char *path;
	char *err;
	size_t errlen;
	char where[64];
};

static int
rdx_json_fail(struct rdx_json_ctx *c, const char *key, const char *what)
{
	if (c->err != NULL)
		snprintf(c->err, c->errlen, "%s: %s%s%s: %s", c->path, c->where,
			 c->where[0] != '\0' ? "." : "", key, what);
	return -EINVAL;
}

static int
rdx_json_str(struct rdx_json_ctx *c, json_t *o, const char *key, char *dst, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return rdx_json_fail(c, key, "missing or not a string");
	if (json_string_length(v) >= len)
		return rdx_json_fail(c, key, "string too long");
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int
rdx_json_int(struct rdx_json_ctx *c, json_t *o, const char *key, json_int_t lo, json_int_t hi,
	     json_int_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return rdx_json_fail(c, key, "missing or not an integer");
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return rdx_json_fail(c, key, "out of range");
	return 0;
}

static int
rdx_json_u64(struct rdx_json_ctx *c, json_t *o, const char *key, uint64_t *out)
{
	json_int_t v = 0;
	int rc = rdx_json_int(c, o, key, 0, INT64_MAX, &v);

	if (rc == 0)
		*out = (uint64_t)v;
	return rc;
}

/* A number (integer or real); null reads as NaN (what the writer does with it). */
static int
rdx_json_num(struct rdx_json_ctx *c, json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return rdx_json_fail(c, key, "missing or not a number");
	*out = json_number_value(v);
	return 0;
}

static int
rdx_json_bool(struct rdx_json_ctx *c, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return rdx_json_fail(c, key, "missing or not a boolean");
	*out = json_is_true(v);
	return 0;
}

static int
rdx_json_row(struct rdx_json_ctx *c, json_t *o, struct rdx_result *x)
{
	json_int_t v = 0;
	json_t *sub;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	if (!json_is_object(o))
		return rdx_json_fail(c, "", "not an object");
	rc = rc ? rc : rdx_json_str(c, o, "test", x->test, sizeof(x->test));
	rc = rc ? rc : rdx_json_str(c, o, "mode", x->mode, sizeof(x->mode));
	rc = rc ? rc : rdx_json_str(c, o, "name", x->name, sizeof(x->name));
	rc = rc ? rc : rdx_json_str(c, o, "desc", x->desc, sizeof(x->desc));
	rc = rc ? rc : rdx_json_str(c, o, "lat_kind", x->lat_kind, sizeof(x->lat_kind));
	rc = rc ? rc : rdx_json_u64(c, o, "size", &x->size);
	rc = rc ? rc : rdx_json_int(c, o, "lcore", RDX_REPORT_LCORE_TOTAL, INT32_MAX, &v);
	x->lcore = (int)v;
	rc = rc ? rc : rdx_json_int(c, o, "qps", 0, UINT32_MAX, &v);
	x->qps = (uint32_t)v;
	rc = rc ? rc : rdx_json_u64(c, o, "ops", &x->ops);
	rc = rc ? rc : rdx_json_u64(c, o, "bytes", &x->bytes);
	rc = rc ? rc : rdx_json_num(c, o, "seconds", &x->seconds);
	rc = rc ? rc : rdx_json_num(c, o, "mops", &x->mops);
	rc = rc ? rc : rdx_json_num(c, o, "mbytes_per_s", &x->mbytes_per_s);
	rc = rc ? rc : rdx_json_num(c, o, "gbits_per_s", &x->gbits_per_s);
	rc = rc ? rc : rdx_json_num(c, o, "busy_pct", &x->busy_pct);
	rc = rc ? rc : rdx_json_bool(c, o, "has_lat", &x->has_lat);
	rc = rc ? rc : rdx_json_bool(c, o, "has_perf", &x->has_perf);
	if (rc != 0)
		return rc;
	/* optional (reports before it was added): derived as rdx_report_add does */
	if (json_object_get(o, "short_run") != NULL)
		rc = rdx_json_bool(c, o, "short_run", &x->short_run);
	else
		x->short_run = rdx_report_is_short(x);
	if (rc != 0)
		return rc;
	if (x->has_lat) {
		sub = json_object_get(o, "lat");
		if (!json_is_object(sub))
			return rdx_json_fail(c, "lat", "missing or not an object");
		strcat(c->where, ".lat");
		rc = rc ? rc : rdx_json_u64(c, sub, "count", &x->lat.count);
		rc = rc ? rc : rdx_json_num(c, sub, "min", &x->lat.min);
		rc = rc ? rc : rdx_json_num(c, sub, "p50", &x->lat.p50);
		rc = rc ? rc : rdx_json_num(c, sub, "p90", &x->lat.p90);
		rc = rc ? rc : rdx_json_num(c, sub, "p99", &x->lat.p99);
		rc = rc ? rc : rdx_json_num(c, sub, "p999", &x->lat.p999);
		rc = rc ? rc : rdx_json_num(c, sub, "p9999", &x->lat.p9999);
		rc = rc ? rc : rdx_json_num(c, sub, "max", &x->lat.max);
		rc = rc ? rc : rdx_json_num(c, sub, "mean", &x->lat.mean);
		rc = rc ? rc : rdx_json_num(c, sub, "stdev", &x->lat.stdev);
		*strrchr(c->where, '.') = '\0';
		if (rc != 0)
			return rc;
	}
	if (x->has_perf) {
		json_t *src;

		sub = json_object_get(o, "perf");
		if (!json_is_object(sub))
			return rdx_json_fail(c, "perf", "missing or not an object");
		src = json_object_get(sub, "source");
		if (!json_is_string(src) ||
		    rdx_report_src_parse(json_string_value(src), &x->perf.source) != 0)
			return rdx_json_fail(c, "perf.source", "not one of hw, sw+tsc, tsc-only");
		strcat(c->where, ".perf");
		rc = rc ? rc : rdx_json_num(c, sub, "cycles", &x->perf.cycles);
		rc = rc ? rc : rdx_json_num(c, sub, "instructions", &x->perf.instructions);
		rc = rc ? rc : rdx_json_num(c, sub, "cache_misses", &x->perf.cache_misses);
		rc = rc ? rc : rdx_json_num(c, sub, "branch_misses", &x->perf.branch_misses);
		rc = rc ? rc : rdx_json_num(c, sub, "task_clock_ns", &x->perf.task_clock_ns);
		rc = rc ? rc : rdx_json_num(c, sub, "ctx_switches", &x->perf.ctx_switches);
		rc = rc ? rc : rdx_json_num(c, sub, "page_faults", &x->perf.page_faults);
		*strrchr(c->where, '.') = '\0';
	}
	return rc;
}

struct rdx_report *
rdx_report_read_json_msg(const char *path, char *errbuf, size_t errlen)
{
	struct rdx_json_ctx c = { .path = path, .err = errbuf, .errlen = errlen };
	struct rdx_report *r = NULL;
	json_t *root, *knobs, *results, *v;
	struct rdx_result row;
	json_error_t jerr;
	const char *key;
	size_t i;
	int rc = 0;

	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	if (path == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	root = json_load_file(path, 0, &jerr);
	if (root == NULL) {
		if (errbuf != NULL)
			snprintf(errbuf, errlen, "%s:%d: %s", path, jerr.line, jerr.text);
		rte_errno = json_error_code(&jerr) == json_error_cannot_open_file ? ENOENT : EINVAL;
		return NULL;
	}
	if (!json_is_object(root)) {
		rc = rdx_json_fail(&c, "(top)", "not an object");
		goto out;
	}
	v = json_object_get(root, "title");
	knobs = json_object_get(root, "knobs");
	results = json_object_get(root, "results");
	if (!json_is_string(json_object_get(root, "rdx_version"))) {
		rc = rdx_json_fail(&c, "rdx_version", "missing or not a string");
		goto out;
	}
	if (!json_is_string(v)) {
		rc = rdx_json_fail(&c, "title", "missing or not a string");
		goto out;
	}
	if (!json_is_object(knobs)) {
		rc = rdx_json_fail(&c, "knobs", "missing or not an object");
		goto out;
	}
	if (!json_is_array(results)) {
		rc = rdx_json_fail(&c, "results", "missing or not an array");
		goto out;
	}
	r = rdx_report_create(json_string_value(v));
	if (r == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	json_object_foreach(knobs, key, v) {
		char *s;

		if (!json_is_string(v)) {
			snprintf(c.where, sizeof(c.where), "knobs");
			rc = rdx_json_fail(&c, key, "not a string");
			goto out;
		}
		s = strdup(json_string_value(v));
		rc = s == NULL ? -ENOMEM : rdx_report_knob_put(r, key, s);
		if (rc != 0)
			goto out;
	}
	json_array_foreach(results, i, v) {
		snprintf(c.where, sizeof(c.where), "results[%zu]", i);
		rc = rdx_json_row(&c, v, &row);
		if (rc == 0)
			rc = rdx_report_append(r, &row);
		if (rc != 0)
			goto out;
	}
out:
	json_decref(root);
	if (rc != 0) {
		rdx_report_free(r);
		rte_errno = -rc;
		return NULL;
	}
	return r;
}

struct rdx_report *
rdx_report_read_json(const char *path)
{
	return rdx_report_read_json_msg(path, NULL, 0);
}

/* ------------------------------------------------------------------ CSV */

static void
rdx_csv_str(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
	    (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A figure; empty when unknown (negative or not finite) and unknown_neg. */
static void
rdx_csv_num(FILE *f, double v, bool unknown_neg)
{
	if (!isfinite(v) || (unknown_neg && v < 0.0))
		fputc(',', f);
	else
		fprintf(f, ",%.10g", v);
}

int
rdx_report_write_csv(const struct rdx_report *r, const char *path)
{
	unsigned int i, j;
	FILE *f;
	char name[256];
	int rc;

	if (r == NULL || path == NULL)
		return -EINVAL;
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	for (j = 0; j < RDX_REPORT_CSV_NB_COLS; j++)
		rdx_csv_str(f, rdx_report_csv_cols[j], j == 0);
	for (j = 0; j < r->nb_knobs; j++) {
		snprintf(name, sizeof(name), "knob.%s", r->knobs[j].name);
		rdx_csv_str(f, name, false);
	}
	fputs("\n", f);
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];
		const struct rdx_hist_summary *l = &x->lat;
		const struct rdx_perf_per_op *p = &x->perf;

		rdx_csv_str(f, x->test, true);
		rdx_csv_str(f, x->mode, false);
		rdx_csv_str(f, x->name, false);
		rdx_csv_str(f, x->desc, false);
		rdx_csv_str(f, x->lat_kind, false);
		fprintf(f, ",%" PRIu64, x->size);
		if (x->lcore == RDX_REPORT_LCORE_TOTAL)
			fputs(",total", f);
		else
			fprintf(f, ",%d", x->lcore);
		fprintf(f, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, x->qps, x->ops, x->bytes);
		rdx_csv_num(f, x->seconds, false);
		rdx_csv_num(f, x->mops, false);
		rdx_csv_num(f, x->mbytes_per_s, false);
		rdx_csv_num(f, x->gbits_per_s, false);
		rdx_csv_num(f, x->busy_pct, true);
		if (x->has_lat) {
			fprintf(f, ",%" PRIu64, l->count);
			rdx_csv_num(f, l->min, false);
			rdx_csv_num(f, l->p50, false);
			rdx_csv_num(f, l->p90, false);
			rdx_csv_num(f, l->p99, false);
			rdx_csv_num(f, l->p999, false);
			rdx_csv_num(f, l->p9999, false);
			rdx_csv_num(f, l->max, false);
			rdx_csv_num(f, l->mean, false);
			rdx_csv_num(f, l->stdev, false);
		} else {
			fputs(",,,,,,,,,,", f);
		}
		if (x->has_perf) {
			fprintf(f, ",%s", rdx_report_src_name(p->source));
			rdx_csv_num(f, p->cycles, true);
			rdx_csv_num(f, p->instructions, true);
			rdx_csv_num(f, p->cache_misses, true);
			rdx_csv_num(f, p->branch_misses, true);
			rdx_csv_num(f, p->task_clock_ns, true);
			rdx_csv_num(f, p->ctx_switches, true);
			rdx_csv_num(f, p->page_faults, true);
		} else {
			fputs(",,,,,,,,", f);
		}
		fputs(x->short_run ? ",1" : ",0", f);
		for (j = 0; j < r->nb_knobs; j++)
			rdx_csv_str(f, r->knobs[j].value, false);
		fputs("\n", f);
	}
	rc = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}
