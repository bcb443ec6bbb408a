/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the device is, for the labels (report header, JSON device_kind, the
 * per-WR log): a NIC, a software RDMA device of the kernel (rdma_rxe,
 * siw: driver verbs on an ibdev with no parent device), or rdx's software
 * model of the mlx5 device (attr.software). The kernel's software devices
 * are virtual: /sys/class/infiniband/<dev> has no "device" link (a NIC's
 * points at its PCI function) and resolves under /sys/devices/virtual/.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdx_dev_sysfs.h"

#include "perf_app.h"

enum perf_dev_kind
perf_dev_kind_at(const char *sysfs_ib, const struct rdx_dev_attr *at)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (at->software)
		return PERF_DEV_KIND_MODEL;
	if (snprintf(path, sizeof(path), "%s/%s", sysfs_ib, at->name) >= (int)sizeof(path) ||
	    stat(path, &st) != 0)
		return PERF_DEV_KIND_NIC;  /* no such ibdev to look at: the driver's word */
	if (realpath(path, real) != NULL && strstr(real, "/devices/virtual/") != NULL)
		return PERF_DEV_KIND_SOFT_RDMA;
	if (snprintf(path, sizeof(path), "%s/%s/device", sysfs_ib, at->name) < (int)sizeof(path) &&
	    lstat(path, &st) != 0)
		return PERF_DEV_KIND_SOFT_RDMA;
	return PERF_DEV_KIND_NIC;
}

enum perf_dev_kind
perf_dev_kind(const struct rdx_dev_attr *at)
{
	return perf_dev_kind_at("/sys/class/infiniband", at);
}

/* The header's words */
const char *
perf_dev_kind_label(enum perf_dev_kind k)
{
	return k == PERF_DEV_KIND_MODEL ? "software device" :
		k == PERF_DEV_KIND_SOFT_RDMA ? "software RDMA device" : "NIC";
}

/* JSON / CSV device_kind: the values reports had before stay */
const char *
perf_dev_kind_json(enum perf_dev_kind k)
{
	return k == PERF_DEV_KIND_MODEL ? "software device" :
		k == PERF_DEV_KIND_SOFT_RDMA ? "software RDMA device" : "hardware";
}

/* One word of the log's header: characters other than [A-Za-z0-9._:-] become '_' */
static void
word_clean(char *s)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._:-", *s) != NULL))
			*s = '_';
}

/*
 * The per-WR log's host= and dev_id= ("" when not known): the host name,
 * and which device instance the QP ran on. The software device's instance
 * is its model, the process's shared segment (the name the driver puts in
 * rdx_qp_info.drv for its peers, drivers/mlx5/sw/README.md): "sw:<segment>",
 * the same for every lcore of one process, another in another process. A
 * kernel device is "<name>:<node GUID>" (sysfs), "<name>" without one.
 */
void
perf_dev_identity(const struct perf_app *a, struct rdx_qp *qp, char *host, size_t hlen, char *id,
		  size_t ilen)
{
	char g[RDX_DEV_GUID_LEN];

	host[0] = id[0] = '\0';
	if (gethostname(host, hlen) != 0)
		host[0] = '\0';
	host[hlen - 1] = '\0';
	word_clean(host);
	if (a->attr->software) {
		struct rdx_qp_info qi;
		char seg[sizeof(qi.drv) + 1];
		const char *p = seg;

		memset(&qi, 0, sizeof(qi));
		if (qp == NULL || rdx_qp_info_get(qp, &qi) != 0)
			return;
		memcpy(seg, qi.drv, sizeof(qi.drv));
		seg[sizeof(qi.drv)] = '\0';
		while (*p == '/')
			p++;
		if (*p != '\0')
			snprintf(id, ilen, "sw:%s", p);
	} else if (rdx_dev_node_guid_read(NULL, a->attr->name, g) == 0) {
		snprintf(id, ilen, "%s:%s", a->attr->name, g);
	} else {
		snprintf(id, ilen, "%s", a->attr->name);
	}
	word_clean(id);
}

