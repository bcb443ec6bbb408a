/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomics stay exact under two client processes: a target process on one
 * device exposes two 8-byte counters; each client process (on the other
 * device) connects its own QP through the verbs driver and, concurrently with
 * the other, adds 1 to counter 0 N times (FAA, posted in bursts with
 * selective signaling) and increments counter 1 N times with CAS retry
 * loops. The target then checks counter 0 == sum of FAAs and counter 1 ==
 * sum of successful CASes, and that the values the CASes returned were
 * consistent. The out-of-band exchange is files in a shared directory.
 *
 *   atomic2 target DIR NCLIENTS [DEV]     (default DEV rxe1)
 *   atomic2 client DIR INDEX N [DEV]      (default DEV rxe0)
 *   atomic2 run N                         both clients and the target, forked
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <rte_errno.h>

#include "rdx_dev.h"

#define MAX_CLIENTS 4
#define WAIT_S 120 /* hang guard for every wait */
#define BURST 8

struct target_info {
	struct rdx_qp_info qp[MAX_CLIENTS];
	uint64_t addr;
	uint32_t rkey;
};

struct client_done {
	uint64_t faa;
	uint64_t cas_ok;
	uint64_t cas_fail;
	uint64_t errors;
};

struct ep {
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_mem *mem;
	struct rdx_qp *qp[MAX_CLIENTS];
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
put_file(const char *dir, const char *name, const void *p, size_t len)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "wb");
	if (f == NULL || fwrite(p, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "atomic2: cannot write %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	return rename(tmp, path);
}

/* Wait for DIR/name and read it (len bytes); -1 on timeout. */
static int
get_file(const char *dir, const char *name, void *p, size_t len)
{
	char path[512];
	double end = now_s() + WAIT_S;
	FILE *f;
	size_t got;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (now_s() < end) {
		f = fopen(path, "rb");
		if (f != NULL) {
			got = p == NULL ? len : fread(p, 1, len, f);
			fclose(f);
			if (got == len)
				return 0;
		}
		usleep(20000);
	}
	fprintf(stderr, "atomic2: timed out waiting for %s\n", path);
	return -1;
}

static int
ep_open(struct ep *e, const char *dev, int nqp)
{
	struct rdx_cq_conf cc = {.depth = 512};
	struct rdx_qp_conf qc = {0};
	int i;

	e->dev = rdx_dev_open(dev, NULL);
	if (e->dev == NULL) {
		fprintf(stderr, "atomic2: cannot open %s: %s\n", dev, rte_strerror(rte_errno));
		return -1;
	}
	e->cq = rdx_cq_create(e->dev, &cc);
	e->mem = rdx_dev_mem_alloc(e->dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (e->cq == NULL || e->mem == NULL)
		return -1;
	qc.send_cq = e->cq;
	qc.recv_cq = e->cq;
	qc.sq_depth = 64;
	qc.rq_depth = 1;
	qc.max_send_sge = 1;
	qc.max_recv_sge = 1;
	qc.sig_interval = BURST;
	for (i = 0; i < nqp; i++) {
		e->qp[i] = rdx_qp_create(e->dev, &qc);
		if (e->qp[i] == NULL)
			return -1;
	}
	return 0;
}

static void
ep_close(struct ep *e, int nqp)
{
	int i;

	for (i = 0; i < nqp; i++)
		rdx_qp_destroy(e->qp[i]);
	rdx_cq_destroy(e->cq);
	rdx_dev_mem_free(e->mem);
	if (e->dev != NULL)
		rdx_dev_close(e->dev);
}

static int
run_target(const char *dir, int nc, const char *dev)
{
	struct target_info ti;
	struct client_done d[MAX_CLIENTS];
	struct rdx_qp_info ci;
	struct ep e = {0};
	uint64_t faa = 0, cas = 0, c0, c1;
	char name[64];
	int i, rc = 1;

	memset(&ti, 0, sizeof(ti));
	if (ep_open(&e, dev, nc) != 0)
		goto out;
	memset(e.mem->addr, 0, 16);
	for (i = 0; i < nc; i++)
		rdx_qp_info_get(e.qp[i], &ti.qp[i]);
	ti.addr = e.mem->iova;
	ti.rkey = e.mem->rkey;
	if (put_file(dir, "target.info", &ti, sizeof(ti)) != 0)
		goto out;
	for (i = 0; i < nc; i++) {
		snprintf(name, sizeof(name), "client%d.info", i);
		if (get_file(dir, name, &ci, sizeof(ci)) != 0 ||
		    rdx_qp_connect(e.qp[i], &ci, NULL) != 0)
			goto out;
	}
	if (put_file(dir, "target.ready", "", 0) != 0)
		goto out;
	for (i = 0; i < nc; i++) {
		snprintf(name, sizeof(name), "client%d.done", i);
		if (get_file(dir, name, &d[i], sizeof(d[i])) != 0)
			goto out;
		if (d[i].errors != 0) {
			fprintf(stderr, "atomic2: client %d saw %" PRIu64 " errors\n", i, d[i].errors);
			goto out;
		}
		faa += d[i].faa;
		cas += d[i].cas_ok;
	}
	c0 = ((volatile uint64_t *)e.mem->addr)[0];
	c1 = ((volatile uint64_t *)e.mem->addr)[1];
	printf("atomic2: %d clients: FAA counter %" PRIu64 " (expected %" PRIu64 "), CAS counter %" PRIu64
	       " (expected %" PRIu64 "; %" PRIu64 " CAS lost a race)\n", nc, c0, faa, c1, cas,
	       d[0].cas_fail + (nc > 1 ? d[1].cas_fail : 0));
	rc = c0 == faa && c1 == cas ? 0 : 1;
out:
	ep_close(&e, nc);
	return rc;
}

/* Poll until every posted WR is retired; count errors. */
static int
drain(struct ep *e, uint64_t *posted, uint64_t *retired, struct client_done *d,
      uint64_t want_retired)
{
	struct rdx_wc wc[16];
	double end = now_s() + WAIT_S;
	uint16_t n, i;

	while (*retired < want_retired) {
		if (now_s() > end)
			return -1;
		n = rdx_cq_poll_burst(e->cq, wc, 16);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "atomic2: completion error %s\n",
					rdx_wc_status_name(wc[i].status));
				d->errors++;
			}
			*retired += wc[i].retired;
		}
	}
	(void)posted;
	return 0;
}

