/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/telemetry: the helpers its command files share
 * (rdx_telemetry_page.c): dict keys, decimal ids, and the paging of a list
 * that can outgrow a reply.
 */
#ifndef RDX_TELEMETRY_PRIV_H
#define RDX_TELEMETRY_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <rte_telemetry.h>

/*
 * DPDK 22.11 writes at most this much JSON per reply (MAX_OUTPUT_LEN in
 * lib/telemetry/telemetry.c, the greeting's max_output_len) and silently
 * leaves out the dict entries that do not fit. The lists that can exceed it
 * (/rdx/qp_list, /rdx/lcores) are paged: each keeps its own count against
 * it, less room for the reply's envelope ({"/rdx/qp_list":...}) and its
 * "more" and "next" entries.
 */
#define TEL_REPLY_MAX 16384
#define TEL_PAGE_BUDGET (TEL_REPLY_MAX - 128)

/*
 * One page of a list: a dict of entries, the entries from index start on
 * (in the list's order), as many as fit in a reply: at most
 * RTE_TEL_MAX_DICT_ENTRIES - 2 (room for "more" and "next") and
 * TEL_PAGE_BUDGET bytes of JSON by the caller's estimate of each entry.
 * The caller meets the entries in order and asks tel_page_take for each;
 * tel_page_end adds "more" (entries after start not listed) and "next"
 * (the index to pass for the next page) when the page is not the last.
 */
struct tel_page {
	unsigned int start;     /* index of the first entry to list */
	unsigned int index;     /* entries met so far */
	unsigned int nb;        /* entries listed */
	unsigned int more;      /* entries from start on not listed */
	size_t bytes;           /* JSON of the entries listed (estimate) */
};

void tel_key(char *dst, size_t len, const char *src);
int tel_parse_id(const char *s, unsigned int *v);
int tel_page_init(struct tel_page *p, const char *params);
bool tel_page_take(struct tel_page *p, size_t len);
void tel_page_added(struct tel_page *p, size_t len);
void tel_page_skip(struct tel_page *p);
int tel_page_end(struct tel_page *p, struct rte_tel_data *d);

/* rdx_telemetry_lcore.c: /rdx/lcores, /rdx/lcore */
int tel_lcores(const char *cmd, const char *params, struct rte_tel_data *d);
int tel_lcore(const char *cmd, const char *params, struct rte_tel_data *d);

#endif /* RDX_TELEMETRY_PRIV_H */
