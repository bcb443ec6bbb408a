/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registered drivers and device selection, devargs, device open and
 * close, the registry of open devices and its counters (xstats). The
 * wrappers over the object ops (memory, CQ, QP, AH) and their shared
 * argument checks are in rdx_dev_obj.c. No driver is named here: drivers
 * register themselves (rdx_dev_driver.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_config.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_log.h>

#include <infiniband/verbs.h>

#include "rdx_dev.h"
#include "rdx_dev_driver.h"
#include "rdx_dev_priv.h"

RTE_LOG_REGISTER(rdx_dev_logtype, rdx.dev, NOTICE)

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
		/* Before main (drivers register from constructors): the log
		 * types may not be registered yet, so stderr directly. */
		fprintf(stderr, "rdx: driver '%s' not registered: it needs a name, open, and "
			"either probe (RDMA devices) or match_name (software devices)\n",
			drv != NULL && drv->name != NULL ? drv->name : "?");
		return;
	}
	for (pp = &drv_head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == drv)
			return;
		if (strcmp((*pp)->name, drv->name) == 0) {
			/* before main, as above */
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
/* devargs: "key=value[,key=value...]", parsed by rte_kvargs            */

/*
 * rte_kvargs splits at commas outside a bracketed list ("k=[a,b]") and
 * skips empty pairs, but takes a key without '=' (value NULL) and reads
 * "a=b=c" as key b: here every pair has exactly one '=', after a
 * non-empty key.
 */
static bool
devargs_well_formed(const char *s)
{
	bool in_list = false, key = false, eq = false;

	for (;; s++) {
		switch (*s) {
		case '[':
			in_list = true;
			break;
		case ']':
			in_list = false;
			break;
		case '=':
			if (!key || eq)
				return false;
			eq = true;
			break;
		case ',':
		case '\0':
			if (*s == ',' && in_list)
				break;
			if (key && !eq)
				return false;
			if (*s == '\0')
				return true;
			key = eq = false;
			break;
		default:
			key = true;
			break;
		}
	}
}

/* devargs parsed (NULL and errno EINVAL when malformed or beyond
 * RTE_KVARGS_MAX pairs); free with rte_kvargs_free. */
static struct rte_kvargs *
devargs_parse(const char *devargs)
{
	struct rte_kvargs *kv;

	if (!devargs_well_formed(devargs)) {
		errno = EINVAL;
		return NULL;
	}
	kv = rte_kvargs_parse(devargs, NULL);
	if (kv == NULL)
		errno = EINVAL;
	return kv;
}

int
rdx_devargs_get(const char *devargs, const char *key, char *val, size_t len)
{
	const char *found = NULL;
	struct rte_kvargs *kv;
	unsigned int i;
	size_t vl;
	int ret = 0;

	if (devargs == NULL || key == NULL)
		return 0;
	kv = devargs_parse(devargs);
	if (kv == NULL)
		return -EINVAL;
	for (i = 0; i < kv->count; i++)
		if (strcmp(kv->pairs[i].key, key) == 0)
			found = kv->pairs[i].value;       /* the last one wins */
	if (found != NULL) {
		vl = strlen(found);
		if (vl >= len) {
			ret = -ENOSPC;
		} else {
			memcpy(val, found, vl + 1);
			ret = 1;
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

/* Every pair well formed, every key one drv takes: else one line, -EINVAL. */
static int
devargs_check(const struct rdx_driver *drv, const char *devargs)
{
	const char *const *k;
	struct rte_kvargs *kv;
	unsigned int i;
	int ret = 0;

	if (devargs == NULL)
		return 0;
	kv = devargs_parse(devargs);
	if (kv == NULL) {
		DEV_LOG(ERR, "bad devargs '%s' for driver %s: expected key=value[,key=value...]\n",
			devargs, drv->name);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		for (k = drv->devargs_keys; k != NULL && *k != NULL; k++)
			if (strcmp(*k, kv->pairs[i].key) == 0)
				break;
		if (k == NULL || *k == NULL) {
			DEV_LOG(ERR, "devargs key '%s' not known to driver %s (%s)\n",
				kv->pairs[i].key, drv->name,
				drv->devargs_keys != NULL ? "see its README" : "it takes none");
			ret = -EINVAL;
		}
	}
	rte_kvargs_free(kv);
	return ret;
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
			DEV_LOG(ERR, "device %s is not a device of driver %s%s%s\n",
				ibv_get_device_name(ibdev), forced->name,
				drv != NULL ? ": use --driver " : "", drv != NULL ? drv->name : "");
			rte_errno = ENOTSUP;
			return NULL;
		}
		drv = forced;
	}
	if (drv == NULL) {
		DEV_LOG(ERR, "no driver linked into this program takes device %s\n",
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
		DEV_LOG(ERR, "no software device linked into this program\n");
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
			DEV_LOG(ERR, "unknown driver '%s' (expected %s)\n", conf->driver,
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
			DEV_LOG(ERR, "no RDMA device found (asked for '%s'; use --dev sw for the software device)\n",
				name);
			rte_errno = ENODEV;
			return NULL;
		}
		drv = driver_by_sw_name(NULL);
		if (!conf->quiet && drv != NULL)
			DEV_LOG(NOTICE, "no RDMA device found: using %s (%s)\n",
				drv->desc != NULL ? drv->desc : drv->name, drv->name);
		return open_sw(drv, devargs, conf);
	}
	if (name != NULL && name[0] != '\0') {
		for (i = 0; i < num; i++)
			if (strcmp(ibv_get_device_name(list[i]), name) == 0)
				break;
		if (i == num) {
			DEV_LOG(ERR, "no RDMA device named '%s'\n", name);
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
			DEV_LOG(ERR, "no driver linked into this program takes the RDMA devices present (%s...)\n",
				ibv_get_device_name(list[0]));
			rte_errno = ENODEV;
		} else {
			if (!conf->quiet)
				DEV_LOG(NOTICE, "no RDMA device this program has a driver for: using %s (%s)\n",
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
	int ret;

	if (dev == NULL)
		return -EINVAL;
	/* unlisted first: telemetry may be reading it under the lock */
	reg_del(dev);
	/* its QPs stay listed until the driver is done with them */
	rdx_qp_reg_lock();
	ret = dev->ops->close(dev);
	if (ret == 0)
		rdx_qp_reg_forget_dev(dev);
	rdx_qp_reg_unlock();
	return ret;
}

const struct rdx_dev_attr *
rdx_dev_attr_get(const struct rdx_dev *dev)
{
	return &dev->attr;
}
