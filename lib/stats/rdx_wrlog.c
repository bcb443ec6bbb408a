/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-work-request log of rdx-perf -o, read back (format: rdx_wrlog.h).
 * Every check is here, so every tool that reads a log refuses the same
 * input with the same line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <rte_errno.h>

#include "rdx_wrlog.h"

#define WRLOG_MAGIC "# rdx-wrlog v1"
#define WRLOG_COLS "# op qp post_ns complete_ns bytes"

struct wrlog_ctx {
	struct rdx_wrlog *l;
	char *err;
	size_t errlen;
	char *kv_buf;              /* the header's text: keys and values point into it */
	char *flow_val;
};

/* Say why in err; the errno value to return (negated by the caller). */
static int __attribute__((format(printf, 3, 4)))
wrlog_bad(struct wrlog_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->err != NULL && c->errlen > 0) {
		n = snprintf(c->err, c->errlen, "%s", c->l->path);
		if (n >= 0 && (size_t)n < c->errlen) {
			va_start(ap, fmt);
			vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

/* Drop the line end ("\n" or "\r\n"); false when the line holds a NUL. */
static bool
trim_eol(char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	return strlen(s) == n;
}

/* One unsigned decimal field (digits only); NULL when it is not one. */
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

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int
field_add(struct wrlog_ctx *c, char *key, char *val)
{
	struct rdx_wrlog *l = c->l;
	struct rdx_wrlog_field *n;
	size_t i;

	for (i = 0; i < l->nb_fields; i++)
		if (strcmp(l->fields[i].key, key) == 0)
			return wrlog_bad(c, EINVAL, ":2: %s= is given twice in the header", key);
	n = realloc(l->fields, (l->nb_fields + 1) * sizeof(*n));
	if (n == NULL)
		return wrlog_bad(c, ENOMEM, ": out of memory");
	l->fields = n;
	l->fields[l->nb_fields].key = key;
	l->fields[l->nb_fields++].val = val;
	return 0;
}

static char flow_key[] = "flow";

/* The key=value line (s: after "# "), whole. */
static int
header_parse(struct wrlog_ctx *c, const char *s)
{
	const char *fk = NULL, *v0, *v1 = NULL, *p;
	char *rest, *tok, *save, *eq;
	size_t n = strlen(s);
	int rc;

	for (p = s; *p != '\0'; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return wrlog_bad(c, EINVAL, ":2: control character 0x%02x in the header",
					 (unsigned char)*p);
	c->l->header = strdup(s);
	rest = malloc(n + 2);
	if (c->l->header == NULL || rest == NULL) {
		free(rest);
		return wrlog_bad(c, ENOMEM, ": out of memory");
	}
	c->kv_buf = rest;
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
		c->flow_val = strndup(v0, (size_t)(v1 - v0));
		if (c->flow_val == NULL)
			return wrlog_bad(c, ENOMEM, ": out of memory");
		rc = field_add(c, flow_key, c->flow_val);
		if (rc != 0)
			return rc;
		/* the line without flow=<value> */
		memcpy(rest, s, (size_t)(fk - s));
		rest[fk - s] = ' ';
		strcpy(rest + (fk - s) + 1, v1);
	} else {
		memcpy(rest, s, n + 1);
	}
	for (tok = strtok_r(rest, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			return wrlog_bad(c, EINVAL, ":2: '%s' in the header is not key=value", tok);
		*eq = '\0';
		rc = field_add(c, tok, eq + 1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
wr_push(struct wrlog_ctx *c, const struct rdx_wrlog_wr *w)
{
	struct rdx_wrlog *l = c->l;

	if (l->nb_wr == l->cap_wr) {
		size_t cap = l->cap_wr == 0 ? 1024 : l->cap_wr * 2;
		struct rdx_wrlog_wr *n = realloc(l->wr, cap * sizeof(*n));

		if (n == NULL)
			return wrlog_bad(c, ENOMEM, ": out of memory after %zu lines", l->nb_wr);
		l->wr = n;
		l->cap_wr = cap;
	}
	l->wr[l->nb_wr++] = *w;
	return 0;
}

/* One WR line (lineno: its line number). */
static int
wr_line(struct wrlog_ctx *c, const char *line, unsigned long lineno, uint64_t *prev_op)
{
	struct rdx_wrlog *l = c->l;
	uint64_t op, qp, bytes;
	struct rdx_wrlog_wr w;
	const char *p;

	p = parse_u64(line, &op);
	p = p != NULL ? parse_u64(p, &qp) : NULL;
	p = p != NULL ? parse_u64(p, &w.post_ns) : NULL;
	p = p != NULL ? parse_u64(p, &w.complete_ns) : NULL;
	p = p != NULL ? parse_u64(p, &bytes) : NULL;
	if (p == NULL || p[strspn(p, " \t")] != '\0')
		return wrlog_bad(c, EINVAL, ":%lu: expected 5 unsigned integers: op qp post_ns"
				 " complete_ns bytes", lineno);
	if (qp > UINT32_MAX)
		return wrlog_bad(c, EINVAL, ":%lu: qp %" PRIu64 " is over 2^32-1", lineno, qp);
	if (bytes > UINT32_MAX)
		return wrlog_bad(c, EINVAL, ":%lu: bytes %" PRIu64 " is over 2^32-1 (rdx-perf logs"
				 " 32-bit byte counts)", lineno, bytes);
	w.qp = (uint32_t)qp;
	w.bytes = (uint32_t)bytes;
	if (l->nb_wr > 0 && op <= *prev_op)
		return wrlog_bad(c, EINVAL, ":%lu: op %" PRIu64 " after op %" PRIu64 ": ops must be"
				 " in post order", lineno, op, *prev_op);
	if (l->nb_wr > 0 && w.post_ns < l->wr[l->nb_wr - 1].post_ns)
		return wrlog_bad(c, EINVAL, ":%lu: post_ns goes back in time: ops must be in post"
				 " order", lineno);
	if (w.complete_ns == 0)
		l->nb_incomplete++;
	else if (w.complete_ns < w.post_ns)
		return wrlog_bad(c, EINVAL, ":%lu: complete_ns is before post_ns", lineno);
	*prev_op = op;
	return wr_push(c, &w);
}

/* report_div=, capacity=, unlogged=: their values and whether the log was cut. */
static int
header_counts(struct wrlog_ctx *c)
{
	struct rdx_wrlog *l = c->l;
	const char *v, *p;

	l->report_div = 1;
	if ((v = rdx_wrlog_field_get(l, "report_div")) != NULL) {
		if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
			return wrlog_bad(c, EINVAL, ":2: bad value '%s' for report_div (expected 1"
					 " or 2)", v);
		l->report_div = (unsigned int)(v[0] - '0');
	}
	if ((v = rdx_wrlog_field_get(l, "capacity")) == NULL) {
		l->truncated = l->nb_wr == RDX_WRLOG_OLD_CAP;
		return 0;
	}
	p = parse_u64(v, &l->capacity);
	if (p == NULL || *p != '\0' || l->capacity == 0)
		return wrlog_bad(c, EINVAL, ":2: bad value '%s' for capacity (expected a count > 0)",
				 v);
	if (l->nb_wr > l->capacity)
		return wrlog_bad(c, EINVAL, ": %zu work requests in a log of capacity %" PRIu64,
				 l->nb_wr, l->capacity);
	if ((v = rdx_wrlog_field_get(l, "unlogged")) == NULL)
		return wrlog_bad(c, EINVAL, ":2: capacity= without unlogged=");
	p = parse_u64(v, &l->unlogged);
	if (p == NULL || *p != '\0')
		return wrlog_bad(c, EINVAL, ":2: bad value '%s' for unlogged (expected a count)", v);
	l->truncated = l->unlogged > 0;
	return 0;
}

/* The lines of f; 0 or a positive errno value. */
static int
wrlog_lines(struct wrlog_ctx *c, FILE *f)
{
	char *line = NULL;
	size_t len = 0;
	ssize_t got;
	unsigned long lineno = 0;
	uint64_t prev_op = 0;
	int rc = 0;

	/* getline: lines of any length, the header's too */
	while (rc == 0 && (got = getline(&line, &len, f)) >= 0) {
		lineno++;
		if (!trim_eol(line, (size_t)got))
			rc = wrlog_bad(c, EINVAL, ":%lu: NUL byte in the line", lineno);
		else if (lineno == 1 && strcmp(line, WRLOG_MAGIC) != 0)
			rc = wrlog_bad(c, EINVAL, ":1: not an rdx-perf work-request log (expected \""
				       WRLOG_MAGIC "\")");
		else if (lineno == 2 && (strncmp(line, "# ", 2) != 0 || strchr(line, '=') == NULL))
			rc = wrlog_bad(c, EINVAL, ":2: expected the \"# key=value ...\" line of the log"
				       " header");
		else if (lineno == 2)
			rc = header_parse(c, line + 2);
		else if (lineno == 3 && strcmp(line, WRLOG_COLS) != 0)
			rc = wrlog_bad(c, EINVAL, ":3: expected \"" WRLOG_COLS "\"");
		else if (lineno > 3 && line[0] != '#' && line[strspn(line, " \t")] != '\0')
			rc = wr_line(c, line, lineno, &prev_op);
	}
	free(line);
	if (rc == 0 && ferror(f))
		rc = wrlog_bad(c, EIO, ": read error: %s", strerror(errno));
	if (rc == 0 && lineno < 3)
		rc = wrlog_bad(c, EINVAL, ": truncated header (%lu lines)", lineno);
	if (rc == 0 && c->l->nb_wr == 0)
		rc = wrlog_bad(c, EINVAL, ": no work requests in the log");
	if (rc == 0 && c->l->nb_incomplete == c->l->nb_wr)
		rc = wrlog_bad(c, EINVAL, ": none of the %zu work requests completed", c->l->nb_wr);
	return rc != 0 ? rc : header_counts(c);
}

/* kv_buf and flow_val are kept behind the fields: freed with the log. */
struct rdx_wrlog_own {
	struct rdx_wrlog l;
	char *kv_buf;
	char *flow_val;
};

struct rdx_wrlog *
rdx_wrlog_read(const char *path, char *err, size_t errlen)
{
	struct rdx_wrlog_own *o;
	struct wrlog_ctx c = { .err = err, .errlen = errlen };
	FILE *f;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (path == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL || (o->l.path = strdup(path)) == NULL) {
		free(o);
		rte_errno = ENOMEM;
		return NULL;
	}
	c.l = &o->l;
	f = fopen(path, "r");
	if (f == NULL) {
		rc = errno == ENOENT ? ENOENT : EINVAL;
		wrlog_bad(&c, rc, ": cannot open: %s", strerror(errno));
	} else {
		rc = wrlog_lines(&c, f);
		fclose(f);
	}
	o->kv_buf = c.kv_buf;
	o->flow_val = c.flow_val;
	if (rc != 0) {
		rdx_wrlog_free(&o->l);
		rte_errno = rc;
		return NULL;
	}
	return &o->l;
}

const char *
rdx_wrlog_field_get(const struct rdx_wrlog *l, const char *key)
{
	size_t i;

	if (l == NULL || key == NULL)
		return NULL;
	for (i = 0; i < l->nb_fields; i++)
		if (strcmp(l->fields[i].key, key) == 0)
			return l->fields[i].val;
	return NULL;
}

const char *
rdx_wrlog_label(const struct rdx_wrlog *l)
{
	const char *v = rdx_wrlog_field_get(l, "flow"), *base;

	if (v != NULL && v[0] != '\0' && strcmp(v, "-") != 0)
		return v;
	base = strrchr(l->path, '/');
	return base != NULL ? base + 1 : l->path;
}

const char *
rdx_wrlog_device_kind(const struct rdx_wrlog *l)
{
	const char *k = rdx_wrlog_field_get(l, "device_kind");
	const char *dev = rdx_wrlog_field_get(l, "dev");

	if (k != NULL)
		return k;
	return dev != NULL && strncmp(dev, "sw", 2) == 0 ? "software_device" : NULL;
}

const char *
rdx_wrlog_not_shared(struct rdx_wrlog *const *logs, unsigned int n, char *buf, size_t len)
{
	const char *d0, *h0, *i0, *d, *h, *id, *k;
	unsigned int i, nb_sw = 0, nb_host = 0, nb_id = 0;

	if (n == 0)
		return NULL;
	d0 = rdx_wrlog_field_get(logs[0], "dev");
	if (d0 == NULL)
		d0 = "(not recorded)";
	h0 = rdx_wrlog_field_get(logs[0], "host");
	i0 = rdx_wrlog_field_get(logs[0], "dev_id");
	for (i = 0; i < n; i++) {
		d = rdx_wrlog_field_get(logs[i], "dev");
		h = rdx_wrlog_field_get(logs[i], "host");
		id = rdx_wrlog_field_get(logs[i], "dev_id");
		k = rdx_wrlog_device_kind(logs[i]);
		if (d == NULL)
			d = "(not recorded)";
		if (strcmp(d, d0) != 0) {
			snprintf(buf, len, "the logs ran on different devices (%s: dev %s, %s: dev %s)",
				 logs[0]->path, d0, logs[i]->path, d);
			return buf;
		}
		nb_host += h != NULL;
		if (h != NULL && (h0 == NULL || strcmp(h, h0) != 0)) {
			snprintf(buf, len, "the logs ran on different hosts (%s: %s, %s: %s)",
				 logs[0]->path, h0 != NULL ? h0 : "not recorded", logs[i]->path, h);
			return buf;
		}
		nb_id += id != NULL;
		if (id != NULL && i0 != NULL && strcmp(id, i0) != 0) {
			snprintf(buf, len, "the logs ran on different devices (%s: dev_id %s, %s: dev_id %s)%s",
				 logs[0]->path, i0, logs[i]->path, id,
				 k != NULL && strcmp(k, "software_device") == 0 ?
				 ", models of the software device in different processes" : "");
			return buf;
		}
		nb_sw += k != NULL && strcmp(k, "software_device") == 0;
	}
	if (nb_host > 0 && nb_host < n) {
		snprintf(buf, len, "%u of the %u logs do not record their host", n - nb_host, n);
		return buf;
	}
	if (nb_id == n)
		return NULL;
	if (nb_id > 0) {
		snprintf(buf, len, "%u of the %u logs do not record their device's identity (dev_id=)",
			 n - nb_id, n);
		return buf;
	}
	if (n > 1 && nb_sw > 0) {
		snprintf(buf, len, "%u logs on the software device (dev %s): each rdx-perf process"
			 " has a model of its own and these logs do not say which they ran on (no dev_id=)",
			 n, d0);
		return buf;
	}
	return NULL;
}

void
rdx_wrlog_free(struct rdx_wrlog *l)
{
	struct rdx_wrlog_own *o = (struct rdx_wrlog_own *)l;

	if (l == NULL)
		return;
	free(l->path);
	free(l->header);
	free(l->fields);
	free(l->wr);
	free(o->kv_buf);
	free(o->flow_val);
	free(o);
}
