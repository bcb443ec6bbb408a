/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registered drivers and device selection, the registry of open
 * devices, and the control-path wrappers over the driver ops (with the
 * argument checks every driver shares). No driver is named here: drivers
 * register themselves (rdx_dev_driver.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_config.h>
#include <rte_errno.h>
#include <rte_log.h>

#include <infiniband/verbs.h>

#include "rdx_dev.h"
#include "rdx_dev_driver.h"

RTE_LOG_REGISTER_DEFAULT(rdx_dev_logtype, NOTICE)
#define DEV_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, rdx_dev_logtype, "rdx_dev: " __VA_ARGS__)

/*
 * Open devices, in opening order, for telemetry and tools. Control path
 * only: the lock is taken by open, close and rdx_dev_foreach, never by the
 * datapath. A plain array: a device opened twice (a test's stub) is listed
 * twice and each close removes one entry.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdx_dev **reg_devs;
static unsigned int reg_nb;
static unsigned int reg_cap;

static int
reg_add(struct rdx_dev *dev)
{
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	if (reg_nb == reg_cap) {
		unsigned int cap = reg_cap != 0 ? 2 * reg_cap : 8;
		struct rdx_dev **d = realloc(reg_devs, cap * sizeof(*d));

		if (d == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		reg_devs = d;
		reg_cap = cap;
	}
	reg_devs[reg_nb++] = dev;
out:
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

static void
reg_del(struct rdx_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_nb; i++) {
		if (reg_devs[i] == dev) {
			memmove(&reg_devs[i], &reg_devs[i + 1],
				(reg_nb - i - 1) * sizeof(reg_devs[0]));
			reg_nb--;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
}

int
rdx_dev_foreach(rdx_dev_foreach_fn_t fn, void *arg)
{
	unsigned int i;
	int ret = 0;

	if (fn == NULL)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_nb && ret == 0; i++)
		ret = fn(reg_devs[i], arg);
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

unsigned int
rdx_dev_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&reg_lock);
	n = reg_nb;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

int
rdx_dev_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n)
{
	if (dev == NULL || (xs == NULL && n != 0))
		return -EINVAL;
	if (dev->ops == NULL || dev->ops->xstats_get == NULL)
		return 0;
	return dev->ops->xstats_get(dev, xs, xs == NULL ? 0 : n);
}

int
rdx_dev_list(char names[][64], int n)
{
	struct ibv_device **list;
	int num = 0, i;

	/* Without /sys/class/infiniband this returns NULL (errno ENOSYS):
	 * that is "no device", not an error. */
	list = ibv_get_device_list(&num);
	if (list == NULL)
		return 0;
	for (i = 0; i < num && i < n; i++)
		snprintf(names[i], 64, "%s", ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	return num;
}

/* ------------------------------------------------------------------ */
/* Registered drivers                                                 */

/* Filled by constructors before main(), read-only afterwards: no lock. */
static struct rdx_driver *drv_head;
static unsigned int drv_nb;

void
rdx_driver_register(struct rdx_driver *drv)
{
	struct rdx_driver **pp;

	if (drv == NULL || drv->name == NULL || drv->open == NULL ||
	    (drv->probe == NULL) == (drv->match_name == NULL)) {
		fprintf(stderr, "rdx: driver '%s' not registered: it needs a name, open, and "
			"either probe (RDMA devices) or match_name (software devices)\n",
			drv != NULL && drv->name != NULL ? drv->name : "?");
		return;
	}
	for (pp = &drv_head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == drv)
			return;
		if (strcmp((*pp)->name, drv->name) == 0) {
			fprintf(stderr, "rdx: driver '%s' registered twice: the second one is ignored\n",
				drv->name);
			return;
		}
	}
	drv->next = NULL;
	*pp = drv;
	drv_nb++;
}

int
rdx_dev_driver_foreach(rdx_dev_driver_foreach_fn_t fn, void *arg)
{
	const struct rdx_driver *d;
	int ret = 0;

	if (fn == NULL)
		return -EINVAL;
	for (d = drv_head; d != NULL && ret == 0; d = d->next)
		ret = fn(d->name, d->desc != NULL ? d->desc : d->name, arg);
	return ret;
}

unsigned int
rdx_dev_driver_count(void)
{
	return drv_nb;
}

