/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of live QPs and the per-QP counters (rdx_dev_stats.h):
 * rdx_qp_create lists a QP, rdx_qp_destroy unlists it, rdx_qp_connect
 * marks it connected; rdx_qp_xstats_get asks the driver's qp_xstats_get op
 * and subtracts the base rdx_qp_xstats_reset took. Control path only: the
 * datapath never takes the lock, and reset never writes a counter the
 * datapath bumps (the base lives here), so it needs no care from drivers.
 *
 * The lock is recursive: telemetry walks the devices (rdx_dev_foreach,
 * the device registry's lock) and within them the QPs (this lock), and
 * reads a QP's counters from inside that walk. Order: device registry,
 * then this one; nothing here takes the device registry's lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rdx_dev.h"
#include "rdx_dev_driver.h"
#include "rdx_dev_priv.h"

struct qreg_ent {
	struct rdx_qp *qp;
	struct rdx_dev *dev;    /* compared only: dev may be closing */
	bool connected;
	unsigned int nb_base;   /* 0: never reset */
	uint64_t *base;         /* values at the last reset, by counter index */
};

static pthread_mutex_t qreg_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct qreg_ent *qreg;
static unsigned int qreg_nb;
static unsigned int qreg_cap;

static const char *const qp_xstat_names[RDX_QP_XSTATS_COMMON] = {
	[RDX_QP_XSTAT_SEND_POSTED] = "send_wrs_posted",
	[RDX_QP_XSTAT_SEND_DOORBELLS] = "send_doorbells",
	[RDX_QP_XSTAT_SEND_COMPLETED] = "send_wrs_completed",
	[RDX_QP_XSTAT_SEND_OK] = "send_wrs_ok",
	[RDX_QP_XSTAT_SEND_ERROR] = "send_wrs_error",
	[RDX_QP_XSTAT_SEND_FLUSHED] = "send_wrs_flushed",
	[RDX_QP_XSTAT_RECV_POSTED] = "recv_wrs_posted",
	[RDX_QP_XSTAT_RECV_DOORBELLS] = "recv_doorbells",
	[RDX_QP_XSTAT_RECV_COMPLETED] = "recv_wrs_completed",
	[RDX_QP_XSTAT_RECV_OK] = "recv_wrs_ok",
	[RDX_QP_XSTAT_RECV_ERROR] = "recv_wrs_error",
	[RDX_QP_XSTAT_RECV_FLUSHED] = "recv_wrs_flushed",
};

const char *
rdx_qp_xstat_name(enum rdx_qp_xstat_id id)
{
	return (unsigned int)id < RDX_QP_XSTATS_COMMON ? qp_xstat_names[id] : NULL;
}

unsigned int
rdx_dev_xstat_put(struct rdx_dev_xstat *xs, unsigned int n, unsigned int k,
		  const char *name, uint64_t value)
{
	if (k < n && xs != NULL) {
		snprintf(xs[k].name, sizeof(xs[k].name), "%s", name);
		xs[k].value = value;
	}
	return k + 1;
}

/* One side's posted, doorbells, completed, ok, error, flushed from k on. */
static unsigned int
side_put(struct rdx_dev_xstat *xs, unsigned int n, unsigned int k, uint64_t posted,
	 uint64_t doorbells, uint64_t completed, uint64_t error, uint64_t flushed)
{
	uint64_t bad;

	/* read from a running datapath, completed may be ahead by a burst */
	completed = RTE_MIN(completed, posted);
	bad = error + flushed;
	k = rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], posted);
	k = rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], doorbells);
	k = rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], completed);
	k = rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], completed > bad ? completed - bad : 0);
	k = rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], error);
	return rdx_dev_xstat_put(xs, n, k, qp_xstat_names[k], flushed);
}

unsigned int
rdx_qp_xstats_common(struct rdx_dev_xstat *xs, unsigned int n, const struct rdx_qp_counts *c)
{
	unsigned int k;

	k = side_put(xs, n, RDX_QP_XSTAT_SEND_POSTED, c->send_posted, c->send_doorbells,
		     c->send_completed, c->send_error, c->send_flushed);
	k = side_put(xs, n, k, c->recv_posted, c->recv_doorbells, c->recv_completed,
		     c->recv_error, c->recv_flushed);
	return k;
}