/* xstat name of the device, 0 when it has none */
static uint64_t
dev_xstat(struct rdx_dev *dev, const char *name)
{
	struct rdx_dev_xstat xs[128];
	int n = rdx_dev_xstats_get(dev, xs, RTE_DIM(xs)), i;

	for (i = 0; i < n && i < (int)RTE_DIM(xs); i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	return 0;
}

/*
 * With a timing profile: the WQEs the device modelled, the modelled NIC's
 * busy time for them (its bottleneck's: message rate, link or atomic
 * unit), the span from the first to the last, and the shared NIC's busy
 * time over that span (every process's WQEs on it). Taken at the end of
 * each row (each size, sweep point; warm-up included), so each row's
 * footer line is of its own WQEs. A NIC busy under 90% of the span in a
 * bandwidth run was waiting for the host: the figures are the host's
 * running the model, not the profile's ("model-bound").
 */
struct model_snap {
	uint64_t wqes, busy, span, pbusy;
};

#define MODEL_ROWS 512
static struct model_snap model_prev;
static struct model_row {
	struct model_snap d;
	uint64_t size;
	uint32_t qps;
} model_rows[MODEL_ROWS];
static unsigned int model_nrows;

static void
model_snap_get(const struct perf_app *a, struct model_snap *s)
{
	s->wqes = dev_xstat(a->dev, "sw_tm_wqes");
	s->busy = dev_xstat(a->dev, "sw_tm_busy_ns");
	s->span = dev_xstat(a->dev, "sw_tm_span_ns");
	s->pbusy = dev_xstat(a->dev, "sw_tm_port_busy_ns");
}

void
perf_dev_model_row(const struct perf_app *a, uint64_t size, uint32_t qps)
{
	struct model_snap c;
	struct model_row *r;

	if (a->attr->model[0] == '\0' || a->o.mode != PERF_MODE_BW || model_nrows == MODEL_ROWS)
		return;
	model_snap_get(a, &c);
	r = &model_rows[model_nrows++];
	r->size = size;
	r->qps = qps;
	r->d.wqes = c.wqes - model_prev.wqes;
	r->d.busy = c.busy - model_prev.busy;
	r->d.span = c.span - model_prev.span;
	r->d.pbusy = c.pbusy - model_prev.pbusy;
	model_prev = c;
}

/* One footer line of d; label: the row's, "" for the whole run. */
static void
model_line(const struct perf_app *a, FILE *f, const struct model_snap *d, const char *label)
{
	/* the shared NIC was busy with other processes' WQEs too */
	const uint64_t nic = RTE_MAX(d->busy, d->pbusy);

	if (d->wqes == 0 || d->busy == 0 || d->span == 0)
		return;
	if (nic * 10 < d->span * 9)
		fprintf(f, " model-bound (%s%s): this host ran the model at %.3f Mop/s; the modelled NIC would do %.3f Mop/s for these WQEs (busy %.0f%% of the run)\n",
			a->attr->model, label, (double)d->wqes * 1e3 / (double)d->span,
			(double)d->wqes * 1e3 / (double)d->busy, 100.0 * (double)nic / (double)d->span);
	else if (d->pbusy > d->busy && d->busy * 10 < d->span * 9)
		fprintf(f, " %s%s: the modelled NIC was busy %.0f%% of the run, %.0f%% with this process's WQEs (%.3f Mop/s), the rest with other processes': the profile's figures\n",
			a->attr->model, label, 100.0 * (double)RTE_MIN(nic, d->span) / (double)d->span,
			100.0 * (double)d->busy / (double)d->span,
			(double)d->wqes * 1e3 / (double)d->span);
	else
		fprintf(f, " %s%s: the modelled NIC was busy %.0f%% of the run (%.3f Mop/s): the profile's figures\n",
			a->attr->model, label, 100.0 * (double)RTE_MIN(nic, d->span) / (double)d->span,
			(double)d->wqes * 1e3 / (double)d->span);
}

void
perf_dev_model_footer(const struct perf_app *a, FILE *f)
{
	struct model_snap tot;
	unsigned int i;
	char label[64];

	if (a->attr->model[0] == '\0' || a->o.mode != PERF_MODE_BW)
		return;
	if (model_nrows <= 1) {
		model_snap_get(a, &tot);
		model_line(a, f, &tot, "");
		return;
	}
	for (i = 0; i < model_nrows; i++) {
		const struct model_row *r = &model_rows[i];

		snprintf(label, sizeof(label), ", %" PRIu64 " B, %u QP%s", r->size, r->qps,
			 r->qps == 1 ? "" : "s");
		model_line(a, f, &r->d, label);
	}
}
