/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-flows: fairness of flows that ran at the same time, from the
 * per-work-request logs rdx-perf writes with -o FILE.
 *
 * The procedure (that of the modified-perftest fairness studies, automated):
 *   1. the flow that finished first is the one with the earliest last
 *      completion; its last completion is T1;
 *   2. every other flow's ops and bytes completed by T1 are counted;
 *   3. the common interval is (T0, T1], T0 being the latest first post (all
 *      flows are running in it); a flow's bandwidth is the bytes it
 *      completed in that interval over its length, its share that over the
 *      sum of all flows';
 *   4. Jain's fairness index over those bandwidths: (sum x)^2 / (n sum x^2),
 *      1 when all are equal, 1/n when one flow has everything.
 * With --window MS the bandwidth of every flow per window of MS ms (windows
 * (start, start + MS] from the earliest first post) is printed too. With
 * --by-qp every QP of every log is a flow of its own (fairness among the
 * QPs of one process).
 *
 * Log format (text):
 *   # rdx-wrlog v1
 *   # test=write mode=bw size=65536 lcore=1 qps=1 flow=<label> dev=<name> tsc_hz=<hz> \
 *     lat_kind=completion report_div=1 device_kind=software_device capacity=1048576 \
 *     unlogged=0
 *   # op qp post_ns complete_ns bytes
 *   0 0 1700000000123456789 1700000000123460000 65536
 * Times are CLOCK_REALTIME ns; lines are in post order (op increasing,
 * post_ns not decreasing); complete_ns >= post_ns, or 0 for a work request
 * that never completed (left out of every figure, and counted). Later '#'
 * lines are comments. A flow without a label (flow=- or none) is named
 * after its file. complete_ns - post_ns is what the requester saw (a full
 * round trip for ping-pong tests); rdx-perf's report divides it by
 * report_div (2 when lat_kind is half-rtt or loop-rtt/2) and so do the
 * latency columns here, so they show what the report shows (logs without
 * report_div: 1).
 *
 * A cut log: rdx-perf keeps at most capacity= WRs per lcore and says in
 * unlogged= how many measured WRs it left out. Such a log ends before its
 * flow did, so its last completion is not the flow's finish and the "first
 * to finish" would be wrong: it is refused (exit 2) unless
 * --allow-truncated, which analyses what was logged and flags the flow and
 * every figure that depends on it. A log without capacity= (rdx-perf before
 * it) holding exactly 2^20 WRs is taken as cut too.
 *
 * The key=value line is read whole, whatever its length. flow= (rdx-perf's
 * --label) is the one free-text value: it runs from "flow=" to the blank
 * before the last " dev=" (rdx-perf writes flow= before dev= and only
 * single-word values from dev= on), so a label with blanks, or one holding
 * "key=value" text, is read as the label and never as other fields; without
 * a dev= after it, flow= is one word. Every other field must be key=value,
 * each key at most once, and the line must hold no control character
 * (tab aside): a header that cannot be read exactly is refused, never read
 * in part. bytes is at most 2^32-1 (rdx-perf writes 32-bit byte counts);
 * every sum of bytes is checked for overflow. The same file given twice is
 * refused. Exit status: 2 for bad input, 1 for an I/O failure (stdout or
 * --csv cannot be written).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rdx_hist.h"

#define RDX_FLOWS_EXIT_BAD 2
#define RDX_FLOWS_EXIT_IO 1
#define RDX_FLOWS_MAX_WINDOWS 1000000u
#define RDX_FLOWS_MAX_CELLS 10000000u   /* windows x flows */
#define RDX_FLOWS_OLD_CAP (1u << 20)    /* rdx-perf's log capacity before capacity= */

struct rdx_wr {
	uint32_t qp;
	uint32_t bytes;             /* rdx-perf writes %u */
	uint64_t post_ns;
	uint64_t complete_ns;
};

