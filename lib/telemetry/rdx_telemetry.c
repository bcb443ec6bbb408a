/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx commands on DPDK telemetry. DPDK owns the socket, the JSON and the
 * client thread; this file only registers callbacks (in a constructor, as
 * DPDK's own libraries do) and fills rte_tel_data from rdx state:
 *  - devices through the registry in lib/dev (rdx_dev_foreach holds its
 *    lock, so a device cannot be closed while a callback reads it);
 *  - lcore loops through rdx_lcore_loop_snapshot (relaxed loads), in
 *    rdx_telemetry_lcore.c;
 *  - QPs through the registry of live QPs (rdx_qp_foreach, its own lock,
 *    taken inside the devices' walk), their counters by rdx_qp_xstats_get.
 * The two lists that can outgrow a reply (/rdx/qp_list, /rdx/lcores) are
 * paged by one helper (struct tel_page, rdx_telemetry_page.c): "more" and
 * "next" say what is left.
 * Callbacks run on DPDK's telemetry thread, concurrently with the lcores:
 * they only read, and never touch the fast path.
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

#include <infiniband/verbs.h>

#include "rdx_config.h"
#include "rdx_dev.h"
#include "rdx_runtime.h"
#include "rdx_telemetry.h"
#include "rdx_telemetry_priv.h"

/*
 * "name" or "name#k" -> name and k (0 for the first device of that name);
 * all digits: a numeric id (the position in /rdx/devs, as /rdx/dev_list
 * gives it): *id set, name "". No device name is all digits.
 * Returns 0 or -EINVAL (empty, name too long, k or id not a number).
 */
static int
parse_dev_param(const char *params, char *name, size_t len, unsigned int *k, int *id)
{
	const char *hash;
	size_t nlen;
	unsigned int v;

	*id = -1;
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	if (params[strspn(params, "0123456789")] == '\0') {
		if (tel_parse_id(params, &v) != 0)
			return -EINVAL;
		*id = (int)v;
		name[0] = '\0';
		*k = 0;
		return 0;
	}
	hash = strchr(params, '#');
	nlen = hash != NULL ? (size_t)(hash - params) : strlen(params);
	if (nlen == 0 || nlen >= len)
		return -EINVAL;
	memcpy(name, params, nlen);
	name[nlen] = '\0';
	*k = 0;
	if (hash != NULL && tel_parse_id(hash + 1, k) != 0)
		return -EINVAL;
	return 0;
}

/* Under the registry lock: find the k-th open device named name (or the
 * id-th open device), run fn. */
typedef int (*dev_fn_t)(struct rdx_dev *dev, struct rte_tel_data *d, void *arg);

struct dev_call {
	const char *name;
	int id;                 /* >= 0: by position, name unused */
	unsigned int k;
	unsigned int seen;
	dev_fn_t fn;
	void *arg;
	struct rte_tel_data *d;
	int ret;
};

static int
dev_call_cb(struct rdx_dev *dev, void *arg)
{
	struct dev_call *c = arg;

	if (c->id < 0 && strcmp(rdx_dev_attr_get(dev)->name, c->name) != 0)
		return 0;
	if (c->id >= 0 && c->seen++ != (unsigned int)c->id)
		return 0;
	if (c->id >= 0) {
		c->ret = c->fn(dev, c->d, c->arg);
		return 1;
	}
	if (c->seen++ != c->k)
		return 0;
	c->ret = c->fn(dev, c->d, c->arg);
	return 1;
}

static int
with_dev(const char *params, dev_fn_t fn, void *arg, struct rte_tel_data *d)
{
	char name[sizeof(((struct rdx_dev_attr *)0)->name)];
	struct dev_call c = { .name = name, .fn = fn, .arg = arg, .d = d, .ret = -ENODEV };

	if (parse_dev_param(params, name, sizeof(name), &c.k, &c.id) != 0)
		return -EINVAL;
	if (rdx_dev_foreach(dev_call_cb, &c) == 0)
		return -ENODEV;
	return c.ret;
}

/*
 * The telemetry name of a device: attr.name, "#k" for the k-th duplicate.
 * dev may have been closed already: it is only compared as a pointer until
 * the walk (under the registry lock) has found it open.
 */
struct dev_namer {
	const struct rdx_dev *dev;
	const struct rdx_dev **before;  /* devices listed before it */
	unsigned int nb_before;
	unsigned int cap;
	char *buf;
	size_t len;
	int ret;
};

static void
dev_name_fmt(char *buf, size_t len, const char *name, unsigned int k)
{
	if (k == 0)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s#%u", name, k);
}

static int
dev_namer_cb(struct rdx_dev *dev, void *arg)
{
	struct dev_namer *nm = arg;
	const char *name = rdx_dev_attr_get(dev)->name;
	unsigned int i, k = 0;

	if (dev == nm->dev) {
		for (i = 0; i < nm->nb_before; i++)
			if (strcmp(rdx_dev_attr_get(nm->before[i])->name, name) == 0)
				k++;
		dev_name_fmt(nm->buf, nm->len, name, k);
		nm->ret = 0;
		return 1;
	}
	if (nm->nb_before == nm->cap) {
		unsigned int cap = nm->cap != 0 ? 2 * nm->cap : 16;
		const struct rdx_dev **b = realloc(nm->before, cap * sizeof(*b));

		if (b == NULL) {
			nm->ret = -ENOMEM;
			return 1;
		}
		nm->before = b;
		nm->cap = cap;
	}
	nm->before[nm->nb_before++] = dev;
	return 0;
}

int
rdx_telemetry_dev_name(const struct rdx_dev *dev, char *buf, size_t len)
{
	struct dev_namer nm = { .dev = dev, .buf = buf, .len = len, .ret = -ENOENT };

	if (dev == NULL || buf == NULL || len == 0)
		return -EINVAL;
	rdx_dev_foreach(dev_namer_cb, &nm);
	free(nm.before);
	return nm.ret;
}

/* A getter with rdx_dev_xstats_get's contract, for a device or a QP. */
typedef int (*xstats_get_t)(void *obj, struct rdx_dev_xstat *xs, unsigned int n);

/* d as a dict of obj's counters (at most RTE_TEL_MAX_DICT_ENTRIES): the
 * number added, or the getter's negative errno, or -ENOMEM. */
static int
xstats_fill(struct rte_tel_data *d, xstats_get_t get, void *obj)
{
	struct rdx_dev_xstat *xs;
	int n, got, i;

	rte_tel_data_start_dict(d);
	n = get(obj, NULL, 0);
	if (n <= 0)
		return n;
	n = RTE_MIN(n, RTE_TEL_MAX_DICT_ENTRIES);
	xs = calloc((size_t)n, sizeof(*xs));
	if (xs == NULL)
		return -ENOMEM;
	got = RTE_MIN(get(obj, xs, (unsigned int)n), n);
	for (i = 0; i < got; i++) {
		char key[RDX_DEV_XSTAT_NAME_LEN];

		tel_key(key, sizeof(key), xs[i].name);
		rte_tel_data_add_dict_u64(d, key, xs[i].value);
	}
	free(xs);
	return got;
}

static int
dev_xstats_get(void *obj, struct rdx_dev_xstat *xs, unsigned int n)
{
	return rdx_dev_xstats_get(obj, xs, n);
}

int
rdx_telemetry_dev_xstats(struct rdx_dev *dev, struct rte_tel_data *d)
{
	if (dev == NULL || d == NULL)
		return -EINVAL;
	return xstats_fill(d, dev_xstats_get, dev);
}

/* ------------------------------------------------------------------ */
/* /rdx/info                                                          */

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int ids[RDX_MAX_LCORES], nw, i;
	struct rte_tel_data *workers;
	char buf[32];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", RDX_VERSION_STR);
	rte_tel_data_add_dict_int(d, "pid", (int)getpid());
	rte_tel_data_add_dict_u64(d, "tsc_hz", rdx_tsc_hz());
	/* 22.11 telemetry has no floating-point values: decimals as strings */
	snprintf(buf, sizeof(buf), "%.1f", rdx_tsc_cost_cycles());
	rte_tel_data_add_dict_string(d, "tsc_cost_cycles", buf);
	snprintf(buf, sizeof(buf), "%.1f", rdx_tsc_cost_min_cycles());
	rte_tel_data_add_dict_string(d, "tsc_cost_min_cycles", buf);
	rte_tel_data_add_dict_int(d, "main_lcore", (int)rte_get_main_lcore());
	nw = rdx_runtime_workers(ids, RTE_DIM(ids));
	workers = rte_tel_data_alloc();
	if (workers != NULL) {
		rte_tel_data_start_array(workers, RTE_TEL_INT_VAL);
		for (i = 0; i < nw && i < RTE_DIM(ids); i++)
			rte_tel_data_add_array_int(workers, (int)ids[i]);
		if (rte_tel_data_add_dict_container(d, "worker_lcores", workers, 0) != 0)
			rte_tel_data_free(workers);
	}
	rte_tel_data_add_dict_int(d, "lcore_loops", (int)rdx_lcore_loop_lcores(NULL, 0));
	rte_tel_data_add_dict_int(d, "devs_open", (int)rdx_dev_count());
	return 0;
}

/* ------------------------------------------------------------------ */
/* /rdx/devs, /rdx/dev_info, /rdx/dev_xstats                         */

struct dev_lister {
	struct rte_tel_data *d;
	struct {
		const char *name;
		unsigned int seen;
	} names[RTE_TEL_MAX_ARRAY_ENTRIES];
	unsigned int nb_names;
};

static int
dev_list_cb(struct rdx_dev *dev, void *arg)
{
	struct dev_lister *l = arg;
	char name[sizeof(((struct rdx_dev_attr *)0)->name) + 12];
	unsigned int i, k = 0;

	for (i = 0; i < l->nb_names; i++)
		if (strcmp(l->names[i].name, rdx_dev_attr_get(dev)->name) == 0) {
			k = ++l->names[i].seen;
			break;
		}
	if (i == l->nb_names) {
		if (l->nb_names == RTE_DIM(l->names))
			return 1;
		l->names[l->nb_names].name = rdx_dev_attr_get(dev)->name;
		l->names[l->nb_names].seen = 0;
		l->nb_names++;
	}
	dev_name_fmt(name, sizeof(name), rdx_dev_attr_get(dev)->name, k);
	return rte_tel_data_add_array_string(l->d, name) != 0;
}

static int
tel_devs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dev_lister *l;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	l->d = d;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rdx_dev_foreach(dev_list_cb, l);
	free(l);
	return 0;
}

