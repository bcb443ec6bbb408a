/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark reports: the model (knobs, result rows and their derived
 * fields). The output formats are rdx_report_text.c (table, clusterperf
 * lines), rdx_report_json.c (JSON writer and reader) and rdx_report_csv.c.
 * Control path only.
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

#include "rdx_config.h"
#include "rdx_perf.h"
#include "rdx_report.h"
#include "rdx_report_priv.h"

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
	r->measured_s = -1.0;
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
	for (i = 0; i < r->nb_rows; i++)
		free(r->buckets[i].b);
	free(r->buckets);
	free(r->rows);
	free(r->reason);
	free(r->not_run);
	free(r->title);
	free(r);
}

int
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

int
rdx_report_append(struct rdx_report *r, const struct rdx_result *res, struct rdx_lat_bucket *b,
		  unsigned int nb)
{
	if (r->nb_rows == r->rows_cap) {
		unsigned int cap = r->rows_cap == 0 ? 16 : r->rows_cap * 2;
		struct rdx_result *rows = realloc(r->rows, cap * sizeof(*rows));
		struct rdx_row_buckets *bk;

		if (rows == NULL) {
			free(b);
			return -ENOMEM;
		}
		r->rows = rows;
		bk = realloc(r->buckets, cap * sizeof(*bk));
		if (bk == NULL) {
			free(b);
			return -ENOMEM;
		}
		r->buckets = bk;
		r->rows_cap = cap;
	}
	r->buckets[r->nb_rows].b = b;
	r->buckets[r->nb_rows].n = b != NULL ? nb : 0;
	r->rows[r->nb_rows++] = *res;
	return 0;
}

/* The non-empty buckets of h in ns, narrowed to [min, max]; NULL + 0 when empty. */
static int
rdx_report_buckets_of(const struct rdx_hist *h, uint64_t tsc_hz, struct rdx_lat_bucket **out,
		      unsigned int *nb)
{
	const double f = tsc_hz == 0 ? 1.0 : 1e9 / (double)tsc_hz;
	struct rdx_lat_bucket *b;
	unsigned int i, n = h->overflow != 0;
	uint64_t lo, width, hi;

	*out = NULL;
	*nb = 0;
	for (i = 0; i < RDX_HIST_BUCKETS; i++)
		n += h->buckets[i] != 0;
	if (n == 0)
		return 0;
	b = calloc(n, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < RDX_HIST_BUCKETS; i++) {
		if (h->buckets[i] == 0)
			continue;
		rdx_hist_bucket_range(i, &lo, &width);
		hi = lo + width;
		if (lo < h->min)
			lo = h->min;
		if (h->max != UINT64_MAX && hi > h->max + 1)
			hi = h->max + 1;
		b[n].lo_ns = (double)lo * f;
		b[n].hi_ns = (double)hi * f;
		b[n].count = h->buckets[i];
		n++;
	}
	if (h->overflow != 0) {
		/* narrowed to [min, max] as the others are (every value
		 * recorded may lie beyond 2^RDX_HIST_MAX_BITS) */
		lo = UINT64_C(1) << RDX_HIST_MAX_BITS;
		if (lo < h->min)
			lo = h->min;
		b[n].lo_ns = (double)lo * f;
		b[n].hi_ns = ((double)h->max + 1.0) * f;
		b[n].count = h->overflow;
		n++;
	}
	*out = b;
	*nb = n;
	return 0;
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
	return rdx_report_append(r, &row, NULL, 0);
}

int
rdx_report_add_hist(struct rdx_report *r, const struct rdx_result *res, const struct rdx_hist *h,
		    uint64_t tsc_hz)
{
	struct rdx_lat_bucket *b = NULL;
	unsigned int nb = 0;
	int rc;

	if (r == NULL || res == NULL || h == NULL)
		return -EINVAL;
	if (rdx_report_buckets_of(h, tsc_hz, &b, &nb) != 0)
		return -ENOMEM;
	rc = rdx_report_add(r, res);
	if (rc != 0) {
		free(b);
		return rc;
	}
	r->buckets[r->nb_rows - 1].b = b;
	r->buckets[r->nb_rows - 1].n = nb;
	return 0;
}

const struct rdx_lat_bucket *
rdx_report_lat_buckets(const struct rdx_report *r, unsigned int i, unsigned int *n)
{
	if (n != NULL)
		*n = 0;
	if (r == NULL || i >= r->nb_rows || r->buckets[i].b == NULL)
		return NULL;
	if (n != NULL)
		*n = r->buckets[i].n;
	return r->buckets[i].b;
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

const char *
rdx_report_status_name(enum rdx_report_status s)
{
	switch (s) {
	case RDX_REPORT_STATUS_COMPLETED: return "completed";
	case RDX_REPORT_STATUS_INTERRUPTED: return "interrupted";
	case RDX_REPORT_STATUS_FAILED: return "failed";
	}
	return NULL;
}

int
rdx_report_status_parse(const char *name, enum rdx_report_status *s)
{
	enum rdx_report_status i;

	if (name == NULL || s == NULL)
		return -EINVAL;
	for (i = RDX_REPORT_STATUS_COMPLETED; i <= RDX_REPORT_STATUS_FAILED; i++)
		if (strcmp(name, rdx_report_status_name(i)) == 0) {
			*s = i;
			return 0;
		}
	return -EINVAL;
}

int
rdx_report_status_set(struct rdx_report *r, enum rdx_report_status s, double measured_s,
		      const char *reason)
{
	char *copy = NULL;

	if (r == NULL || rdx_report_status_name(s) == NULL)
		return -EINVAL;
	if (reason != NULL) {
		copy = strdup(reason);
		if (copy == NULL)
			return -ENOMEM;
	}
	free(r->reason);
	r->reason = copy;
	r->status = s;
	r->measured_s = isfinite(measured_s) && measured_s >= 0.0 ? measured_s : -1.0;
	return 0;
}

enum rdx_report_status
rdx_report_status_get(const struct rdx_report *r, double *measured_s, const char **reason)
{
	if (measured_s != NULL)
		*measured_s = r != NULL ? r->measured_s : -1.0;
	if (reason != NULL)
		*reason = r != NULL ? r->reason : NULL;
	return r != NULL ? r->status : RDX_REPORT_STATUS_COMPLETED;
}

int
rdx_report_not_run_add(struct rdx_report *r, const struct rdx_not_run *n)
{
	if (r == NULL || n == NULL)
		return -EINVAL;
	if (r->nb_not_run == r->not_run_cap) {
		unsigned int cap = r->not_run_cap == 0 ? 8 : r->not_run_cap * 2;
		struct rdx_not_run *p = realloc(r->not_run, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		r->not_run = p;
		r->not_run_cap = cap;
	}
	r->not_run[r->nb_not_run++] = *n;
	return 0;
}

const struct rdx_not_run *
rdx_report_not_run(const struct rdx_report *r, unsigned int *n)
{
	if (n != NULL)
		*n = r != NULL ? r->nb_not_run : 0;
	return r != NULL && r->nb_not_run > 0 ? r->not_run : NULL;
}
