/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/telemetry's shared helpers: dict keys, decimal ids, and one page of
 * a list that can outgrow a reply (struct tel_page, rdx_telemetry_priv.h).
 * Calls no other file of lib/telemetry.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "rdx_telemetry_priv.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

/* Dict keys may hold only [A-Za-z0-9_/]: anything else becomes '_'. */
void
tel_key(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i] != '\0'; i++) {
		char c = src[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '/';

		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}

/* A decimal id of at most 6 digits (parameters: device ids, "#k"). */
int
tel_parse_id(const char *s, unsigned int *v)
{
	unsigned long x;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > 1000000)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}


/*
 * params -> p->start: none (NULL or "") is 0, else a decimal index (digits
 * only, at most 1000000). -EINVAL for anything else.
 */
int
tel_page_init(struct tel_page *p, const char *params)
{
	memset(p, 0, sizeof(*p));
	if (params == NULL || params[0] == '\0')
		return 0;
	return tel_parse_id(params, &p->start);
}

/*
 * The next entry of the list, len bytes of JSON at most: true when it goes
 * into the page (the caller adds it, then calls tel_page_added or, if
 * adding failed, tel_page_skip), false when it is before start or counted
 * in "more". Once an entry did not fit, no later one is listed, so "next"
 * is always the index of the first entry not listed.
 */
bool
tel_page_take(struct tel_page *p, size_t len)
{
	if (p->index++ < p->start)
		return false;
	if (p->more != 0 || p->nb == RTE_TEL_MAX_DICT_ENTRIES - 2 ||
	    p->bytes + len > TEL_PAGE_BUDGET) {
		p->more++;
		return false;
	}
	return true;
}

void
tel_page_added(struct tel_page *p, size_t len)
{
	p->nb++;
	p->bytes += len;
}

/* An entry tel_page_take let in could not be added (no memory): counted. */
void
tel_page_skip(struct tel_page *p)
{
	p->more++;
}

/*
 * After the walk: -ERANGE when start was past the end of the list (start
 * equal to the number of entries is an empty last page); else "more" and
 * "next" into d when entries are left, and 0.
 */
int
tel_page_end(struct tel_page *p, struct rte_tel_data *d)
{
	if (p->start > p->index)
		return -ERANGE;
	if (p->more != 0) {
		rte_tel_data_add_dict_u64(d, "more", p->more);
		rte_tel_data_add_dict_int(d, "next", (int)(p->start + p->nb));
	}
	return 0;
}