/* [0, 1, ...]: the ids /rdx/dev_info and /rdx/dev_xstats take, in /rdx/devs order */
static int
tel_dev_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i, n;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	n = RTE_MIN(rdx_dev_count(), (unsigned int)RTE_TEL_MAX_ARRAY_ENTRIES);
	for (i = 0; i < n; i++)
		rte_tel_data_add_array_int(d, (int)i);
	return 0;
}

static const char *
link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "unspecified";
	}
}

static int
dev_info_fill(struct rdx_dev *dev, struct rte_tel_data *d, void *arg)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);

	RTE_SET_USED(arg);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", a->name);
	rte_tel_data_add_dict_string(d, "driver", a->driver);
	rte_tel_data_add_dict_int(d, "software", a->software ? 1 : 0);
	rte_tel_data_add_dict_string(d, "results", a->software ? "software device" :
				     "hardware");
	rte_tel_data_add_dict_u64(d, "max_msg_size", a->max_msg_size);
	rte_tel_data_add_dict_u64(d, "max_qp_wr", a->max_qp_wr);
	rte_tel_data_add_dict_u64(d, "max_sge", a->max_sge);
	rte_tel_data_add_dict_u64(d, "max_inline", a->max_inline);
	rte_tel_data_add_dict_u64(d, "max_cqe", a->max_cqe);
	rte_tel_data_add_dict_u64(d, "max_qp", a->max_qp);
	rte_tel_data_add_dict_int(d, "atomics", a->atomics ? 1 : 0);
	rte_tel_data_add_dict_u64(d, "max_dm_size", a->max_dm_size);
	/* enum ibv_mtu: 1 = 256 B .. 5 = 4096 B */
	rte_tel_data_add_dict_int(d, "active_mtu",
				  a->active_mtu >= 1 && a->active_mtu <= 5 ?
				  128 << a->active_mtu : 0);
	rte_tel_data_add_dict_string(d, "link_layer", link_layer_name(a->link_layer));
	rte_tel_data_add_dict_int(d, "xstats", rdx_dev_xstats_get(dev, NULL, 0));
	return 0;
}