/* ------------------------------------------------------------------ */
/* The registry (under qreg_lock)                                     */

static struct qreg_ent *
qreg_find(const struct rdx_qp *qp)
{
	unsigned int i;

	for (i = 0; i < qreg_nb; i++)
		if (qreg[i].qp == qp)
			return &qreg[i];
	return NULL;
}

static void
qreg_remove(unsigned int i)
{
	free(qreg[i].base);
	memmove(&qreg[i], &qreg[i + 1], (qreg_nb - i - 1) * sizeof(qreg[0]));
	qreg_nb--;
}

int
rdx_qp_reg_add(struct rdx_qp *qp)
{
	int ret = 0;

	pthread_mutex_lock(&qreg_lock);
	if (qreg_nb == qreg_cap) {
		unsigned int cap = qreg_cap != 0 ? 2 * qreg_cap : 16;
		struct qreg_ent *e = realloc(qreg, cap * sizeof(*e));

		if (e == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		qreg = e;
		qreg_cap = cap;
	}
	qreg[qreg_nb++] = (struct qreg_ent){ .qp = qp, .dev = qp->dev };
out:
	pthread_mutex_unlock(&qreg_lock);
	return ret;
}

void
rdx_qp_reg_del(struct rdx_qp *qp)
{
	struct qreg_ent *e;

	pthread_mutex_lock(&qreg_lock);
	e = qreg_find(qp);
	if (e != NULL)
		qreg_remove((unsigned int)(e - qreg));
	pthread_mutex_unlock(&qreg_lock);
}

void
rdx_qp_reg_connected(struct rdx_qp *qp)
{
	struct qreg_ent *e;

	pthread_mutex_lock(&qreg_lock);
	e = qreg_find(qp);
	if (e != NULL)
		e->connected = true;
	pthread_mutex_unlock(&qreg_lock);
}

void
rdx_qp_reg_lock(void)
{
	pthread_mutex_lock(&qreg_lock);
}

void
rdx_qp_reg_unlock(void)
{
	pthread_mutex_unlock(&qreg_lock);
}

void
rdx_qp_reg_forget_dev(struct rdx_dev *dev)
{
	unsigned int i = 0;

	pthread_mutex_lock(&qreg_lock);
	while (i < qreg_nb) {
		if (qreg[i].dev == dev)
			qreg_remove(i);
		else
			i++;
	}
	pthread_mutex_unlock(&qreg_lock);
}

/* ------------------------------------------------------------------ */
/* Counters and state                                                 */

int
rdx_qp_xstats_get(struct rdx_qp *qp, struct rdx_dev_xstat *xs, unsigned int n)
{
	const struct qreg_ent *e;
	unsigned int i, lim;
	int ret;

	if (qp == NULL || (xs == NULL && n != 0))
		return -EINVAL;
	if (qp->dev->ops == NULL || qp->dev->ops->qp_xstats_get == NULL)
		return -ENOTSUP;
	if (xs == NULL)
		n = 0;
	pthread_mutex_lock(&qreg_lock);
	ret = qp->dev->ops->qp_xstats_get(qp, xs, n);
	e = qreg_find(qp);
	if (ret > 0 && e != NULL && e->base != NULL) {
		lim = RTE_MIN(RTE_MIN((unsigned int)ret, n), e->nb_base);
		/* a derived counter may lag a burst behind the base: 0, not a wrap */
		for (i = 0; i < lim; i++)
			xs[i].value = xs[i].value > e->base[i] ? xs[i].value - e->base[i] : 0;
	}
	pthread_mutex_unlock(&qreg_lock);
	return ret;
}

/* The driver's counters as they are (no base), into a new array. */
static int
raw_xstats(struct rdx_qp *qp, struct rdx_dev_xstat **out)
{
	struct rdx_dev_xstat *xs;
	int n, got;

	n = qp->dev->ops->qp_xstats_get(qp, NULL, 0);
	if (n <= 0)
		return n < 0 ? n : -ENOTSUP;
	xs = calloc((size_t)n, sizeof(*xs));
	if (xs == NULL)
		return -ENOMEM;
	got = qp->dev->ops->qp_xstats_get(qp, xs, (unsigned int)n);
	*out = xs;
	return RTE_MIN(got, n);
}

int
rdx_qp_xstats_reset(struct rdx_qp *qp)
{
	struct rdx_dev_xstat *xs = NULL;
	struct qreg_ent *e;
	uint64_t *base;
	int n, i, ret = 0;

	if (qp == NULL)
		return -EINVAL;
	if (qp->dev->ops == NULL || qp->dev->ops->qp_xstats_get == NULL)
		return -ENOTSUP;
	pthread_mutex_lock(&qreg_lock);
	e = qreg_find(qp);
	if (e == NULL) {
		ret = -ENOENT;
		goto out;
	}
	n = raw_xstats(qp, &xs);
	if (n < 0) {
		ret = n;
		goto out;
	}
	base = e->nb_base >= (unsigned int)n ? e->base : realloc(e->base, (size_t)n * sizeof(*base));
	if (base == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		base[i] = xs[i].value;
	e->base = base;
	e->nb_base = (unsigned int)n;
out:
	pthread_mutex_unlock(&qreg_lock);
	free(xs);
	return ret;
}

int
rdx_qp_state_get(struct rdx_qp *qp)
{
	struct rdx_dev_xstat xs[RDX_QP_XSTATS_COMMON];
	const struct qreg_ent *e;
	int ret = RDX_QP_STATE_RESET, n;

	if (qp == NULL)
		return -EINVAL;
	pthread_mutex_lock(&qreg_lock);
	e = qreg_find(qp);
	if (e == NULL) {
		ret = -ENOENT;
	} else if (e->connected) {
		ret = RDX_QP_STATE_RTS;
		n = qp->dev->ops->qp_xstats_get == NULL ? 0 :
			qp->dev->ops->qp_xstats_get(qp, xs, RTE_DIM(xs));
		if (n >= RDX_QP_XSTATS_COMMON &&
		    (xs[RDX_QP_XSTAT_SEND_FLUSHED].value != 0 ||
		     xs[RDX_QP_XSTAT_RECV_FLUSHED].value != 0 ||
		     (qp->conf.type == RDX_QP_RC &&
		      (xs[RDX_QP_XSTAT_SEND_ERROR].value != 0 ||
		       xs[RDX_QP_XSTAT_RECV_ERROR].value != 0))))
			ret = RDX_QP_STATE_ERR;
	}
	pthread_mutex_unlock(&qreg_lock);
	return ret;
}

const char *
rdx_qp_state_name(int state)
{
	static const char *const names[] = {
		[RDX_QP_STATE_RESET] = "reset", [RDX_QP_STATE_RTS] = "rts",
		[RDX_QP_STATE_ERR] = "error",
	};
	return (unsigned int)state < RTE_DIM(names) ? names[state] : "?";
}

const char *
rdx_qp_type_name(uint8_t type)
{
	return type == RDX_QP_RC ? "RC" : type == RDX_QP_UD ? "UD" : "?";
}

int
rdx_qp_foreach(struct rdx_dev *dev, rdx_qp_foreach_fn_t fn, void *arg)
{
	unsigned int i;
	int ret = 0;

	if (fn == NULL)
		return -EINVAL;
	pthread_mutex_lock(&qreg_lock);
	for (i = 0; i < qreg_nb && ret == 0; i++)
		if (dev == NULL || qreg[i].dev == dev)
			ret = fn(qreg[i].qp, arg);
	pthread_mutex_unlock(&qreg_lock);
	return ret;
}

unsigned int
rdx_qp_count(struct rdx_dev *dev)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&qreg_lock);
	for (i = 0; i < qreg_nb; i++)
		n += dev == NULL || qreg[i].dev == dev;
	pthread_mutex_unlock(&qreg_lock);
	return n;
}
