/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx commands on DPDK telemetry, the lcores: /rdx/lcores (paged) and
 * /rdx/lcore, from rdx_lcore_loop_snapshot (relaxed loads), EAL's worker
 * state and the app's hook (rdx_telemetry_lcore_info_set). Registered
 * with the others in rdx_telemetry.c; calls only rdx_telemetry_page.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "rdx_config.h"
#include "rdx_runtime.h"
#include "rdx_telemetry.h"
#include "rdx_telemetry_priv.h"

/* ------------------------------------------------------------------ */
/* /rdx/lcores, /rdx/lcore                                            */

static int
busy_pct(uint64_t busy, uint64_t idle)
{
	uint64_t total = busy + idle;

	/* rounded to the nearest percent; raw cycles are there too */
	return total == 0 ? 0 : (int)((200 * (double)busy / (double)total + 1) / 2);
}

static void
loop_totals(struct rte_tel_data *d, const struct rdx_lcore_loop *l)
{
	rte_tel_data_add_dict_u64(d, "iterations", l->iterations);
	rte_tel_data_add_dict_u64(d, "busy_cycles", l->busy_cycles);
	rte_tel_data_add_dict_u64(d, "idle_cycles", l->idle_cycles);
	rte_tel_data_add_dict_int(d, "busy_pct", busy_pct(l->busy_cycles, l->idle_cycles));
	rte_tel_data_add_dict_int(d, "pollers", (int)l->nb_pollers);
}

/* The app's lcore hook (rdx_telemetry_lcore_info_set): fn is published
 * after arg, and read before it. */
static void *lcore_hook_arg;
static rdx_telemetry_lcore_fn_t lcore_hook_fn;