static int
tel_dev_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return with_dev(params, dev_info_fill, NULL, d);
}

static int
dev_xstats_fill(struct rdx_dev *dev, struct rte_tel_data *d, void *arg)
{
	int ret = rdx_telemetry_dev_xstats(dev, d);

	RTE_SET_USED(arg);
	return ret < 0 ? ret : 0;
}

static int
tel_dev_xstats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return with_dev(params, dev_xstats_fill, NULL, d);
}

/* ------------------------------------------------------------------ */
/* /rdx/qp_list, /rdx/qp_xstats                                       */

static int
qp_xstats_get(void *obj, struct rdx_dev_xstat *xs, unsigned int n)
{
	return rdx_qp_xstats_get(obj, xs, n);
}

int
rdx_telemetry_qp_xstats(struct rdx_qp *qp, struct rte_tel_data *d)
{
	if (qp == NULL || d == NULL)
		return -EINVAL;
	return xstats_fill(d, qp_xstats_get, qp);
}

/* The walk of /rdx/qp_list: devices in /rdx/devs order (ids, "#k" names),
 * within each its QPs in creation order, one dict each: one page of that
 * list (struct tel_page), the QPs after it counted in "more". */
struct qp_lister {
	struct rte_tel_data *d;
	struct rdx_dev *only;           /* a device named by the parameter, or NULL */
	unsigned int id;                /* the current device's id */
	char dev_name[sizeof(((struct rdx_dev_attr *)0)->name) + 12];
	struct tel_page page;
	struct dev_lister names;        /* "#k" of duplicate names */
};

