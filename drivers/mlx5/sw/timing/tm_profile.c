/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A timing profile: lines `key = value  # source`, '#' lines and blank
 * lines ignored. Every key of the table below must appear exactly once,
 * with a decimal value in its range and a source after '#' (a datasheet,
 * a paper, or "assumed: why"). Errors name file:line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_timing.h"

#define TM_KEY(k, lo, hi, w) { #k, offsetof(struct sw_tm_profile, k), lo, hi, w }

static const struct {
	const char *key;
	size_t off;
	uint64_t lo, hi;
	unsigned int width;     /* 4 or 8 bytes */
} tm_keys[] = {
	TM_KEY(link_mbps, 1000, 3200000, 8),
	TM_KEY(mtu, 256, 4096, 4),
	TM_KEY(pkt_hdr, 0, 256, 4),
	TM_KEY(reth, 0, 64, 4),
	TM_KEY(atomic_hdr, 0, 64, 4),
	TM_KEY(ack_bytes, 0, 64, 4),
	TM_KEY(prop_ns, 0, 1000000, 4),
	TM_KEY(pcie_mbps, 1000, 1024000, 8),
	TM_KEY(pcie_rd_ns, 0, 100000, 4),
	TM_KEY(pcie_wr_ns, 0, 100000, 4),
	TM_KEY(mrrs, 128, 4096, 4),
	TM_KEY(mps, 128, 4096, 4),
	TM_KEY(tlp_hdr, 0, 64, 4),
	TM_KEY(bf_max, 0, 1024, 4),
	TM_KEY(msg_rate_kops, 1, 10000000, 4),
	TM_KEY(pipe_ns, 0, 100000, 4),
	TM_KEY(qpc_entries, 0, SW_TM_CACHE_KEYS, 4),
	TM_KEY(qpc_bytes, 0, 4096, 4),
	TM_KEY(qpc_miss_par, 1, 1024, 4),
	TM_KEY(atomic_ns, 0, 100000, 4),
	TM_KEY(atomic_issue_ns, 0, 100000, 4),
	TM_KEY(atomic_units, 1, SW_TM_ATOMIC_SLOTS, 4),
	TM_KEY(cqe_ns, 0, 100000, 4),
};
#undef TM_KEY

#define TM_NKEYS (sizeof(tm_keys) / sizeof(tm_keys[0]))

static char *
tm_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int
tm_err(char *err, unsigned int errlen, const char *file, unsigned int line, const char *what,
       const char *key)
{
	if (line != 0)
		snprintf(err, errlen, "%s:%u: %s%s%s", file, line, what, key != NULL ? " " : "",
			 key != NULL ? key : "");
	else
		snprintf(err, errlen, "%s: %s%s%s", file, what, key != NULL ? " " : "",
			 key != NULL ? key : "");
	return -EINVAL;
}

/* One "key = value # source" line (comments and blanks already skipped). */
static int
tm_line(struct sw_tm_profile *p, char *s, bool *seen, const char *file, unsigned int ln,
	char *err, unsigned int errlen)
{
	char *eq = strchr(s, '='), *hash = strchr(s, '#'), *key, *val, *end;
	unsigned long long v;
	unsigned int i;

	if (eq == NULL || (hash != NULL && hash < eq))
		return tm_err(err, errlen, file, ln, "expected key = value  # source", NULL);
	if (hash == NULL || *tm_trim(hash + 1) == '\0')
		return tm_err(err, errlen, file, ln, "no source (# datasheet, paper or assumed: why) for",
			      tm_trim(s));
	*eq = '\0';
	*hash = '\0';
	key = tm_trim(s);
	val = tm_trim(eq + 1);
	for (i = 0; i < TM_NKEYS; i++)
		if (strcmp(key, tm_keys[i].key) == 0)
			break;
	if (i == TM_NKEYS)
		return tm_err(err, errlen, file, ln, "unknown key", key);
	if (seen[i])
		return tm_err(err, errlen, file, ln, "key given twice:", key);
	errno = 0;
	v = strtoull(val, &end, 10);
	if (*val < '0' || *val > '9' || *end != '\0' || errno != 0 || v < tm_keys[i].lo ||
	    v > tm_keys[i].hi) {
		char what[96];

		snprintf(what, sizeof(what), "bad value '%.24s' (%llu..%llu) for",
			 val, (unsigned long long)tm_keys[i].lo, (unsigned long long)tm_keys[i].hi);
		return tm_err(err, errlen, file, ln, what, key);
	}
	seen[i] = true;
	if (tm_keys[i].width == 8)
		*(uint64_t *)(void *)((char *)p + tm_keys[i].off) = v;
	else
		*(uint32_t *)(void *)((char *)p + tm_keys[i].off) = (uint32_t)v;
	return 0;
}

int
sw_tm_profile_parse(struct sw_tm_profile *p, const char *text, const char *file,
		    char *err, unsigned int errlen)
{
	bool seen[TM_NKEYS] = { false };
	const char *s = text;
	unsigned int ln = 0, i;
	char line[512];

	while (*s != '\0') {
		const char *nl = strchr(s, '\n');
		size_t n = nl != NULL ? (size_t)(nl - s) : strlen(s);
		char *t;
		int rc;

		ln++;
		if (n >= sizeof(line))
			return tm_err(err, errlen, file, ln, "line too long", NULL);
		memcpy(line, s, n);
		line[n] = '\0';
		s += n + (nl != NULL);
		t = tm_trim(line);
		if (*t == '\0' || *t == '#')
			continue;
		rc = tm_line(p, t, seen, file, ln, err, errlen);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < TM_NKEYS; i++)
		if (!seen[i])
			return tm_err(err, errlen, file, 0, "missing key", tm_keys[i].key);
	if (p->mtu & (p->mtu - 1))
		return tm_err(err, errlen, file, 0, "mtu is not a power of two:", "mtu");
	return 0;
}

int
sw_tm_profile_load(struct sw_tm_profile *p, const char *name, const char *dir,
		   char *err, unsigned int errlen)
{
	char path[1024], *text;
	const char *base;
	size_t len, n;
	FILE *f;
	int rc;

	memset(p, 0, sizeof(*p));
	if (strchr(name, '/') != NULL) {
		snprintf(path, sizeof(path), "%s", name);
	} else if (name[0] == '\0' || strchr(name, '.') != NULL ||
		   (size_t)snprintf(path, sizeof(path), "%s/%s.conf", dir, name) >= sizeof(path)) {
		snprintf(err, errlen, "bad timing profile name '%.64s' (a name in %s, or a path)",
			 name, dir);
		return -EINVAL;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%.900s: cannot open timing profile: %s", path, strerror(errno));
		return -ENOENT;
	}
	text = malloc(65537);
	if (text == NULL) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	len = 0;
	while (len < 65536 && (n = fread(text + len, 1, 65536 - len, f)) > 0)
		len += n;
	fclose(f);
	if (len == 65536 || memchr(text, '\0', len) != NULL) {
		free(text);
		snprintf(err, errlen, "%.900s: not a timing profile (binary or over 64 KiB)", path);
		return -EINVAL;
	}
	text[len] = '\0';
	rc = sw_tm_profile_parse(p, text, path, err, errlen);
	free(text);
	if (rc != 0)
		return rc;
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)(strcspn(base, ".") < 31 ?
		 strcspn(base, ".") : 31), base);
	return 0;
}