int
rdx_telemetry_lcore_info_set(rdx_telemetry_lcore_fn_t fn, void *arg)
{
	__atomic_store_n(&lcore_hook_fn, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&lcore_hook_arg, arg, __ATOMIC_RELEASE);
	__atomic_store_n(&lcore_hook_fn, fn, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The JSON lcore_fill writes for lcore id, its own fields (loop: l, or NULL
 * when none runs), as DPDK writes it: {"lcore":..,"loop":".."}, the longest
 * "loop" value counted, a few bytes to spare.
 */
static size_t
lcore_json_len(unsigned int id, const char *role, const char *state,
	       const struct rdx_lcore_loop *l)
{
	int n;

	n = snprintf(NULL, 0, "{\"lcore\":%u,\"role\":\"%s\",\"state\":\"%s\","
		     "\"loop\":\"rdx_lcore_loop\"}", id, role, state);
	if (l != NULL)
		n += snprintf(NULL, 0, ",\"iterations\":%" PRIu64 ",\"busy_cycles\":%" PRIu64
			      ",\"idle_cycles\":%" PRIu64 ",\"busy_pct\":%d,\"pollers\":%d",
			      l->iterations, l->busy_cycles, l->idle_cycles,
			      busy_pct(l->busy_cycles, l->idle_cycles), (int)l->nb_pollers);
	return (size_t)n + 8;
}

/*
 * Into the dict d: what is known of lcore id: its rdx_lcore_loop (copied
 * into l), whether it is an EAL worker running a function, the app's hook.
 * Returns 1 when any of them says something, 0 when none does. len (NULL:
 * not wanted): the JSON of d at most, as DPDK writes it, with
 * RDX_TELEMETRY_LCORE_APP_BYTES for the hook's entries when there is one.
 */
static int
lcore_fill(unsigned int id, struct rte_tel_data *d, struct rdx_lcore_loop *l, size_t *len)
{
	rdx_telemetry_lcore_fn_t fn = __atomic_load_n(&lcore_hook_fn, __ATOMIC_ACQUIRE);
	bool loop = rdx_lcore_loop_snapshot(id, l) == 0;
	bool worker = id < RTE_MAX_LCORE && id != rte_get_main_lcore() && rte_lcore_is_enabled(id);
	bool running = worker && rte_eal_get_lcore_state(id) == RUNNING;
	int listed = loop || running;

	const char *role = id == rte_get_main_lcore() ? "main" : worker ? "worker" : "other";
	const char *state = running ? "running" : worker ? "waiting" : "-";

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "lcore", (int)id);
	rte_tel_data_add_dict_string(d, "role", role);
	rte_tel_data_add_dict_string(d, "state", state);
	if (loop)
		loop_totals(d, l);
	if (fn != NULL && fn(id, d, __atomic_load_n(&lcore_hook_arg, __ATOMIC_ACQUIRE)) > 0)
		listed = 1;
	/* an lcore the app reports on runs the app's loop if not ours */
	rte_tel_data_add_dict_string(d, "loop", loop ? "rdx_lcore_loop" :
				     listed ? "app's own" : "none");
	if (len != NULL)
		*len = lcore_json_len(id, role, state, loop ? l : NULL) +
		       (fn != NULL ? RDX_TELEMETRY_LCORE_APP_BYTES : 0);
	return listed;
}

/*
 * The lcores listed, in id order, from the start-th on (params: none or a
 * decimal index), paged as /rdx/qp_list: "more" and "next" when the rest did
 * not fit. Each entry is measured from the snapshot it was filled from;
 * the app's hook gets RDX_TELEMETRY_LCORE_APP_BYTES.
 */
int
tel_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rdx_lcore_loop *l;
	struct tel_page page;
	unsigned int id;
	int ret;

	RTE_SET_USED(cmd);
	ret = tel_page_init(&page, params);
	if (ret != 0)
		return ret;
	l = malloc(sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		struct rte_tel_data *c;
		char key[16];
		size_t len;

		if (!rte_lcore_is_enabled(id))
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL) {        /* an error reply rather than a cut list */
			free(l);
			return -ENOMEM;
		}
		if (lcore_fill(id, c, l, &len) == 0) {
			rte_tel_data_free(c);
			continue;
		}
		snprintf(key, sizeof(key), "%u", id);
		len += strlen(key) + 4;         /* ,"<id>": */
		if (!tel_page_take(&page, len)) {
			rte_tel_data_free(c);
			continue;
		}
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0) {
			rte_tel_data_free(c);
			tel_page_skip(&page);
			continue;
		}
		tel_page_added(&page, len);
	}
	free(l);
	return tel_page_end(&page, d);
}

int
tel_lcore(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rdx_lcore_loop *l;
	unsigned long id;
	unsigned int i;
	char *end;
	int ret;

	RTE_SET_USED(cmd);
	if (params == NULL || params[0] < '0' || params[0] > '9')
		return -EINVAL;
	errno = 0;
	id = strtoul(params, &end, 10);
	if (errno != 0 || *end != '\0' || id >= RTE_MAX_LCORE)
		return -EINVAL;
	l = malloc(sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	memset(l, 0, sizeof(*l));
	ret = lcore_fill((unsigned int)id, d, l, NULL);
	if (ret == 0) {      /* nothing runs there and the app knows nothing of it */
		free(l);
		return -ENOENT;
	}
	for (i = 0; i < l->nb_pollers; i++) {
		const struct rdx_poller *p = &l->pollers[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char key[80], name[48];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "name", p->name != NULL ? p->name : "");
		rte_tel_data_add_dict_u64(c, "calls", p->calls);
		rte_tel_data_add_dict_u64(c, "busy_calls", p->busy_calls);
		rte_tel_data_add_dict_u64(c, "busy_cycles", p->busy_cycles);
		rte_tel_data_add_dict_u64(c, "idle_cycles", p->idle_cycles);
		rte_tel_data_add_dict_int(c, "busy_pct", busy_pct(p->busy_cycles,
								  p->idle_cycles));
		/* keys are unique (index first) and telemetry-safe */
		tel_key(name, sizeof(name), p->name != NULL ? p->name : "poller");
		snprintf(key, sizeof(key), "poller%u_%s", i, name);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
			rte_tel_data_free(c);
	}
	free(l);
	return 0;
}