struct rdx_flow {
	const char *path;
	char *label;                /* flow=, else the file name */
	char *header;               /* the key=value line as read, for the report */
	char **keys, **vals;        /* its fields (flow= among them), parsed */
	size_t nb_kv;
	char *kv_buf;               /* the other fields' text: keys and values point into it */
	char *flow_val;             /* flow='s value */
	bool owns_kv;               /* header, keys, vals, kv_buf, flow_val are this flow's
				     * to free (--by-qp: one flow of each log owns them) */
	const char *lat_kind;       /* lat_kind=, "-" when the log has none */
	unsigned int lat_div;       /* report_div= (1 or 2): latencies are divided by it */
	struct rdx_wr *wr;
	size_t nb_wr;
	size_t cap;
	size_t nb_incomplete;       /* complete_ns == 0 */
	uint64_t unlogged;          /* unlogged=: measured WRs rdx-perf left out */
	bool truncated;             /* the log was cut (unlogged > 0, or an old full log) */
	uint64_t first_post;
	uint64_t last_complete;
	/* results */
	uint64_t ops_by_t1, bytes_by_t1;
	uint64_t ops_in, bytes_in;
	double mbytes_per_s, share;
	struct rdx_hist_summary lat;  /* ns, over every op */
};

static const char *prog = "rdx-flows";

/* One line on stderr, then exit with code. */
static void __attribute__((noreturn, format(printf, 2, 0)))
vdie(int code, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(code);
}

/* Bad input: exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(RDX_FLOWS_EXIT_BAD, fmt, ap);
}

/* An I/O failure (not bad input): exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die_io(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(RDX_FLOWS_EXIT_IO, fmt, ap);
}

static char *
xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (d == NULL)
		die("out of memory");
	return d;
}

/* *sum += v, refused when it would wrap (a figure from a wrapped sum is wrong). */
static void
add_bytes(uint64_t *sum, uint64_t v, const char *what)
{
	if (__builtin_add_overflow(*sum, v, sum))
		die("%s: the byte total overflows 64 bits", what);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--window MS] [--csv FILE] [--by-qp] [--allow-truncated] LOG LOG...\n"
		"  Fairness of flows that ran at the same time, from rdx-perf -o logs:\n"
		"  each flow's bandwidth and share over the common interval (latest first\n"
		"  post .. first finish), ops/bytes done when the first flow finished, and\n"
		"  Jain's fairness index.\n"
		"  -w, --window MS  also the bandwidth of every flow per MS-ms window\n"
		"  -c, --csv FILE   write the per-window table (with --window) or else the\n"
		"                   per-flow table as CSV to FILE\n"
		"  -q, --by-qp      every QP of every log is a flow of its own\n"
		"  -t, --allow-truncated\n"
		"                   analyse logs rdx-perf cut at its capacity (refused\n"
		"                   otherwise) and flag them: their end is not their finish\n"
		"  -h, --help       this text\n"
		"  Bad input: one line on stderr, exit status 2 (1: stdout or FILE cannot be\n"
		"  written).\n", prog);
}

/* Drop the line end ("\n" or "\r\n") of a line of n bytes; false when the
 * line holds a NUL byte (the text after it would be lost). */
static bool
trim_eol(char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	return strlen(s) == n;
}

/* Parse one unsigned decimal field; NULL when it is not one. */
static const char *
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != ' ' && *end != '\t'))
		return NULL;
	return end;
}