static int
qp_list_qp(struct rdx_qp *qp, void *arg)
{
	struct qp_lister *l = arg;
	struct rte_tel_data *c;
	int state = rdx_qp_state_get(qp);
	const char *type = rdx_qp_type_name(qp->conf.type);
	const char *st = state < 0 ? "?" : rdx_qp_state_name(state);
	/* the lcore that posts, when the QP was created naming one */
	int lcore = qp->conf.post_lcore != 0 ? (int)qp->conf.post_lcore - 1 : -1;
	char key[32];
	int len;

	/* "<dev>/<qp_num>", as /rdx/qp_xstats,<dev>,<qp_num> takes them
	 * (22.11 arrays hold no dicts: a dict of dicts, as /rdx/lcores) */
	snprintf(key, sizeof(key), "%u/%u", l->id, qp->qp_num);
	/* the entry as DPDK writes it, a few bytes to spare */
	len = snprintf(NULL, 0, ",\"%s\":{\"dev\":%u,\"dev_name\":\"%s\",\"qp_num\":%u,"
		       "\"type\":\"%s\",\"state\":\"%s\",\"lcore\":%d,\"sq_depth\":%u,"
		       "\"rq_depth\":%u}", key, l->id, l->dev_name, qp->qp_num, type, st,
		       lcore, qp->conf.sq_depth, qp->conf.rq_depth) + 8;
	if (!tel_page_take(&l->page, (size_t)len))
		return 0;
	c = rte_tel_data_alloc();
	if (c == NULL) {
		tel_page_skip(&l->page);
		return 0;
	}
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_int(c, "dev", (int)l->id);
	rte_tel_data_add_dict_string(c, "dev_name", l->dev_name);
	rte_tel_data_add_dict_u64(c, "qp_num", qp->qp_num);
	rte_tel_data_add_dict_string(c, "type", type);
	rte_tel_data_add_dict_string(c, "state", st);
	rte_tel_data_add_dict_int(c, "lcore", lcore);
	rte_tel_data_add_dict_u64(c, "sq_depth", qp->conf.sq_depth);
	rte_tel_data_add_dict_u64(c, "rq_depth", qp->conf.rq_depth);
	if (rte_tel_data_add_dict_container(l->d, key, c, 0) != 0) {
		rte_tel_data_free(c);
		tel_page_skip(&l->page);
		return 0;
	}
	tel_page_added(&l->page, (size_t)len);
	return 0;
}

static int
qp_list_dev(struct rdx_dev *dev, void *arg)
{
	struct qp_lister *l = arg;
	const char *name = rdx_dev_attr_get(dev)->name;
	unsigned int i, k = 0;
	int ret = 0;

	for (i = 0; i < l->names.nb_names; i++)
		if (strcmp(l->names.names[i].name, name) == 0) {
			k = ++l->names.names[i].seen;
			break;
		}
	if (i == l->names.nb_names && i < RTE_DIM(l->names.names)) {
		l->names.names[i].name = name;
		l->names.names[i].seen = 0;
		l->names.nb_names++;
	}
	dev_name_fmt(l->dev_name, sizeof(l->dev_name), name, k);
	if (l->only == NULL || l->only == dev)
		ret = rdx_qp_foreach(dev, qp_list_qp, l);
	l->id++;
	return ret;
}

/* with_dev's callback for "/rdx/qp_list,<dev>": remember which one. */
static int
qp_list_pick(struct rdx_dev *dev, struct rte_tel_data *d, void *arg)
{
	RTE_SET_USED(d);
	*(struct rdx_dev **)arg = dev;
	return 0;
}

/*
 * Parameters "[<dev>][,<start>]": every device's QPs or <dev>'s, from the
 * start-th on (0 when not given). A number alone is a device id, as it was
 * before pages: from an index on, every device's is ",<start>".
 */