static const struct rdx_driver *
driver_find(const char *name)
{
	const struct rdx_driver *d;

	for (d = drv_head; d != NULL; d = d->next)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

/* "auto, mlx5, sw or verbs": what conf->driver may name here. */
static void
driver_names(char *buf, size_t len)
{
	const struct rdx_driver *d;
	size_t off;

	off = (size_t)snprintf(buf, len, "auto");
	for (d = drv_head; d != NULL && off < len; d = d->next)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					d->next == NULL ? " or " : ", ", d->name);
}

/* The software driver that takes name (NULL: the first one, the default). */
static const struct rdx_driver *
driver_by_sw_name(const char *name)
{
	const struct rdx_driver *d;

	for (d = drv_head; d != NULL; d = d->next)
		if (d->match_name != NULL && (name == NULL || d->match_name(name)))
			return d;
	return NULL;
}

/* The best-scoring RDMA driver for ibdev, or NULL; *score gets its score. */
static const struct rdx_driver *
driver_best(struct ibv_device *ibdev, int *score)
{
	const struct rdx_driver *d, *best = NULL;
	int s;

	*score = 0;
	for (d = drv_head; d != NULL; d = d->next) {
		if (d->probe == NULL)
			continue;
		s = d->probe(ibdev);
		if (s > *score) {
			*score = s;
			best = d;
		}
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* devargs: "key=value[,key=value...]"                                */

/* One pair of devargs at *p: key [kp, kp+kl), value [vp, vp+vl); advances
 * *p past it. 0 at the end, 1 for a pair, -EINVAL for a malformed one. */
static int
devargs_next(const char **p, const char **kp, size_t *kl, const char **vp, size_t *vl)
{
	const char *s = *p, *eq, *end;

	while (*s == ',')
		s++;
	if (*s == '\0')
		return 0;
	end = s + strcspn(s, ",");
	eq = memchr(s, '=', (size_t)(end - s));
	*p = end;
	if (eq == NULL || eq == s)
		return -EINVAL;
	*kp = s;
	*kl = (size_t)(eq - s);
	*vp = eq + 1;
	*vl = (size_t)(end - eq - 1);
	return 1;
}

int
rdx_devargs_get(const char *devargs, const char *key, char *val, size_t len)
{
	const char *p = devargs, *kp, *vp;
	size_t kl, vl;
	int found = 0, r;

	if (devargs == NULL || key == NULL)
		return 0;
	while ((r = devargs_next(&p, &kp, &kl, &vp, &vl)) != 0) {
		if (r < 0 || kl != strlen(key) || strncmp(kp, key, kl) != 0)
			continue;
		if (vl >= len)
			return -ENOSPC;
		memcpy(val, vp, vl);
		val[vl] = '\0';
		found = 1;
	}
	return found;
}

/* Every pair well formed, every key one drv takes: else one line, -EINVAL. */
static int
devargs_check(const struct rdx_driver *drv, const char *devargs)
{
	const char *p = devargs, *kp, *vp;
	const char *const *k;
	size_t kl, vl;
	int r;

	if (devargs == NULL)
		return 0;
	while ((r = devargs_next(&p, &kp, &kl, &vp, &vl)) != 0) {
		if (r < 0) {
			fprintf(stderr, "rdx: bad devargs '%s' for driver %s: expected key=value[,key=value...]\n",
				devargs, drv->name);
			return -EINVAL;
		}
		for (k = drv->devargs_keys; k != NULL && *k != NULL; k++)
			if (strlen(*k) == kl && strncmp(*k, kp, kl) == 0)
				break;
		if (k == NULL || *k == NULL) {
			fprintf(stderr, "rdx: devargs key '%.*s' not known to driver %s (%s)\n",
				(int)kl, kp, drv->name,
				drv->devargs_keys != NULL ? "see its README" : "it takes none");
			return -EINVAL;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Device selection                                                   */

static struct rdx_dev *
driver_open(const struct rdx_driver *drv, struct ibv_device *ibdev, const char *devargs,
	    const struct rdx_dev_conf *conf)
{
	struct rdx_dev *dev;

	if (devargs_check(drv, devargs) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = drv->open(ibdev, devargs != NULL && devargs[0] != '\0' ? devargs : NULL, conf);
	if (dev != NULL)
		dev->conf.devargs = NULL; /* the caller's string: not kept */
	return dev;
}

/* RDMA device ibdev with driver forced (NULL: the best-scoring one). */
static struct rdx_dev *
open_ibdev(struct ibv_device *ibdev, const struct rdx_driver *forced, const char *devargs,
	   const struct rdx_dev_conf *conf)
{
	const struct rdx_driver *drv;
	int score;

	drv = driver_best(ibdev, &score);
	if (forced != NULL) {
		if (forced->probe(ibdev) <= 0) {
			fprintf(stderr, "rdx: device %s is not a device of driver %s%s%s\n",
				ibv_get_device_name(ibdev), forced->name,
				drv != NULL ? ": use --driver " : "", drv != NULL ? drv->name : "");
			rte_errno = ENOTSUP;
			return NULL;
		}
		drv = forced;
	}
	if (drv == NULL) {
		fprintf(stderr, "rdx: no driver linked into this program takes device %s\n",
			ibv_get_device_name(ibdev));
		rte_errno = ENODEV;
		return NULL;
	}
	return driver_open(drv, ibdev, devargs, conf);
}

static struct rdx_dev *
open_sw(const struct rdx_driver *drv, const char *devargs, const struct rdx_dev_conf *conf)
{
	if (drv == NULL) {
		fprintf(stderr, "rdx: no software device linked into this program\n");
		rte_errno = ENODEV;
		return NULL;
	}
	return driver_open(drv, NULL, devargs, conf);
}

static struct rdx_dev *
dev_select(const char *name, const char *devargs, const struct rdx_dev_conf *conf)
{
	const struct rdx_driver *forced = NULL, *drv, *best_drv = NULL;
	struct ibv_device **list, *best = NULL;
	struct rdx_dev *dev = NULL;
	int num = 0, i, score, best_score = 0;
	char names[128];

	if (conf->driver != NULL) {
		forced = driver_find(conf->driver);
		if (forced == NULL) {
			driver_names(names, sizeof(names));
			fprintf(stderr, "rdx: unknown driver '%s' (expected %s)\n", conf->driver,
				names);
			rte_errno = EINVAL;
			return NULL;
		}
	}
	/* A software device: by its driver, or by its name. */
	if (forced != NULL && forced->match_name != NULL)
		return open_sw(forced, devargs, conf);
	/* (a software device's name wins over a forced RDMA driver, as
	 * "--dev sw --driver mlx5" always did) */
	if (name != NULL && name[0] != '\0' && (drv = driver_by_sw_name(name)) != NULL)
		return open_sw(drv, devargs, conf);

	list = ibv_get_device_list(&num);
	if (list == NULL || num == 0) {
		if (list != NULL)
			ibv_free_device_list(list);
		if (name != NULL && name[0] != '\0') {
			fprintf(stderr, "rdx: no RDMA device found (asked for '%s'; use --dev sw for the software device)\n",
				name);
			rte_errno = ENODEV;
			return NULL;
		}
		drv = driver_by_sw_name(NULL);
		if (!conf->quiet && drv != NULL)
			fprintf(stderr, "rdx: no RDMA device found: using %s (%s)\n",
				drv->desc != NULL ? drv->desc : drv->name, drv->name);
		return open_sw(drv, devargs, conf);
	}
	if (name != NULL && name[0] != '\0') {
		for (i = 0; i < num; i++)
			if (strcmp(ibv_get_device_name(list[i]), name) == 0)
				break;
		if (i == num) {
			fprintf(stderr, "rdx: no RDMA device named '%s'\n", name);
			rte_errno = ENODEV;
		} else {
			dev = open_ibdev(list[i], forced, devargs, conf);
		}
		ibv_free_device_list(list);
		return dev;
	}
	/* The default: the device the best driver scores highest (the first
	 * such); with a forced driver, its best device. */
	for (i = 0; i < num; i++) {
		if (forced != NULL) {
			drv = forced;
			score = forced->probe(list[i]);
		} else {
			drv = driver_best(list[i], &score);
		}
		if (score > best_score) {
			best_score = score;
			best = list[i];
			best_drv = drv;
		}
	}
	if (best != NULL) {
		dev = driver_open(best_drv, best, devargs, conf);
	} else if (forced != NULL) {
		/* what the first device would have said */
		dev = open_ibdev(list[0], forced, devargs, conf);
	} else {
		drv = driver_by_sw_name(NULL);
		if (drv == NULL) {
			fprintf(stderr, "rdx: no driver linked into this program takes the RDMA devices present (%s...)\n",
				ibv_get_device_name(list[0]));
			rte_errno = ENODEV;
		} else {
			if (!conf->quiet)
				fprintf(stderr, "rdx: no RDMA device this program has a driver for: using %s (%s)\n",
					drv->desc != NULL ? drv->desc : drv->name, drv->name);
			dev = open_sw(drv, devargs, conf);
		}
	}
	ibv_free_device_list(list);
	return dev;
}

/* Split "name:devargs", join the name's devargs and conf->devargs. */
static struct rdx_dev *
dev_open(const char *name_in, const struct rdx_dev_conf *conf_in)
{
	struct rdx_dev_conf conf = {0};
	const char *colon = name_in != NULL ? strchr(name_in, ':') : NULL;
	char *name = NULL, *devargs = NULL;
	struct rdx_dev *dev = NULL;
	size_t nl, al;

	if (conf_in != NULL)
		conf = *conf_in;
	if (conf.driver != NULL && strcmp(conf.driver, "auto") == 0)
		conf.driver = NULL;
	if (colon == NULL)
		return dev_select(name_in, conf.devargs, &conf);
	nl = (size_t)(colon - name_in);
	al = strlen(colon + 1) + 1 + (conf.devargs != NULL ? strlen(conf.devargs) : 0);
	name = strndup(name_in, nl);
	devargs = malloc(al + 1);
	if (name == NULL || devargs == NULL) {
		rte_errno = ENOMEM;
		goto out;
	}
	snprintf(devargs, al + 1, "%s%s%s", colon + 1,
		 conf.devargs != NULL && conf.devargs[0] != '\0' ? "," : "",
		 conf.devargs != NULL ? conf.devargs : "");
	dev = dev_select(name, devargs, &conf);
out:
	free(name);
	free(devargs);
	return dev;
}

struct rdx_dev *
rdx_dev_open(const char *name, const struct rdx_dev_conf *conf)
{
	struct rdx_dev *dev = dev_open(name, conf);

	if (dev != NULL && reg_add(dev) != 0) {
		if (dev->ops != NULL)
			dev->ops->close(dev);
		rte_errno = ENOMEM;
		return NULL;
	}
	return dev;
}

int
rdx_dev_close(struct rdx_dev *dev)
{
	if (dev == NULL)
		return -EINVAL;
	/* unlisted first: telemetry may be reading it under the lock */
	reg_del(dev);
	return dev->ops->close(dev);
}

const struct rdx_dev_attr *
rdx_dev_attr_get(const struct rdx_dev *dev)
{
	return &dev->attr;
}

struct rdx_mem *
rdx_dev_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	if (len == 0 || (type == RDX_MEM_DM && dev->attr.max_dm_size == 0)) {
		if (type == RDX_MEM_DM && len != 0)
			fprintf(stderr, "rdx: device %s has no device memory\n", dev->attr.name);
		rte_errno = len == 0 ? EINVAL : ENOTSUP;
		return NULL;
	}
	return dev->ops->mem_alloc(dev, len, type, access);
}

struct rdx_mem *
rdx_dev_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	if (addr == NULL || len == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->mem_reg(dev, addr, len, access);
}

int
rdx_dev_mem_free(struct rdx_mem *mem)
{
	if (mem == NULL)
		return 0;
	return mem->dev->ops->mem_free(mem);
}

static int
mem_range_ok(const struct rdx_mem *mem, size_t off, size_t len)
{
	return off <= mem->len && len <= mem->len - off;
}

int
rdx_dev_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy((char *)mem->addr + off, src, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_to(mem, off, src, len);
}

int
rdx_dev_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy(dst, (const char *)mem->addr + off, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_from(mem, off, dst, len);
}

static const char *const mem_type_names[] = {
	[RDX_MEM_HOST] = "host", [RDX_MEM_HUGE] = "huge", [RDX_MEM_DM] = "dm",
};

int
rdx_mem_type_parse(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(mem_type_names); i++)
		if (name != NULL && strcmp(name, mem_type_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
rdx_mem_type_name(enum rdx_mem_type type)
{
	return (unsigned int)type < RTE_DIM(mem_type_names) ? mem_type_names[type] : "?";
}

struct rdx_cq *
rdx_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	if (dev == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* max_cqe 0: a device that does not say (a test's stub) */
	if (conf->depth == 0 || (dev->attr.max_cqe != 0 && conf->depth > dev->attr.max_cqe)) {
		fprintf(stderr, "rdx: CQ depth %u out of range (1..%u on %s)\n", conf->depth,
			dev->attr.max_cqe, dev->attr.name);
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->cq_create(dev, conf);
}

int
rdx_cq_destroy(struct rdx_cq *cq)
{
	if (cq == NULL)
		return 0;
	return cq->dev->ops->cq_destroy(cq);
}

int
rdx_cq_wait(struct rdx_cq *cq, int timeout_ms)
{
	if (!cq->conf.events)
		return -EINVAL;
	return cq->dev->ops->cq_wait(cq, timeout_ms);
}

static bool
in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

/* One line naming the first field of conf out of the device's range. */
static int
qp_conf_check(const struct rdx_dev *dev, const struct rdx_qp_conf *c)
{
	const struct rdx_dev_attr *a = &dev->attr;
	const char *field = NULL;
	uint32_t val = 0, lo = 0, hi = 0;

	if (c->send_cq == NULL || c->recv_cq == NULL ||
	    c->send_cq->dev != dev || c->recv_cq->dev != dev) {
		fprintf(stderr, "rdx: QP needs send and receive CQs of %s\n", a->name);
		return -EINVAL;
	}
#define QP_RANGE(f, l, h) \
	do { \
		if (field == NULL && !in_range(c->f, (l), (h))) { \
			field = #f; val = c->f; lo = (l); hi = (h); \
		} \
	} while (0)
	QP_RANGE(sq_depth, 1, a->max_qp_wr);
	QP_RANGE(rq_depth, 0, a->max_qp_wr);
	QP_RANGE(max_send_sge, 0, a->max_sge);
	QP_RANGE(max_recv_sge, 0, a->max_sge);
	QP_RANGE(max_inline, 0, a->max_inline);
	QP_RANGE(sig_interval, 0, c->sq_depth);
	QP_RANGE(type, RDX_QP_RC, RDX_QP_UD);
	if (c->type == RDX_QP_RC)
		QP_RANGE(qkey, 0, 0);
	else
		QP_RANGE(qkey, 0, INT32_MAX); /* bit 31: controlled Q_Key (IBTA 10.2.4) */
#undef QP_RANGE
	if (field != NULL) {
		fprintf(stderr, "rdx: QP not created on %s: %s %u out of range (%u..%u)\n",
			a->name, field, val, lo, hi);
		return -EINVAL;
	}
	if (c->type == RDX_QP_UD) {
		if (a->max_ud_msg == 0) {
			fprintf(stderr, "rdx: QP not created on %s: type UD not supported by driver %s\n",
				a->name, a->driver);
			return -ENOTSUP;
		}
		/* Inline data is the whole message: no more than max_ud_msg. */
		if (c->max_inline > a->max_ud_msg) {
			fprintf(stderr, "rdx: QP not created on %s: UD max_inline %u above the largest UD message %u\n",
				a->name, c->max_inline, a->max_ud_msg);
			return -EINVAL;
		}
	}
	return 0;
}

struct rdx_qp *
rdx_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	int ret;

	if (dev == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->post_lcore > RTE_MAX_LCORE) {
		fprintf(stderr, "rdx_dev: QP not created: post_lcore %u names lcore %u, beyond RTE_MAX_LCORE %u\n",
			conf->post_lcore, conf->post_lcore - 1, (unsigned int)RTE_MAX_LCORE);
		rte_errno = EINVAL;
		return NULL;
	}
	ret = qp_conf_check(dev, conf);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	return dev->ops->qp_create(dev, conf);
}

int
rdx_qp_destroy(struct rdx_qp *qp)
{
	if (qp == NULL)
		return 0;
	return qp->dev->ops->qp_destroy(qp);
}

int
rdx_qp_info_get(struct rdx_qp *qp, struct rdx_qp_info *info)
{
	memset(info, 0, sizeof(*info));
	return qp->dev->ops->qp_info(qp, info);
}

int
rdx_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	       const struct rdx_qp_conn_attr *attr)
{
	struct rdx_qp_conn_attr a = {0};

	if (attr != NULL)
		a = *attr;
	if (a.timeout == 0)
		a.timeout = 14;
	if (a.retry_cnt == 0)
		a.retry_cnt = 7;
	if (a.rnr_retry == 0)
		a.rnr_retry = 7;
	if (a.min_rnr_timer == 0)
		a.min_rnr_timer = 12;
	if (a.max_rd_atomic == 0)
		a.max_rd_atomic = 16;
	if (qp->conf.type == RDX_QP_UD) {
		/* A UD QP has no peer: each WR names its destination. */
		if (remote != NULL) {
			fprintf(stderr, "rdx: UD QP %u connects without a remote (pass NULL)\n",
				qp->qp_num);
			return -EINVAL;
		}
		return qp->dev->ops->qp_connect(qp, NULL, &a);
	}
	if (remote == NULL) {
		fprintf(stderr, "rdx: RC QP %u needs the peer's rdx_qp_info to connect\n",
			qp->qp_num);
		return -EINVAL;
	}
	if (strncmp(remote->driver, qp->dev->attr.driver, sizeof(remote->driver)) != 0) {
		fprintf(stderr, "rdx: cannot connect a %s QP to a %s peer\n",
			qp->dev->attr.driver, remote->driver);
		return -EPROTO;
	}
	return qp->dev->ops->qp_connect(qp, remote, &a);
}

int
rdx_ah_attr_from_info(const struct rdx_dev *dev, const struct rdx_qp_info *peer,
		      struct rdx_ah_attr *attr)
{
	if (dev == NULL || peer == NULL || attr == NULL)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	memcpy(attr->gid, peer->gid, sizeof(attr->gid));
	attr->lid = peer->lid;
	attr->port = dev->conf.port != 0 ? dev->conf.port : 1;
	/* RoCE routes by GID only (every packet has a GRH); IB by LID. */
	attr->is_global = dev->attr.link_layer == IBV_LINK_LAYER_ETHERNET || peer->lid == 0;
	attr->sgid_index = -1;
	return 0;
}

struct rdx_ah *
rdx_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct rdx_ah_attr a;

	if (dev == NULL || attr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->ops->ah_create == NULL) {
		fprintf(stderr, "rdx: address handles (UD) not supported by driver %s\n",
			dev->attr.driver);
		rte_errno = ENOTSUP;
		return NULL;
	}
	a = *attr;
	if (a.sl > 15 || a.flow_label >= (1u << 20) || a.sgid_index < -1 ||
	    (!a.is_global && dev->attr.link_layer == IBV_LINK_LAYER_ETHERNET) ||
	    (!a.is_global && a.lid == 0)) {
		fprintf(stderr, "rdx: address handle not created on %s: %s\n", dev->attr.name,
			a.sl > 15 ? "sl above 15" :
			a.flow_label >= (1u << 20) ? "flow_label above 20 bits" :
			a.sgid_index < -1 ? "sgid_index below -1" :
			a.lid == 0 && dev->attr.link_layer != IBV_LINK_LAYER_ETHERNET ?
			"lid 0 without is_global" : "RoCE needs is_global (a GRH)");
		rte_errno = EINVAL;
		return NULL;
	}
	if (a.port == 0)
		a.port = dev->conf.port != 0 ? dev->conf.port : 1;
	if (a.hop_limit == 0)
		a.hop_limit = 64;
	return dev->ops->ah_create(dev, &a);
}

int
rdx_ah_destroy(struct rdx_ah *ah)
{
	if (ah == NULL)
		return 0;
	if (ah->dev->ops->ah_destroy == NULL)
		return -ENOTSUP;
	return ah->dev->ops->ah_destroy(ah);
}

uint64_t
rdx_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc, uint16_t i)
{
	return qp->dev->ops->qp_retired_wr_id(qp, wc, i);
}

const char *
rdx_op_name(enum rdx_op op)
{
	static const char *const names[] = {
		[RDX_OP_NOP] = "NOP", [RDX_OP_SEND] = "SEND", [RDX_OP_SEND_IMM] = "SEND_IMM",
		[RDX_OP_WRITE] = "RDMA_WRITE", [RDX_OP_WRITE_IMM] = "RDMA_WRITE_IMM",
		[RDX_OP_READ] = "RDMA_READ", [RDX_OP_CAS] = "ATOMIC_CS",
		[RDX_OP_FAA] = "ATOMIC_FA",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_opcode_name(enum rdx_wc_opcode op)
{
	static const char *const names[] = {
		[RDX_WC_NOP] = "NOP", [RDX_WC_SEND] = "SEND", [RDX_WC_WRITE] = "RDMA_WRITE",
		[RDX_WC_READ] = "RDMA_READ", [RDX_WC_CAS] = "ATOMIC_CS",
		[RDX_WC_FAA] = "ATOMIC_FA", [RDX_WC_RECV] = "RECV",
		[RDX_WC_RECV_IMM] = "RECV_IMM", [RDX_WC_RECV_WRITE_IMM] = "RECV_RDMA_WITH_IMM",
		[RDX_WC_UNKNOWN] = "UNKNOWN",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_status_name(uint8_t status)
{
	return ibv_wc_status_str((enum ibv_wc_status)status);
}