static void
flow_push(struct rdx_flow *fl, const struct rdx_wr *w)
{
	if (fl->nb_wr == fl->cap) {
		size_t cap = fl->cap == 0 ? 1024 : fl->cap * 2;
		struct rdx_wr *n = realloc(fl->wr, cap * sizeof(*n));

		if (n == NULL)
			die("%s: out of memory after %zu lines", fl->path, fl->nb_wr);
		fl->wr = n;
		fl->cap = cap;
	}
	fl->wr[fl->nb_wr++] = *w;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void
header_add(struct rdx_flow *fl, char *key, char *val)
{
	size_t i;

	for (i = 0; i < fl->nb_kv; i++)
		if (strcmp(fl->keys[i], key) == 0)
			die("%s:2: %s= is given twice in the header", fl->path, key);
	fl->keys = realloc(fl->keys, (fl->nb_kv + 1) * sizeof(*fl->keys));
	fl->vals = realloc(fl->vals, (fl->nb_kv + 1) * sizeof(*fl->vals));
	if (fl->keys == NULL || fl->vals == NULL)
		die("out of memory");
	fl->keys[fl->nb_kv] = key;
	fl->vals[fl->nb_kv++] = val;
}

/*
 * The key=value line (s: after "# "), whole. flow= holds rdx-perf's --label,
 * the one free-text value: it runs from "flow=" to the blank before the
 * last " dev=" after it (rdx-perf writes flow= before dev=, and from dev= on
 * only single words), else it is one word. The other fields are blank-
 * separated key=value words, each key once.
 */
static char flow_key[] = "flow";

static void
header_parse(struct rdx_flow *fl, const char *s)
{
	const char *fk = NULL, *v0, *v1 = NULL, *p;
	char *rest, *tok, *save, *eq;
	size_t n = strlen(s);

	for (p = s; *p != '\0'; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			die("%s:2: control character 0x%02x in the header", fl->path, (unsigned char)*p);
	fl->header = xstrndup(s, n);
	for (p = s; (p = strstr(p, "flow=")) != NULL; p++)
		if (p == s || is_blank(p[-1])) {
			fk = p;
			break;
		}
	if (fk != NULL) {
		v0 = fk + strlen("flow=");
		for (p = v0; (p = strstr(p, "dev=")) != NULL; p++)
			if (p > v0 && is_blank(p[-1]))
				v1 = p - 1;
		if (v1 == NULL)
			v1 = v0 + strcspn(v0, " \t");
		fl->flow_val = xstrndup(v0, (size_t)(v1 - v0));
		header_add(fl, flow_key, fl->flow_val);
		/* the line without flow=<value> */
		rest = malloc(n + 2);
		if (rest == NULL)
			die("out of memory");
		memcpy(rest, s, (size_t)(fk - s));
		rest[fk - s] = ' ';
		strcpy(rest + (fk - s) + 1, v1);
	} else {
		rest = xstrndup(s, n);
	}
	for (tok = strtok_r(rest, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			die("%s:2: '%s' in the header is not key=value", fl->path, tok);
		*eq = '\0';
		header_add(fl, tok, eq + 1);
	}
	/* rest stays allocated while the flow is: keys and values point into it */
	fl->kv_buf = rest;
	fl->owns_kv = true;
}

static void
flow_free(struct rdx_flow *fl)
{
	free(fl->wr);
	free(fl->label);
	if (fl->owns_kv) {
		free(fl->header);
		free(fl->keys);
		free(fl->vals);
		free(fl->kv_buf);
		free(fl->flow_val);
	}
}

/* The value of key= in the header; NULL when absent. */
static const char *
header_value(const struct rdx_flow *fl, const char *key)
{
	size_t i;

	for (i = 0; i < fl->nb_kv; i++)
		if (strcmp(fl->keys[i], key) == 0)
			return fl->vals[i];
	return NULL;
}

static bool allow_truncated;

/* capacity= and unlogged=: was the log cut? Refused unless --allow-truncated. */
static void
flow_cut(struct rdx_flow *fl)
{
	const char *v, *p;
	uint64_t cap = 0;

	if ((v = header_value(fl, "capacity")) != NULL) {
		p = parse_u64(v, &cap);
		if (p == NULL || *p != '\0' || cap == 0)
			die("%s:2: bad value '%s' for capacity (expected a count > 0)", fl->path, v);
		if (fl->nb_wr > cap)
			die("%s: %zu work requests in a log of capacity %" PRIu64, fl->path, fl->nb_wr,
			    cap);
		if ((v = header_value(fl, "unlogged")) == NULL)
			die("%s:2: capacity= without unlogged=", fl->path);
		p = parse_u64(v, &fl->unlogged);
		if (p == NULL || *p != '\0')
			die("%s:2: bad value '%s' for unlogged (expected a count)", fl->path, v);
		fl->truncated = fl->unlogged > 0;
	} else {
		fl->truncated = fl->nb_wr == RDX_FLOWS_OLD_CAP;
	}
	if (!fl->truncated || allow_truncated)
		return;
	if (fl->unlogged > 0)
		die("%s: the log was cut at its capacity of %" PRIu64 " WRs (%" PRIu64 " more were"
		    " not logged): its last completion is not the flow's finish; rerun with fewer"
		    " ops (-n, -D) or pass --allow-truncated", fl->path, cap, fl->unlogged);
	die("%s: %u WRs, the capacity of rdx-perf's log before it recorded one: probably cut,"
	    " so its last completion may not be the flow's finish; pass --allow-truncated to"
	    " analyse it anyway", fl->path, RDX_FLOWS_OLD_CAP);
}

/* The label: flow=<label> from the key=value line, else the file name; the
 * latency kind and divisor (lat_kind=, report_div=); whether it was cut. */
static void
flow_label(struct rdx_flow *fl)
{
	const char *base, *v;

	fl->lat_kind = header_value(fl, "lat_kind");
	if (fl->lat_kind == NULL)
		fl->lat_kind = "-";
	fl->lat_div = 1;
	if ((v = header_value(fl, "report_div")) != NULL) {
		if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
			die("%s:2: bad value '%s' for report_div (expected 1 or 2)", fl->path, v);
		fl->lat_div = (unsigned int)(v[0] - '0');
	}
	flow_cut(fl);
	v = header_value(fl, "flow");
	if (v == NULL || v[0] == '\0' || strcmp(v, "-") == 0) {
		base = strrchr(fl->path, '/');
		v = base != NULL ? base + 1 : fl->path;
	}
	fl->label = xstrndup(v, strlen(v));
}

static void
flow_read(struct rdx_flow *fl)
{
	char *line = NULL;
	size_t len = 0;
	ssize_t got;
	unsigned long lineno = 0;
	uint64_t op, qp, bytes, prev_op = 0;
	struct rdx_wr w;
	const char *p;
	FILE *f;

	f = fopen(fl->path, "r");
	if (f == NULL)
		die("%s: cannot open: %s", fl->path, strerror(errno));
	/* getline: lines of any length, the header's too */
	while ((got = getline(&line, &len, f)) >= 0) {
		lineno++;
		if (!trim_eol(line, (size_t)got))
			die("%s:%lu: NUL byte in the line", fl->path, lineno);
		if (lineno == 1) {
			if (strcmp(line, "# rdx-wrlog v1") != 0)
				die("%s:1: not an rdx-perf work-request log (expected \"# rdx-wrlog v1\")",
				    fl->path);
			continue;
		}
		if (lineno == 2) {
			if (strncmp(line, "# ", 2) != 0 || strchr(line, '=') == NULL)
				die("%s:2: expected the \"# key=value ...\" line of the log header",
				    fl->path);
			header_parse(fl, line + 2);
			continue;
		}
		if (lineno == 3) {
			if (strcmp(line, "# op qp post_ns complete_ns bytes") != 0)
				die("%s:3: expected \"# op qp post_ns complete_ns bytes\"", fl->path);
			continue;
		}
		if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
			continue;
		p = parse_u64(line, &op);
		p = p != NULL ? parse_u64(p, &qp) : NULL;
		p = p != NULL ? parse_u64(p, &w.post_ns) : NULL;
		p = p != NULL ? parse_u64(p, &w.complete_ns) : NULL;
		p = p != NULL ? parse_u64(p, &bytes) : NULL;
		if (p == NULL || p[strspn(p, " \t")] != '\0')
			die("%s:%lu: expected 5 unsigned integers: op qp post_ns complete_ns bytes",
			    fl->path, lineno);
		if (qp > UINT32_MAX)
			die("%s:%lu: qp %" PRIu64 " is over 2^32-1", fl->path, lineno, qp);
		if (bytes > UINT32_MAX)
			die("%s:%lu: bytes %" PRIu64 " is over 2^32-1 (rdx-perf logs 32-bit byte counts)",
			    fl->path, lineno, bytes);
		w.qp = (uint32_t)qp;
		w.bytes = (uint32_t)bytes;
		if (fl->nb_wr > 0 && op <= prev_op)
			die("%s:%lu: op %" PRIu64 " after op %" PRIu64 ": ops must be in post order",
			    fl->path, lineno, op, prev_op);
		if (fl->nb_wr > 0 && w.post_ns < fl->wr[fl->nb_wr - 1].post_ns)
			die("%s:%lu: post_ns goes back in time: ops must be in post order", fl->path,
			    lineno);
		if (w.complete_ns == 0)
			fl->nb_incomplete++;
		else if (w.complete_ns < w.post_ns)
			die("%s:%lu: complete_ns is before post_ns", fl->path, lineno);
		prev_op = op;
		flow_push(fl, &w);
	}
	free(line);
	if (ferror(f))
		die_io("%s: read error: %s", fl->path, strerror(errno));
	fclose(f);
	if (lineno < 3)
		die("%s: truncated header (%lu lines)", fl->path, lineno);
	if (fl->nb_wr == 0)
		die("%s: no work requests in the log", fl->path);
	if (fl->nb_incomplete == fl->nb_wr)
		die("%s: none of the %zu work requests completed", fl->path, fl->nb_wr);
	flow_label(fl);
}

static void
flow_stats(struct rdx_flow *fl, uint64_t t0, uint64_t t1)
{
	static struct rdx_hist h;   /* large: not on the stack */
	size_t i;

	rdx_hist_init(&h);
	fl->first_post = fl->wr[0].post_ns;
	fl->last_complete = 0;
	for (i = 0; i < fl->nb_wr; i++) {
		const struct rdx_wr *w = &fl->wr[i];

		if (w->complete_ns == 0)     /* never completed */
			continue;
		if (w->complete_ns > fl->last_complete)
			fl->last_complete = w->complete_ns;
		if (t1 == 0)
			continue;
		/* as rdx-perf's report: halved for half-rtt (report_div=2) */
		rdx_hist_record(&h, (w->complete_ns - w->post_ns) / fl->lat_div);
		if (w->complete_ns <= t1) {
			fl->ops_by_t1++;
			add_bytes(&fl->bytes_by_t1, w->bytes, fl->path);
			if (w->complete_ns > t0) {
				fl->ops_in++;
				add_bytes(&fl->bytes_in, w->bytes, fl->path);
			}
		}
	}
	if (t1 != 0)
		rdx_hist_summarize(&h, 0, &fl->lat);   /* already ns */
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* --by-qp: one flow per (log, QP), labelled <label>.qp<N>. */
static struct rdx_flow *
split_by_qp(struct rdx_flow *in, unsigned int n_in, unsigned int *n_out)
{
	struct rdx_flow *out = NULL;
	unsigned int i, n = 0;
	size_t j, k, nq;
	uint32_t *qps;

	for (i = 0; i < n_in; i++) {
		qps = malloc(in[i].nb_wr * sizeof(*qps));
		if (qps == NULL)
			die("out of memory");
		for (j = 0; j < in[i].nb_wr; j++)
			qps[j] = in[i].wr[j].qp;
		qsort(qps, in[i].nb_wr, sizeof(*qps), cmp_u32);
		for (j = 0, nq = 0; j < in[i].nb_wr; j++)
			if (j == 0 || qps[j] != qps[nq - 1])
				qps[nq++] = qps[j];
		out = realloc(out, (n + nq) * sizeof(*out));
		if (out == NULL)
			die("out of memory");
		for (k = 0; k < nq; k++) {
			struct rdx_flow *f = &out[n++];

			memset(f, 0, sizeof(*f));
			f->path = in[i].path;
			f->header = in[i].header;
			f->keys = in[i].keys;
			f->vals = in[i].vals;
			f->nb_kv = in[i].nb_kv;
			f->kv_buf = in[i].kv_buf;
			f->flow_val = in[i].flow_val;
			f->owns_kv = k == 0 && in[i].owns_kv;
			f->lat_kind = in[i].lat_kind;
			f->lat_div = in[i].lat_div;
			f->truncated = in[i].truncated;
			f->unlogged = in[i].unlogged;
			if (asprintf(&f->label, "%s.qp%" PRIu32, in[i].label, qps[k]) < 0)
				die("out of memory");
			for (j = 0; j < in[i].nb_wr; j++) {
				if (in[i].wr[j].qp != qps[k])
					continue;
				flow_push(f, &in[i].wr[j]);
				f->nb_incomplete += in[i].wr[j].complete_ns == 0;
			}
			if (f->nb_incomplete == f->nb_wr)
				die("%s: none of the %zu work requests of QP %" PRIu32 " completed",
				    f->path, f->nb_wr, qps[k]);
		}
		free(qps);
		free(in[i].wr);
		free(in[i].label);
	}
	free(in);
	*n_out = n;
	return out;
}

static double
parse_window(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v <= 0.0)
		die("--window: expected a positive number of milliseconds, got \"%s\"", s);
	if (v * 1e6 < 1.0)
		die("--window: %s ms is below a nanosecond", s);
	if (v * 1e6 > 9e18)
		die("--window: %s ms is over 2^63 ns", s);
	return v;
}

/* A CSV field, quoted when it needs to be (RFC 4180). */
static void
csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
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

/* 0, or the errno of a failed write to f (EIO when the failure is past). */
static int
out_error(FILE *f)
{
	errno = 0;
	if (fflush(f) != 0)
		return errno != 0 ? errno : EIO;
	return ferror(f) ? EIO : 0;
}

/* Close the --csv file; a write error (disk full) is an I/O failure: exit 1. */
static void
csv_close(FILE *f, const char *csv)
{
	int err = out_error(f);

	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (err != 0)
		die_io("%s: write error: %s", csv, strerror(err));
}

static void
print_windows(struct rdx_flow *fl, unsigned int n, uint64_t tmin, uint64_t tmax, uint64_t t0,
	      uint64_t t1, double window_ms, const char *csv)
{
	uint64_t w_ns = (uint64_t)llround(window_ms * 1e6), nwin, k, span;
	uint64_t *bytes;
	unsigned int i;
	FILE *f = NULL;
	size_t j;

	nwin = tmax == tmin ? 1 : (tmax - tmin - 1) / w_ns + 1;
	if (nwin > RDX_FLOWS_MAX_WINDOWS)
		die("--window %g ms gives %" PRIu64 " windows (at most %u): use a larger window",
		    window_ms, nwin, RDX_FLOWS_MAX_WINDOWS);
	if (nwin * n > RDX_FLOWS_MAX_CELLS)
		die("--window %g ms: %" PRIu64 " windows x %u flows is too large a table (at most %u"
		    " cells): use a larger window", window_ms, nwin, n, RDX_FLOWS_MAX_CELLS);
	if (__builtin_mul_overflow(nwin, w_ns, &span) || span > UINT64_MAX - tmin)
		die("--window %g ms: the last window ends past 2^64 ns", window_ms);
	bytes = calloc(nwin * n, sizeof(*bytes));
	if (bytes == NULL)
		die("out of memory for %" PRIu64 " windows", nwin);
	for (i = 0; i < n; i++) {
		for (j = 0; j < fl[i].nb_wr; j++) {
			uint64_t c = fl[i].wr[j].complete_ns;

			if (c == 0)
				continue;
			k = c == tmin ? 0 : (c - tmin - 1) / w_ns;
			add_bytes(&bytes[k * n + i], fl[i].wr[j].bytes, fl[i].path);
		}
	}
	if (csv != NULL) {
		f = fopen(csv, "w");
		if (f == NULL)
			die("%s: cannot create: %s", csv, strerror(errno));
		fputs("window,start_ms,end_ms,common", f);
		for (i = 0; i < n; i++) {
			char *col;

			if (asprintf(&col, "%s_gbps", fl[i].label) < 0)
				die("out of memory");
			fputc(',', f);
			csv_field(f, col);
			free(col);
		}
		fputs(",total_gbps\n", f);
	}
	printf("\nbandwidth per %g ms window, Gb/s (windows (start, end] in ms from the first post;"
	       " * = inside the common interval)\n", window_ms);
	printf(" %7s %12s %12s  ", "window", "start_ms", "end_ms");
	for (i = 0; i < n; i++)
		printf(" %12.12s", fl[i].label);
	printf(" %12s\n", "total");
	for (k = 0; k < nwin; k++) {
		uint64_t s = tmin + k * w_ns, e = s + w_ns;
		bool common = s >= t0 && e <= t1;
		double total = 0.0, g;

		printf(" %7" PRIu64 " %12.3f %12.3f %c", k, (double)(s - tmin) / 1e6,
		       (double)(e - tmin) / 1e6, common ? '*' : ' ');
		if (f != NULL)
			fprintf(f, "%" PRIu64 ",%.6f,%.6f,%d", k, (double)(s - tmin) / 1e6,
				(double)(e - tmin) / 1e6, common);
		for (i = 0; i < n; i++) {
			g = (double)bytes[k * n + i] * 8.0 / (double)w_ns;   /* bits per ns = Gb/s */
			total += g;
			printf(" %12.3f", g);
			if (f != NULL)
				fprintf(f, ",%.6f", g);
		}
		printf(" %12.3f\n", total);
		if (f != NULL)
			fprintf(f, ",%.6f\n", total);
	}
	free(bytes);
	if (f != NULL)
		csv_close(f, csv);
}

static void
write_flow_csv(const struct rdx_flow *fl, unsigned int n, const char *csv, double secs)
{
	unsigned int i;
	FILE *f = fopen(csv, "w");

	if (f == NULL)
		die("%s: cannot create: %s", csv, strerror(errno));
	fputs("flow,label,file,ops,ops_by_first_finish,bytes_by_first_finish,ops_in_interval,"
	      "bytes_in_interval,interval_s,mbytes_per_s,gbits_per_s,share_pct,lat_p50_ns,"
	      "lat_p99_ns,lat_max_ns,truncated\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%u,", i);
		csv_field(f, fl[i].label);
		fputc(',', f);
		csv_field(f, fl[i].path);
		fprintf(f, ",%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9f,%.6f,%.6f,%.4f,"
			"%.1f,%.1f,%.1f,%d\n", fl[i].nb_wr, fl[i].ops_by_t1, fl[i].bytes_by_t1,
			fl[i].ops_in, fl[i].bytes_in, secs, fl[i].mbytes_per_s,
			fl[i].mbytes_per_s * 8e-3, 100.0 * fl[i].share, fl[i].lat.p50, fl[i].lat.p99,
			fl[i].lat.max, fl[i].truncated);
	}
	csv_close(f, csv);
}

/* Two paths of one file (the same name, a link, ./name). */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "csv", required_argument, NULL, 'c' },
		{ "by-qp", no_argument, NULL, 'q' },
		{ "allow-truncated", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t t0 = 0, t1 = UINT64_MAX, tmin = UINT64_MAX, tmax = 0, total_bytes = 0;
	unsigned int n, i, j, first = 0, latest = 0, nb_cut = 0;
	double window_ms = 0.0, secs, sum = 0.0, sum_sq = 0.0;
	const char *csv = NULL;
	struct rdx_flow *fl;
	bool by_qp = false;
	int c;

	opterr = 0;   /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":w:c:qth", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			window_ms = parse_window(optarg);
			break;
		case 'c':
			csv = optarg;
			break;
		case 'q':
			by_qp = true;
			break;
		case 't':
			allow_truncated = true;
			break;
		case 'h':
			usage(stdout);
			c = out_error(stdout);
			if (c != 0)
				die_io("stdout: write error: %s", strerror(c));
			return 0;
		case ':':
			die("option %s needs a value (see %s --help)", argv[optind - 1], prog);
		default:
			die("unknown option %s (see %s --help)", argv[optind - 1], prog);
		}
	}
	if (argc - optind < (by_qp ? 1 : 2))
		die("need at least 2 logs (flows that ran at the same time), got %d", argc - optind);
	n = (unsigned int)(argc - optind);
	fl = calloc(n, sizeof(*fl));
	if (fl == NULL)
		die("out of memory");
	for (i = 0; i < n; i++) {
		fl[i].path = argv[optind + (int)i];
		/* one file twice is not two flows that ran together */
		for (j = 0; j < i; j++)
			if (same_file(fl[j].path, fl[i].path))
				die("%s and %s are the same file: give each flow's log once", fl[j].path,
				    fl[i].path);
		/* --csv over a log would destroy it */
		if (csv != NULL && same_file(csv, fl[i].path))
			die("--csv %s is the log %s: it would be overwritten", csv, fl[i].path);
		flow_read(&fl[i]);
	}
	if (by_qp) {
		fl = split_by_qp(fl, n, &n);
		if (n < 2)
			die("--by-qp: need at least 2 QPs in all, found %u", n);
	}
	for (i = 0; i < n; i++) {
		flow_stats(&fl[i], 0, 0);        /* first post, last completion */
		if (fl[i].last_complete < t1) {
			t1 = fl[i].last_complete;
			first = i;
		}
		if (fl[i].first_post > t0) {
			t0 = fl[i].first_post;
			latest = i;
		}
		if (fl[i].first_post < tmin)
			tmin = fl[i].first_post;
		if (fl[i].last_complete > tmax)
			tmax = fl[i].last_complete;
	}
	if (t1 <= t0)
		die("the flows never all ran at once: %s finished at +%.6f s, before %s started at"
		    " +%.6f s", fl[first].label, (double)(t1 - tmin) / 1e9, fl[latest].label,
		    (double)(t0 - tmin) / 1e9);
	secs = (double)(t1 - t0) / 1e9;
	for (i = 0; i < n; i++) {
		flow_stats(&fl[i], t0, t1);
		add_bytes(&total_bytes, fl[i].bytes_in, "the flows together");
		fl[i].mbytes_per_s = (double)fl[i].bytes_in / secs / 1e6;
		sum += fl[i].mbytes_per_s;
		sum_sq += fl[i].mbytes_per_s * fl[i].mbytes_per_s;
	}
	for (i = 0; i < n; i++)
		fl[i].share = total_bytes == 0 ? 0.0 : (double)fl[i].bytes_in / (double)total_bytes;

	printf("rdx-flows: %u flows; times from the first post (+0 s)\n", n);
	for (i = 0; i < n; i++) {
		printf("  flow %u %-16s %s: %s\n", i, fl[i].label, fl[i].path, fl[i].header);
		printf("    latency columns: (complete_ns - post_ns) / %u, lat_kind %s (as rdx-perf's"
		       " report)\n", fl[i].lat_div, fl[i].lat_kind);
		if (fl[i].nb_incomplete > 0)
			printf("    %zu of %zu work requests never completed (complete_ns 0): left out\n",
			       fl[i].nb_incomplete, fl[i].nb_wr);
		if (fl[i].truncated) {
			printf("    TRUNCATED: rdx-perf cut this log at %zu WRs", fl[i].nb_wr);
			if (fl[i].unlogged > 0)
				printf(" (%" PRIu64 " more not logged)", fl[i].unlogged);
			printf(": its end is where the log stops, not where the flow finished\n");
			nb_cut++;
		}
	}
	printf("first to finish: flow %u (%s) at +%.6f s%s\n", first, fl[first].label,
	       (double)(t1 - tmin) / 1e9, fl[first].truncated ?
	       " [TRUNCATED log: the end of its log; the flow ran on]" : "");
	if (nb_cut > 0)
		printf("TRUNCATED: %u of %u logs were cut (--allow-truncated): the common interval"
		       " ends where the first log does, and every figure below covers only what"
		       " was logged\n", nb_cut, n);
	printf("common interval: +%.6f s .. +%.6f s = %.6f s (from the latest first post, flow %u"
	       " (%s), to the first finish)\n", (double)(t0 - tmin) / 1e9,
	       (double)(t1 - tmin) / 1e9, secs, latest, fl[latest].label);
	printf("\n %4s %-16s %12s %14s %16s %12s %16s %12s %10s %8s %10s %10s\n", "flow", "label",
	       "ops", "ops@finish", "bytes@finish", "ops_in", "bytes_in", "MB/s(1e6)", "Gb/s(1e9)", "share%",
	       "p50_us", "p99_us");
	for (i = 0; i < n; i++)
		printf(" %4u %-16s %12zu %14" PRIu64 " %16" PRIu64 " %12" PRIu64 " %16" PRIu64
		       " %12.3f %10.4f %8.2f %10.2f %10.2f\n", i, fl[i].label, fl[i].nb_wr,
		       fl[i].ops_by_t1, fl[i].bytes_by_t1, fl[i].ops_in, fl[i].bytes_in,
		       fl[i].mbytes_per_s, fl[i].mbytes_per_s * 8e-3, 100.0 * fl[i].share,
		       fl[i].lat.p50 / 1e3, fl[i].lat.p99 / 1e3);
	printf(" %4s %-16s %12s %14s %16s %12s %16" PRIu64 " %12.3f %10.4f %8.2f\n", "", "total",
	       "", "", "", "", total_bytes, sum, sum * 8e-3, total_bytes == 0 ? 0.0 : 100.0);
	if (sum_sq > 0.0)
		printf("\nJain's fairness index: %.6f (1 = equal shares, %.6f = one flow has all)\n",
		       sum * sum / ((double)n * sum_sq), 1.0 / (double)n);
	else
		printf("\nJain's fairness index: n/a (no bytes completed in the common interval)\n");
	if (window_ms > 0.0)
		print_windows(fl, n, tmin, tmax, t0, t1, window_ms, csv);
	else if (csv != NULL)
		write_flow_csv(fl, n, csv, secs);
	for (i = 0; i < n; i++)
		flow_free(&fl[i]);
	free(fl);
	c = out_error(stdout);
	if (c != 0)
		die_io("stdout: write error: %s", strerror(c));
	return 0;
}