static int
tel_qp_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char dev[sizeof(((struct rdx_dev_attr *)0)->name) + 12];
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	size_t dlen = params == NULL ? 0 : comma != NULL ? (size_t)(comma - params) :
		      strlen(params);
	struct qp_lister *l;
	int ret;

	RTE_SET_USED(cmd);
	if (dlen >= sizeof(dev))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	/* ",<start>" needs digits: "sw," is as bad as "sw,x" */
	ret = comma != NULL && comma[1] == '\0' ? -EINVAL :
	      tel_page_init(&l->page, comma != NULL ? comma + 1 : NULL);
	/* a device given: only its QPs (it may close before the walk below,
	 * which then lists nothing: it only compares the pointer) */
	if (ret == 0 && dlen != 0) {
		memcpy(dev, params, dlen);
		dev[dlen] = '\0';
		ret = with_dev(dev, qp_list_pick, &l->only, d);
	}
	if (ret != 0) {
		free(l);
		return ret;
	}
	l->d = d;
	rte_tel_data_start_dict(d);
	rdx_dev_foreach(qp_list_dev, l);
	/* the QPs that did not fit: "more", and "next" to pass for the rest */
	ret = tel_page_end(&l->page, d);
	free(l);
	return ret;
}

/* A QP number: decimal, 24 bits. */
static int
parse_qpn(const char *s, uint32_t *qpn)
{
	unsigned long x;
	char *end;

	if (s[0] < '0' || s[0] > '9' || strlen(s) > 8)
		return -EINVAL;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > 0xffffff)
		return -EINVAL;
	*qpn = (uint32_t)x;
	return 0;
}

struct qp_find {
	uint32_t qpn;
	struct rte_tel_data *d;
	int ret;
};

static int
qp_xstats_cb(struct rdx_qp *qp, void *arg)
{
	struct qp_find *f = arg;

	if (qp->qp_num != f->qpn)
		return 0;
	f->ret = rdx_telemetry_qp_xstats(qp, f->d);
	return 1;
}

/* Under both registries' locks: the QP cannot go while it is read. */
static int
qp_xstats_dev(struct rdx_dev *dev, struct rte_tel_data *d, void *arg)
{
	struct qp_find *f = arg;

	f->d = d;
	f->ret = -ENOENT;
	rdx_qp_foreach(dev, qp_xstats_cb, f);
	return f->ret < 0 ? f->ret : 0;
}

static int
tel_qp_xstats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char dev[80];
	const char *comma;
	struct qp_find f;

	RTE_SET_USED(cmd);
	if (params == NULL || (comma = strrchr(params, ',')) == NULL ||
	    comma == params || (size_t)(comma - params) >= sizeof(dev) ||
	    parse_qpn(comma + 1, &f.qpn) != 0)
		return -EINVAL;
	memcpy(dev, params, (size_t)(comma - params));
	dev[comma - params] = '\0';
	return with_dev(dev, qp_xstats_dev, &f, d);
}

/* ------------------------------------------------------------------ */

RTE_INIT(rdx_telemetry_init)
{
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_INFO, tel_info,
		"rdx version, TSC Hz and rdx_tsc cost, main and worker lcores. No parameters.");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_DEVS, tel_devs,
		"Names of the open rdx devices. No parameters.");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_DEV_LIST, tel_dev_list,
		"Ids of the open rdx devices (0, 1, ... in /rdx/devs order). No parameters.");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_DEV_INFO, tel_dev_info,
		"Attributes of an open rdx device. Parameters: device id (from /rdx/dev_list) or name (from /rdx/devs).");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_DEV_XSTATS, tel_dev_xstats,
		"Counters of an open rdx device. Parameters: device id (from /rdx/dev_list) or name (from /rdx/devs).");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_QP_LIST, tel_qp_list,
		"Live QPs: dev id and name, qp_num, type, state, lcore, depths. Parameters: [<dev>][,<start>], <start> from a reply's next.");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_QP_XSTATS, tel_qp_xstats,
		"Counters of one QP. Parameters: device id (or name), qp_num (decimal, from /rdx/qp_list).");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_LCORES, tel_lcores,
		"Worker lcores and lcores running an rdx_lcore_loop: loop totals and the app's counters. Parameters: none, or a reply's next.");
	rte_telemetry_register_cmd(RDX_TELEMETRY_CMD_LCORE, tel_lcore,
		"One lcore: its rdx_lcore_loop's totals and pollers, the app's counters. Parameters: lcore id.");
}