static int
run_client(const char *dir, int idx, uint64_t n, const char *dev)
{
	struct target_info ti;
	struct client_done d = {0};
	struct rdx_qp_info mine;
	struct rdx_sge sge[BURST];
	struct rdx_wr wr[BURST];
	struct ep e = {0};
	volatile uint64_t *res;
	uint64_t posted = 0, retired = 0, guess = 0, old;
	char name[64];
	uint16_t k, m, got;
	int rc = 1;

	if (ep_open(&e, dev, 1) != 0)
		goto out;
	res = (volatile uint64_t *)e.mem->addr;
	rdx_qp_info_get(e.qp[0], &mine);
	snprintf(name, sizeof(name), "client%d.info", idx);
	if (put_file(dir, name, &mine, sizeof(mine)) != 0 ||
	    get_file(dir, "target.info", &ti, sizeof(ti)) != 0 ||
	    rdx_qp_connect(e.qp[0], &ti.qp[idx], NULL) != 0 ||
	    get_file(dir, "target.ready", NULL, 0) != 0)
		goto out;
	/* FAA in bursts; sig_interval BURST signals the last of each. */
	while (d.faa < n) {
		m = (uint16_t)(n - d.faa < BURST ? n - d.faa : BURST);
		for (k = 0; k < m; k++) {
			sge[k].addr = e.mem->iova + 64 + (uint64_t)k * 8;
			sge[k].length = 8;
			sge[k].lkey = e.mem->lkey;
			memset(&wr[k], 0, sizeof(wr[k]));
			wr[k].wr_id = posted + k;
			wr[k].sge = &sge[k];
			wr[k].num_sge = 1;
			wr[k].opcode = RDX_OP_FAA;
			wr[k].remote_addr = ti.addr;
			wr[k].rkey = ti.rkey;
			wr[k].compare_add = 1;
			wr[k].flags = k == m - 1 ? RDX_WR_SIGNALED : 0;
		}
		got = rdx_qp_post_burst(e.qp[0], wr, m);
		posted += got;
		d.faa += got;
		if (drain(&e, &posted, &retired, &d, posted) != 0)
			goto out;
	}
	/* CAS increments: compare with the last value seen, retry on a race. */
	while (d.cas_ok < n) {
		sge[0].addr = e.mem->iova;
		sge[0].length = 8;
		sge[0].lkey = e.mem->lkey;
		memset(&wr[0], 0, sizeof(wr[0]));
		wr[0].wr_id = posted;
		wr[0].sge = &sge[0];
		wr[0].num_sge = 1;
		wr[0].opcode = RDX_OP_CAS;
		wr[0].flags = RDX_WR_SIGNALED;
		wr[0].remote_addr = ti.addr + 8;
		wr[0].rkey = ti.rkey;
		wr[0].compare_add = guess;
		wr[0].swap = guess + 1;
		res[0] = UINT64_MAX;
		if (rdx_qp_post_burst(e.qp[0], wr, 1) != 1)
			goto out;
		posted++;
		if (drain(&e, &posted, &retired, &d, posted) != 0)
			goto out;
		old = res[0];
		if (old == guess) {
			d.cas_ok++;
			guess++;
		} else {
			if (old < guess) /* the counter only grows */
				d.errors++;
			d.cas_fail++;
			guess = old;
		}
	}
	rc = d.errors != 0;
	snprintf(name, sizeof(name), "client%d.done", idx);
	if (put_file(dir, name, &d, sizeof(d)) != 0)
		rc = 1;
out:
	ep_close(&e, 1);
	return rc;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/atomic2.XXXXXX";
	char nbuf[32];
	pid_t pid[3];
	int i, st, rc = 0;
	long v;

	if (argc >= 4 && strcmp(argv[1], "target") == 0) {
		v = strtol(argv[3], NULL, 10);
		if (v < 1 || v > MAX_CLIENTS)
			goto usage;
		return run_target(argv[2], (int)v, argc > 4 ? argv[4] : "rxe1");
	}
	if (argc >= 5 && strcmp(argv[1], "client") == 0) {
		v = strtol(argv[3], NULL, 10);
		if (v < 0 || v >= MAX_CLIENTS || strtol(argv[4], NULL, 10) < 1)
			goto usage;
		return run_client(argv[2], (int)v, (uint64_t)strtol(argv[4], NULL, 10),
				  argc > 5 ? argv[5] : "rxe0");
	}
	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		char names[4][64];
		int found = rdx_dev_list(names, 4);

		if (found < 2) {
			printf("no RDMA device (rxe0 and rxe1 needed): run it in the soft-RoCE guest\n");
			return 77;
		}
		if (strtol(argv[2], NULL, 10) < 1 || mkdtemp(dir) == NULL)
			goto usage;
		snprintf(nbuf, sizeof(nbuf), "%s", argv[2]);
		for (i = 0; i < 3; i++) {
			pid[i] = fork();
			if (pid[i] == 0) {
				char idx[8];

				snprintf(idx, sizeof(idx), "%d", i - 1);
				if (i == 0)
					execl("/proc/self/exe", argv[0], "target", dir, "2", (char *)NULL);
				else
					execl("/proc/self/exe", argv[0], "client", dir, idx, nbuf,
					      (char *)NULL);
				_exit(127);
			}
		}
		for (i = 0; i < 3; i++) {
			if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "atomic2: %s failed\n", i == 0 ? "target" : "a client");
				rc = 1;
			}
		}
		for (i = 0; i < 2; i++) {
			char p[600];

			snprintf(p, sizeof(p), "%s/client%d.info", dir, i);
			unlink(p);
			snprintf(p, sizeof(p), "%s/client%d.done", dir, i);
			unlink(p);
		}
		{
			char p[600];

			snprintf(p, sizeof(p), "%s/target.info", dir);
			unlink(p);
			snprintf(p, sizeof(p), "%s/target.ready", dir);
			unlink(p);
		}
		rmdir(dir);
		printf("atomic2: %s\n", rc == 0 ? "PASS" : "FAIL");
		return rc;
	}
usage:
	fprintf(stderr, "usage: atomic2 target DIR NCLIENTS [DEV] | client DIR INDEX N [DEV] | run N\n");
	return 2;
}
