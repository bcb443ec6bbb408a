/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark reports as JSON (jansson): the writer, and the reader that
 * refuses a malformed file with one line naming the field
 * (lib/stats/rdx-report.schema.json describes the format).
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
#include "rdx_report_priv.h"

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

/* [[lo_ns, hi_ns, count], ...] */
static json_t *
rdx_report_buckets_to_json(const struct rdx_lat_bucket *b, unsigned int n)
{
	json_t *a = json_array(), *e;
	unsigned int i;
	int rc = 0;

	if (a == NULL)
		return NULL;
	for (i = 0; i < n && rc == 0; i++) {
		if (b[i].count > INT64_MAX) {
			rc = -1;
			break;
		}
		e = json_pack("[f, f, I]", b[i].lo_ns, b[i].hi_ns, (json_int_t)b[i].count);
		rc = e == NULL ? -1 : json_array_append_new(a, e);
	}
	if (rc != 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *
rdx_report_row_to_json(const struct rdx_result *x, const struct rdx_lat_bucket *b,
		       unsigned int nb)
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
	/* exact: the figures above are rounded units of it */
	rc |= rdx_report_jset(o, "bytes_per_s", rdx_report_jreal(x->seconds > 0 ?
						(double)x->bytes / x->seconds : 0.0));
	if (x->offered_ops_per_s > 0)
		rc |= rdx_report_jset(o, "offered_ops_per_s", rdx_report_jreal(x->offered_ops_per_s));
	if (x->peak_bytes_per_s > 0)
		rc |= rdx_report_jset(o, "peak_bytes_per_s", rdx_report_jreal(x->peak_bytes_per_s));
	rc |= rdx_report_jset(o, "busy_pct", rdx_report_jreal(x->busy_pct));
	if (x->tx_depth != 0)
		rc |= rdx_report_jset(o, "tx_depth", json_integer(x->tx_depth));
	if (x->has_cas) {
		rc |= rdx_report_jset(o, "cas_swapped", json_integer((json_int_t)x->cas_ok));
		rc |= rdx_report_jset(o, "cas_failed", json_integer((json_int_t)x->cas_fail));
	}
	if (x->has_cpu_util && x->cpu_util_pct >= 0)
		rc |= rdx_report_jset(o, "cpu_util_pct", rdx_report_jreal(x->cpu_util_pct));
	rc |= rdx_report_jset(o, "short_run", json_boolean(x->short_run));
	rc |= rdx_report_jset(o, "cut_short", json_boolean(x->cut_short));
	if (x->has_rank) {
		rc |= rdx_report_jset(o, "rank", json_integer(x->rank));
		rc |= rdx_report_jset(o, "host", json_string(x->host));
	}
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
			if (nb != 0)
				rc |= rdx_report_jset(lat, "buckets",
						      rdx_report_buckets_to_json(b, nb));
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
					      json_string(rdx_perf_source_name(x->perf.source)));
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

/* [{"test", "mode", "size", "qps"[, "offered_ops_per_s"]}, ...] */
static json_t *
rdx_report_not_run_to_json(const struct rdx_report *r)
{
	json_t *a = json_array(), *e;
	unsigned int i;
	int rc = 0;

	if (a == NULL)
		return NULL;
	for (i = 0; i < r->nb_not_run && rc == 0; i++) {
		const struct rdx_not_run *n = &r->not_run[i];

		e = json_pack("{s:s, s:s, s:I, s:I}", "test", n->test, "mode", n->mode,
			      "size", (json_int_t)n->size, "qps", (json_int_t)n->qps);
		if (e != NULL && n->offered_ops_per_s > 0)
			rc |= rdx_report_jset(e, "offered_ops_per_s",
					      rdx_report_jreal(n->offered_ops_per_s));
		rc |= e == NULL ? -1 : json_array_append_new(a, e);
	}
	if (rc != 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/*
 * Write root to path; a full disk shows at the write, the flush or the
 * close (stdio buffers): each is checked, the first failure's errno
 * returned (-ENOSPC for /dev/full).
 */
static int
rdx_report_dump(const json_t *root, const char *path)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (f == NULL)
		return -errno;
	/* jansson prints reals with 17 significant digits: they read back equal. */
	errno = 0;
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || ferror(f))
		rc = errno != 0 ? -errno : -EIO;
	if (rc == 0 && fflush(f) != 0)
		rc = errno != 0 ? -errno : -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = errno != 0 ? -errno : -EIO;
	return rc;
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
	for (i = 0; i < r->nb_not_run; i++)
		if (r->not_run[i].size > INT64_MAX)
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
	rc |= rdx_report_jset(root, "status", json_string(rdx_report_status_name(r->status)));
	if (r->reason != NULL)
		rc |= rdx_report_jset(root, "status_reason", json_string(r->reason));
	if (r->measured_s >= 0.0)
		rc |= rdx_report_jset(root, "measured_s", rdx_report_jreal(r->measured_s));
	rc |= rdx_report_jset(root, "not_run", rdx_report_not_run_to_json(r));
	rc |= rdx_report_jset(root, "units", json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
		"bytes_per_s", "bytes per second (exact)",
		"peak_bytes_per_s", "bytes per second (perftest's BW peak)",
		"mbytes_per_s", "10^6 bytes per second (MB/s; perftest's MiB/s is 2^20)",
		"gbits_per_s", "10^9 bits per second",
		"mops", "10^6 operations per second",
		"lat", "nanoseconds",
		"offered_ops_per_s", "operations per second offered (open loop)",
		"seconds", "seconds",
		"measured_s", "seconds"));
	rc |= rdx_report_jset(root, "knobs", knobs);
	rc |= rdx_report_jset(root, "results", results);
	for (i = 0; i < r->nb_knobs; i++)
		rc |= rdx_report_jset(knobs, r->knobs[i].name, json_string(r->knobs[i].value));
	for (i = 0; i < r->nb_rows && rc == 0; i++) {
		unsigned int nb;
		const struct rdx_lat_bucket *b = rdx_report_lat_buckets(r, i, &nb);

		row = rdx_report_row_to_json(&r->rows[i], b, nb);
		rc |= row == NULL ? -1 : json_array_append_new(results, row);
	}
	if (rc != 0) {
		json_decref(root);
		return -ENOMEM;
	}
	rc = rdx_report_dump(root, path);
	json_decref(root);
	return rc;
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

/*
 * "lat"."buckets" (optional): at most one per histogram bucket and the
 * overflow, each [lo_ns, hi_ns, count] with 0 <= lo <= hi, ascending and
 * not overlapping, counts summing to lat.count. *out NULL when absent.
 */
static int
rdx_json_buckets(struct rdx_json_ctx *c, json_t *lat, uint64_t count,
		 struct rdx_lat_bucket **out, unsigned int *nb)
{
	json_t *a = json_object_get(lat, "buckets"), *e;
	struct rdx_lat_bucket *b;
	uint64_t sum = 0;
	double prev = 0.0;
	size_t i, n;

	*out = NULL;
	*nb = 0;
	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return rdx_json_fail(c, "buckets", "not an array");
	n = json_array_size(a);
	if (n == 0)
		return 0;
	if (n > RDX_HIST_BUCKETS + 1)
		return rdx_json_fail(c, "buckets", "more than the histogram has");
	b = calloc(n, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	json_array_foreach(a, i, e) {
		json_t *lo = json_array_get(e, 0), *hi = json_array_get(e, 1);
		json_t *k = json_array_get(e, 2);

		if (!json_is_array(e) || json_array_size(e) != 3 || !json_is_number(lo) ||
		    !json_is_number(hi) || !json_is_integer(k) || json_integer_value(k) < 0) {
			free(b);
			return rdx_json_fail(c, "buckets", "an entry is not [lo_ns, hi_ns, count]");
		}
		b[i].lo_ns = json_number_value(lo);
		b[i].hi_ns = json_number_value(hi);
		b[i].count = (uint64_t)json_integer_value(k);
		if (!isfinite(b[i].lo_ns) || !isfinite(b[i].hi_ns) || b[i].lo_ns < prev ||
		    b[i].hi_ns < b[i].lo_ns) {
			free(b);
			return rdx_json_fail(c, "buckets", "not ascending, disjoint ranges");
		}
		prev = b[i].hi_ns;
		if (b[i].count > UINT64_MAX - sum) {
			free(b);
			return rdx_json_fail(c, "buckets", "counts overflow");
		}
		sum += b[i].count;
	}
	if (sum != count) {
		free(b);
		return rdx_json_fail(c, "buckets", "counts do not sum to lat.count");
	}
	*out = b;
	*nb = (unsigned int)n;
	return 0;
}

static int
rdx_json_row_fields(struct rdx_json_ctx *c, json_t *o, struct rdx_result *x,
		    struct rdx_lat_bucket **b, unsigned int *nb)
{
	json_int_t v = 0;
	json_t *sub;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	*b = NULL;
	*nb = 0;
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
	if (json_object_get(o, "offered_ops_per_s") != NULL)
		rc = rdx_json_num(c, o, "offered_ops_per_s", &x->offered_ops_per_s);
	if (rc == 0 && json_object_get(o, "peak_bytes_per_s") != NULL)
		rc = rdx_json_num(c, o, "peak_bytes_per_s", &x->peak_bytes_per_s);
	if (rc == 0 && json_object_get(o, "tx_depth") != NULL) {
		uint64_t depth = 0;

		rc = rdx_json_u64(c, o, "tx_depth", &depth);
		if (rc == 0 && depth > UINT32_MAX)
			rc = -EINVAL;
		x->tx_depth = (uint32_t)depth;
	}
	if (rc == 0 && json_object_get(o, "cas_swapped") != NULL) {
		rc = rdx_json_u64(c, o, "cas_swapped", &x->cas_ok);
		rc = rc ? rc : rdx_json_u64(c, o, "cas_failed", &x->cas_fail);
		x->has_cas = rc == 0;
	}
	if (rc == 0 && json_object_get(o, "cpu_util_pct") != NULL) {
		rc = rdx_json_num(c, o, "cpu_util_pct", &x->cpu_util_pct);
		x->has_cpu_util = rc == 0;
	}
	if (rc != 0)
		return rc;
	/* optional (reports before it was added): derived as rdx_report_add does */
	if (json_object_get(o, "short_run") != NULL)
		rc = rdx_json_bool(c, o, "short_run", &x->short_run);
	else
		x->short_run = rdx_report_is_short(x);
	if (rc != 0)
		return rc;
	/* optional (reports before it was added): a full row */
	if (json_object_get(o, "cut_short") != NULL)
		rc = rdx_json_bool(c, o, "cut_short", &x->cut_short);
	if (rc != 0)
		return rc;
	/* optional: rows of an MPI run (rdx-perf --pattern) */
	if (json_object_get(o, "rank") != NULL) {
		x->has_rank = true;
		rc = rdx_json_int(c, o, "rank", -1, INT32_MAX, &v);
		x->rank = (int)v;
		rc = rc ? rc : rdx_json_str(c, o, "host", x->host, sizeof(x->host));
		if (rc != 0)
			return rc;
	}
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
		rc = rc ? rc : rdx_json_buckets(c, sub, x->lat.count, b, nb);
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
		    rdx_perf_source_parse(json_string_value(src), &x->perf.source) != 0)
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

/* One row; its buckets (*b, taken over by the caller) only when it is good. */
static int
rdx_json_row(struct rdx_json_ctx *c, json_t *o, struct rdx_result *x,
	     struct rdx_lat_bucket **b, unsigned int *nb)
{
	int rc = rdx_json_row_fields(c, o, x, b, nb);

	if (rc != 0) {
		free(*b);
		*b = NULL;
		*nb = 0;
	}
	return rc;
}

/* One entry of "not_run". */
static int
rdx_json_not_run(struct rdx_json_ctx *c, json_t *o, struct rdx_not_run *n)
{
	json_int_t v = 0;
	int rc = 0;

	memset(n, 0, sizeof(*n));
	if (!json_is_object(o))
		return rdx_json_fail(c, "", "not an object");
	rc = rc ? rc : rdx_json_str(c, o, "test", n->test, sizeof(n->test));
	rc = rc ? rc : rdx_json_str(c, o, "mode", n->mode, sizeof(n->mode));
	rc = rc ? rc : rdx_json_u64(c, o, "size", &n->size);
	rc = rc ? rc : rdx_json_int(c, o, "qps", 0, UINT32_MAX, &v);
	n->qps = (uint32_t)v;
	if (rc == 0 && json_object_get(o, "offered_ops_per_s") != NULL)
		rc = rdx_json_num(c, o, "offered_ops_per_s", &n->offered_ops_per_s);
	return rc;
}

/*
 * "status", "status_reason", "measured_s", "not_run": optional (reports
 * before them read as completed), refused when present and malformed.
 */
static int
rdx_json_status(struct rdx_json_ctx *c, json_t *root, struct rdx_report *r)
{
	json_t *st = json_object_get(root, "status"), *why = json_object_get(root, "status_reason");
	json_t *secs = json_object_get(root, "measured_s"), *nr = json_object_get(root, "not_run");
	enum rdx_report_status s = RDX_REPORT_STATUS_COMPLETED;
	struct rdx_not_run n;
	double m = -1.0;
	json_t *e;
	size_t i;
	int rc;

	if (st != NULL && (!json_is_string(st) ||
			   rdx_report_status_parse(json_string_value(st), &s) != 0))
		return rdx_json_fail(c, "status", "not one of completed, interrupted, failed");
	if (why != NULL && !json_is_string(why))
		return rdx_json_fail(c, "status_reason", "not a string");
	if (secs != NULL && (!json_is_number(secs) || json_number_value(secs) < 0))
		return rdx_json_fail(c, "measured_s", "not a number >= 0");
	if (secs != NULL)
		m = json_number_value(secs);
	rc = rdx_report_status_set(r, s, m, why != NULL ? json_string_value(why) : NULL);
	if (rc != 0 || nr == NULL)
		return rc;
	if (!json_is_array(nr))
		return rdx_json_fail(c, "not_run", "not an array");
	json_array_foreach(nr, i, e) {
		snprintf(c->where, sizeof(c->where), "not_run[%zu]", i);
		rc = rdx_json_not_run(c, e, &n);
		if (rc == 0)
			rc = rdx_report_not_run_add(r, &n);
		if (rc != 0)
			return rc;
	}
	c->where[0] = '\0';
	return 0;
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
	rc = rdx_json_status(&c, root, r);
	if (rc != 0)
		goto out;
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
		struct rdx_lat_bucket *b;
		unsigned int nb;

		snprintf(c.where, sizeof(c.where), "results[%zu]", i);
		rc = rdx_json_row(&c, v, &row, &b, &nb);
		if (rc == 0)
			rc = rdx_report_append(r, &row, b, nb);
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
