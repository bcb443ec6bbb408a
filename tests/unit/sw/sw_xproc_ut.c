/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two processes sharing the software mlx5 device model: the parent and a
 * forked child (neither uses EAL; the child opens its own device after the
 * fork) exchange qp_info over a pipe, connect, and run WRITE, READ, SEND,
 * CAS and FAA against each other's shared-memory buffers. Also: process
 * memory registered in one process is a remote access error for the other;
 * a peer that closes its device stops ACKing (RETRY_EXC); segments of dead
 * processes are cleaned up.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_errno.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_sw.h"
#include "sw_ut_poll.h"
#include "sw_model.h"
#include "sw_ut_pipe.h"


struct xmsg {
	struct rdx_qp_info info;
	uint64_t iova;
	uint64_t local_iova;
	uint32_t rkey;
	uint32_t local_rkey;
};

struct side {
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_qp *qp;
	struct rdx_mem *mem;   /* shared segment */
	struct rdx_mem *lmem;  /* process memory */
	void *lbuf;
};

static enum rdx_sw_progress progress_mode = RDX_SW_PROGRESS_INLINE;

static int
side_open(struct side *s)
{
	struct rdx_dev_conf dc = {
		.devargs = progress_mode == RDX_SW_PROGRESS_THREAD ? "progress=thread" :
			progress_mode == RDX_SW_PROGRESS_POLL ? "progress=poll" : NULL };
	struct rdx_cq_conf cc = { .depth = 64, .events = true };
	struct rdx_qp_conf qc = {
		.sq_depth = 32, .rq_depth = 32, .max_send_sge = 2, .max_recv_sge = 2,
		.max_inline = 64, .sig_interval = 32,
	};

	memset(s, 0, sizeof(*s));
	s->dev = rdx_dev_open("sw", &dc);
	if (s->dev == NULL)
		return -1;
	s->cq = rdx_cq_create(s->dev, &cc);
	if (s->cq == NULL)
		return -1;
	qc.send_cq = qc.recv_cq = s->cq;
	s->qp = rdx_qp_create(s->dev, &qc);
	s->mem = rdx_dev_mem_alloc(s->dev, 65536, RDX_MEM_HOST, RDX_ACCESS_ALL);
	s->lbuf = calloc(1, 4096);
	if (s->qp == NULL || s->mem == NULL || s->lbuf == NULL)
		return -1;
	s->lmem = rdx_dev_mem_reg(s->dev, s->lbuf, 4096, RDX_ACCESS_ALL);
	return s->lmem == NULL ? -1 : 0;
}

static void
side_msg(struct side *s, struct xmsg *m)
{
	memset(m, 0, sizeof(*m));
	rdx_qp_info_get(s->qp, &m->info);
	m->iova = s->mem->iova;
	m->rkey = s->mem->rkey;
	m->local_iova = s->lmem->iova;
	m->local_rkey = s->lmem->rkey;
}

static struct rdx_wr
wr_make(uint64_t id, uint8_t op, const struct rdx_sge *sge, uint64_t raddr, uint32_t rkey)
{
	struct rdx_wr w;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sge = sge;
	w.num_sge = sge != NULL ? 1 : 0;
	w.remote_addr = raddr;
	w.rkey = rkey;
	w.flags = RDX_WR_SIGNALED;
	return w;
}

/* One signaled WR, wait for its completion; returns the status or -1. */
static int
do_wr(struct side *s, const struct rdx_wr *w)
{
	struct rdx_wc wc;

	if (rdx_qp_post_burst(s->qp, w, 1) != 1)
		return -1;
	if (poll_n(s->cq, &wc, 1) != 1)
		return -1;
	return wc.status;
}

/* The child: receives two SENDs, checks them, WRITEs + FAAs into the
 * parent, then reports. Exit status = number of failed checks. */
static int
child_main(int rfd, int wfd)
{
	struct rdx_recv_wr r[2];
	struct rdx_sge rs[2], s;
	struct xmsg me, peer;
	struct rdx_wc wc[2];
	struct rdx_wr w;
	struct side c;
	uint8_t *buf;
	int fails = 0, i;
	char tok;

	if (side_open(&c) != 0)
		return 100;
	buf = c.mem->addr;
	rs[0] = (struct rdx_sge){ c.mem->iova + 32768, 100, c.mem->lkey };
	rs[1] = (struct rdx_sge){ c.mem->iova + 33000, 100, c.mem->lkey };
	r[0] = (struct rdx_recv_wr){ .wr_id = 1, .sge = &rs[0], .num_sge = 1 };
	r[1] = (struct rdx_recv_wr){ .wr_id = 2, .sge = &rs[1], .num_sge = 1 };
	if (rdx_qp_post_recv_burst(c.qp, r, 2) != 2)
		return 101;
	side_msg(&c, &me);
	if (wr_all(wfd, &me, sizeof(me)) != 0 || rd_all(rfd, &peer, sizeof(peer)) != 0)
		return 102;
	if (rdx_qp_connect(c.qp, &peer.info, NULL) != 0)
		return 103;
	/* our QP must be in RTR before the parent sends */
	if (wr_all(wfd, "r", 1) != 0)
		return 107;
	/* the parent's engine consumes our RQ and writes our CQ; block
	 * first (thread mode: on the CQ's futex word, woken by the parent) */
	if (rdx_cq_wait(c.cq, 10000) != 0)
		return 108;
	if (poll_n(c.cq, wc, 2) != 2)
		return 104;
	for (i = 0; i < 2; i++) {
		fails += wc[i].status != IBV_WC_SUCCESS;
		fails += wc[i].wr_id != (uint64_t)i + 1;
		fails += wc[i].byte_len != 50;
	}
	fails += wc[1].opcode != RDX_WC_RECV_IMM || wc[1].imm != htobe32(77);
	for (i = 0; i < 50; i++) {
		fails += buf[32768 + i] != (uint8_t)(i + 1);
		fails += buf[33000 + i] != (uint8_t)(i + 2);
	}
	/* our requests into the parent */
	memset(buf, 0xc5, 256);
	s = (struct rdx_sge){ c.mem->iova, 256, c.mem->lkey };
	w = wr_make(10, RDX_OP_WRITE, &s, peer.iova + 4096, peer.rkey);
	fails += do_wr(&c, &w) != IBV_WC_SUCCESS;
	s = (struct rdx_sge){ c.mem->iova + 512, 8, c.mem->lkey };
	w = wr_make(11, RDX_OP_FAA, &s, peer.iova + 8192, peer.rkey);
	w.compare_add = 1000;
	fails += do_wr(&c, &w) != IBV_WC_SUCCESS;
	if (wr_all(wfd, "d", 1) != 0 || rd_all(rfd, &tok, 1) != 0)
		return 105;
	/* the parent is done: close (the parent then sees us gone) */
	rdx_qp_destroy(c.qp);
	rdx_cq_destroy(c.cq);
	rdx_dev_close(c.dev);
	if (wr_all(wfd, "c", 1) != 0)
		return 106;
	return fails > 99 ? 99 : fails;
}

static void
test_two_processes_body(void)
{
	int p2c[2], c2p[2], status = -1;
	struct xmsg me, peer;
	struct rdx_sge s;
	struct rdx_wr w;
	struct side pa;
	uint8_t *buf;
	uint64_t *v;
	pid_t pid;
	char tok;
	int i;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(child_main(p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	CU_ASSERT_FATAL(side_open(&pa) == 0);
	buf = pa.mem->addr;
	v = (uint64_t *)(void *)(buf + 8192);
	*v = 5;
	side_msg(&pa, &me);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &me, sizeof(me)) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(pa.qp, &peer.info, NULL) == 0);
	CU_ASSERT_STRING_NOT_EQUAL(peer.info.drv, me.info.drv);
	CU_ASSERT_FATAL(rd_all(c2p[0], &tok, 1) == 0 && tok == 'r');

	/* WRITE then READ back from the child's memory */
	for (i = 0; i < 1000; i++)
		buf[i] = (uint8_t)(i * 3);
	s = (struct rdx_sge){ pa.mem->iova, 1000, pa.mem->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, peer.iova + 100, peer.rkey);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	s = (struct rdx_sge){ pa.mem->iova + 16384, 1000, pa.mem->lkey };
	w = wr_make(2, RDX_OP_READ, &s, peer.iova + 100, peer.rkey);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	CU_ASSERT(memcmp(buf + 16384, buf, 1000) == 0);
	/* two SENDs into the child's receives */
	for (i = 0; i < 50; i++) {
		buf[20000 + i] = (uint8_t)(i + 1);
		buf[21000 + i] = (uint8_t)(i + 2);
	}
	s = (struct rdx_sge){ pa.mem->iova + 20000, 50, pa.mem->lkey };
	w = wr_make(3, RDX_OP_SEND, &s, 0, 0);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	s = (struct rdx_sge){ pa.mem->iova + 21000, 50, pa.mem->lkey };
	w = wr_make(4, RDX_OP_SEND_IMM, &s, 0, 0);
	w.imm = htobe32(77);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	/* atomics on the child's memory */
	s = (struct rdx_sge){ pa.mem->iova + 30000, 8, pa.mem->lkey };
	w = wr_make(5, RDX_OP_FAA, &s, peer.iova + 40000, peer.rkey);
	w.compare_add = 9;
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	w = wr_make(6, RDX_OP_CAS, &s, peer.iova + 40000, peer.rkey);
	w.compare_add = 9;
	w.swap = 12345;
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(*(uint64_t *)(void *)(buf + 30000), 9);
	w = wr_make(7, RDX_OP_READ, &s, peer.iova + 40000, peer.rkey);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(*(uint64_t *)(void *)(buf + 30000), 12345);

	/* the child's WRITE and FAA into us */
	CU_ASSERT_EQUAL_FATAL(rd_all(c2p[0], &tok, 1), 0);
	CU_ASSERT_EQUAL(buf[4096], 0xc5);
	CU_ASSERT_EQUAL(buf[4096 + 255], 0xc5);
	CU_ASSERT_EQUAL(*v, 1005);
	/* the child's process memory is not reachable from here */
	s = (struct rdx_sge){ pa.mem->iova, 8, pa.mem->lkey };
	w = wr_make(8, RDX_OP_WRITE, &s, peer.local_iova, peer.local_rkey);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_REM_ACCESS_ERR);
	/* a fresh QP would be needed now; let the child close and check
	 * that a vanished peer gives RETRY_EXC on a new connection attempt */
	CU_ASSERT_EQUAL(wr_all(p2c[1], "x", 1), 0);
	CU_ASSERT_EQUAL(rd_all(c2p[0], &tok, 1), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		fprintf(stderr, "child exit status %d\n", WEXITSTATUS(status));
	{
		struct rdx_cq_conf cc = { .depth = 16 };
		struct rdx_qp_conf qc = { .sq_depth = 8, .max_send_sge = 1, .sig_interval = 8 };
		struct rdx_cq *cq2 = rdx_cq_create(pa.dev, &cc);
		struct rdx_qp *qp2;
		struct rdx_wc wc;

		CU_ASSERT_FATAL(cq2 != NULL);
		qc.send_cq = qc.recv_cq = cq2;
		qp2 = rdx_qp_create(pa.dev, &qc);
		CU_ASSERT_FATAL(qp2 != NULL);
		/* the segment is unlinked: connecting fails cleanly */
		CU_ASSERT(rdx_qp_connect(qp2, &peer.info, NULL) != 0);
		rdx_qp_destroy(qp2);
		rdx_cq_destroy(cq2);
		/* the old QP (in ERR) flushes */
		w = wr_make(9, RDX_OP_WRITE, &s, peer.iova, peer.rkey);
		CU_ASSERT_EQUAL(rdx_qp_post_burst(pa.qp, &w, 1), 1);
		CU_ASSERT_EQUAL(poll_n(pa.cq, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR);
	}
	close(p2c[1]);
	close(c2p[0]);
	rdx_qp_destroy(pa.qp);
	rdx_cq_destroy(pa.cq);
	rdx_dev_mem_free(pa.mem);
	rdx_dev_mem_free(pa.lmem);
	free(pa.lbuf);
	CU_ASSERT(rdx_dev_close(pa.dev) == 0);
}

static void
test_two_processes(void)
{
	progress_mode = RDX_SW_PROGRESS_INLINE;
	test_two_processes_body();
}

/* The same with both engines on their own threads. */
static void
test_two_processes_thread(void)
{
	progress_mode = RDX_SW_PROGRESS_THREAD;
	test_two_processes_body();
	progress_mode = RDX_SW_PROGRESS_INLINE;
}

/* The same with the engines run from polls only (progress=poll). */
static void
test_two_processes_poll(void)
{
	progress_mode = RDX_SW_PROGRESS_POLL;
	test_two_processes_body();
	progress_mode = RDX_SW_PROGRESS_INLINE;
}

/* A peer process that dies without closing: its requests stop, our
 * WRITEs get RETRY_EXC once it is gone (its segment says closed only if it
 * closed; a crash leaves the QP as it was: we test the closed case) and the
 * stale segment is removed by rdx_sw_cleanup_stale. */
static void
test_stale_cleanup(void)
{
	int c2p[2], status;
	char name[64] = "";
	struct stat st;
	char path[128];
	pid_t pid;

	CU_ASSERT_FATAL(pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct rdx_qp_info info;
		struct side c;

		close(c2p[0]);
		if (side_open(&c) != 0)
			_exit(1);
		rdx_qp_info_get(c.qp, &info);
		if (wr_all(c2p[1], info.drv, sizeof(info.drv)) != 0)
			_exit(2);
		_exit(0); /* no close: the segment stays behind */
	}
	close(c2p[1]);
	CU_ASSERT_EQUAL(rd_all(c2p[0], name, 48), 0);
	close(c2p[0]);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT(rdx_sw_cleanup_stale() >= 1);
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	if (geteuid() == 0) {
		/* as root: another user's segment of a dead pid stays (it may
		 * be a process of another pid namespace) */
		char other[128];
		int fd;

		snprintf(other, sizeof(other), "/dev/shm/rdx-sw-%d-0", (int)pid);
		fd = open(other, O_CREAT | O_EXCL | O_RDWR, 0600);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(fchown(fd, 4711, 4711), 0);
		close(fd);
		rdx_sw_cleanup_stale();
		CU_ASSERT_EQUAL(stat(other, &st), 0);
		unlink(other);
	}
	{
		/* a live process's segment is never removed */
		struct rdx_dev *d = rdx_dev_open("sw", NULL);
		struct rdx_cq_conf cc = { .depth = 4 };
		struct rdx_qp_conf qc = { .sq_depth = 4, .sig_interval = 4 };
		struct rdx_qp_info info;
		char own[128];
		struct rdx_cq *cq;
		struct rdx_qp *qp;

		CU_ASSERT_FATAL(d != NULL);
		cq = rdx_cq_create(d, &cc);
		CU_ASSERT_FATAL(cq != NULL);
		qc.send_cq = qc.recv_cq = cq;
		qp = rdx_qp_create(d, &qc);
		CU_ASSERT_FATAL(qp != NULL);
		rdx_qp_info_get(qp, &info);
		snprintf(own, sizeof(own), "/dev/shm%s", (const char *)info.drv);
		CU_ASSERT(rdx_sw_cleanup_stale() >= 0);
		CU_ASSERT_EQUAL(stat(own, &st), 0);
		CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
		rdx_qp_destroy(qp);
		rdx_cq_destroy(cq);
		rdx_dev_close(d);
		/* and close unlinks it */
		CU_ASSERT_NOT_EQUAL(stat(own, &st), 0);
	}
}

/* A peer QP in another process that closes: RETRY_EXC. */
static void
test_peer_closes(void)
{
	int p2c[2], c2p[2], status;
	struct xmsg me, peer;
	struct rdx_sge s;
	struct rdx_wr w;
	struct side pa;
	pid_t pid;
	char tok;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct side c;
		struct xmsg cm, pm;

		close(p2c[1]);
		close(c2p[0]);
		if (side_open(&c) != 0)
			_exit(1);
		side_msg(&c, &cm);
		if (wr_all(c2p[1], &cm, sizeof(cm)) != 0 ||
		    rd_all(p2c[0], &pm, sizeof(pm)) != 0)
			_exit(2);
		if (rdx_qp_connect(c.qp, &pm.info, NULL) != 0)
			_exit(3);
		/* close only once the parent is connected */
		if (rd_all(p2c[0], &pm, 1) != 0)
			_exit(4);
		rdx_dev_close(c.dev);
		_exit(wr_all(c2p[1], "c", 1) != 0);
	}
	close(p2c[0]);
	close(c2p[1]);
	CU_ASSERT_FATAL(side_open(&pa) == 0);
	side_msg(&pa, &me);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &me, sizeof(me)) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(pa.qp, &peer.info, NULL) == 0);
	CU_ASSERT_EQUAL(wr_all(p2c[1], "g", 1), 0);
	CU_ASSERT_EQUAL(rd_all(c2p[0], &tok, 1), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	s = (struct rdx_sge){ pa.mem->iova, 8, pa.mem->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, peer.iova, peer.rkey);
	CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_RETRY_EXC_ERR);
	close(p2c[1]);
	close(c2p[0]);
	rdx_qp_destroy(pa.qp);
	rdx_cq_destroy(pa.cq);
	rdx_dev_mem_free(pa.mem);
	rdx_dev_mem_free(pa.lmem);
	free(pa.lbuf);
	rdx_dev_close(pa.dev);
}

/* A peer process killed (no close): SENDs to it are RNR NAKed, the model
 * notices the dead pid and fails them with RETRY_EXC instead of retrying
 * forever. */
static void
peer_killed(bool writes)
{
	int p2c[2], c2p[2], status;
	struct xmsg me, peer;
	struct rdx_sge s;
	struct rdx_wr w;
	struct side pa;
	pid_t pid;
	char tok;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct side c;
		struct xmsg cm, pm;

		close(p2c[1]);
		close(c2p[0]);
		if (side_open(&c) != 0)
			_exit(1);
		side_msg(&c, &cm);
		if (wr_all(c2p[1], &cm, sizeof(cm)) != 0 ||
		    rd_all(p2c[0], &pm, sizeof(pm)) != 0 ||
		    rdx_qp_connect(c.qp, &pm.info, NULL) != 0 ||
		    wr_all(c2p[1], "r", 1) != 0)
			_exit(2);
		pause();
		_exit(3);
	}
	close(p2c[0]);
	close(c2p[1]);
	CU_ASSERT_FATAL(side_open(&pa) == 0);
	side_msg(&pa, &me);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &me, sizeof(me)) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(pa.qp, &peer.info, NULL) == 0);
	CU_ASSERT_EQUAL(rd_all(c2p[0], &tok, 1), 0);
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	s = (struct rdx_sge){ pa.mem->iova, 8, pa.mem->lkey };
	if (writes) {
		/* WRITEs land in the orphaned segment until the model looks at
		 * the pid (within 1024 WQEs), then stop being ACKed */
		int i, st = IBV_WC_SUCCESS;

		for (i = 0; i < 4096 && st == IBV_WC_SUCCESS; i++) {
			w = wr_make((uint64_t)i, RDX_OP_WRITE, &s, peer.iova, peer.rkey);
			st = do_wr(&pa, &w);
		}
		CU_ASSERT_EQUAL(st, IBV_WC_RETRY_EXC_ERR);
		CU_ASSERT(i <= 1100);
	} else {
		w = wr_make(1, RDX_OP_SEND, &s, 0, 0);
		CU_ASSERT_EQUAL(do_wr(&pa, &w), IBV_WC_RETRY_EXC_ERR);
	}
	close(p2c[1]);
	close(c2p[0]);
	rdx_qp_destroy(pa.qp);
	rdx_cq_destroy(pa.cq);
	rdx_dev_mem_free(pa.mem);
	rdx_dev_mem_free(pa.lmem);
	free(pa.lbuf);
	rdx_dev_close(pa.dev);
}

static void
test_peer_killed(void)
{
	peer_killed(false);
}

static void
test_peer_killed_writes(void)
{
	peer_killed(true);
}

/*
 * Hostile or broken peers (fault matrix): a child process connects, then
 * on the parent's command stops, truncates its own segment, truncates the
 * parent's segment, or scribbles random words over its own object tables
 * and rings. The parent must get one decoded completion per request, never
 * die (SIGBUS included), never hang, and close cleanly.
 */
static const struct rdx_qp_conn_attr fast_attr = {
	.rnr_retry = 2, .min_rnr_timer = 1, .retry_cnt = 2, .timeout = 8,
};

static int
peer_child(int rfd, int wfd)
{
	struct xmsg cm, pm;
	struct side c;
	char cmd;

	if (side_open(&c) != 0)
		return 1;
	side_msg(&c, &cm);
	if (wr_all(wfd, &cm, sizeof(cm)) != 0 || rd_all(rfd, &pm, sizeof(pm)) != 0 ||
	    rdx_qp_connect(c.qp, &pm.info, NULL) != 0 || wr_all(wfd, "r", 1) != 0)
		return 2;
	while (rd_all(rfd, &cmd, 1) == 0) {
		char name[sizeof(cm.info.drv) + 1];
		int fd;

		switch (cmd) {
		case 'T': /* cut our own segment to one page */
		case 'U': /* ... or the parent's */
			memcpy(name, cmd == 'T' ? cm.info.drv : pm.info.drv,
			       sizeof(cm.info.drv));
			name[sizeof(cm.info.drv)] = '\0';
			fd = shm_open(name, O_RDWR, 0);
			if (fd < 0 || ftruncate(fd, 4096) != 0)
				return 3;
			close(fd);
			break;
		case 'X': { /* scribble: random words over our tables and buffers */
			uint64_t x = UINT64_C(0x2545f4914f6cdd1d) ^ (uint64_t)(uint32_t)getpid();
			uint8_t *base;
			int i;

			memcpy(name, cm.info.drv, sizeof(cm.info.drv));
			name[sizeof(cm.info.drv)] = '\0';
			fd = shm_open(name, O_RDWR, 0);
			if (fd < 0)
				return 4;
			base = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			close(fd);
			if (base == MAP_FAILED)
				return 5;
			if (wr_all(wfd, "x", 1) != 0)
				return 6;
			for (i = 0; i < 20000; i++) {
				uint64_t off, v;

				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				v = x;
				/* the MR, CQ and QP tables (first slots) or the first
				 * MiBs of rings and buffers after the header */
				switch (x % 3) {
				case 0:
					off = (x >> 8) % (4 * sizeof(struct sw_mr_shm)) +
					      offsetof(struct sw_shm_hdr, mrs);
					break;
				case 1:
					off = (x >> 8) % (2 * sizeof(struct sw_qp_shm)) +
					      offsetof(struct sw_shm_hdr, qps);
					break;
				default:
					off = ((sizeof(struct sw_shm_hdr) + 4095) & ~(size_t)4095) +
					      (x >> 8) % (UINT64_C(4) << 20);
					break;
				}
				memcpy(base + (off & ~7ULL), &v, 8);
				usleep(100);
			}
			continue;
		}
		default:
			break;
		}
		if (wr_all(wfd, &cmd, 1) != 0)
			return 7;
	}
	return 0;
}

struct peer {
	pid_t pid;
	int to, from;
	struct xmsg info;
	struct side me;
};

static void
peer_start(struct peer *pr)
{
	int p2c[2], c2p[2];
	struct xmsg me;
	char tok;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pr->pid = fork();
	CU_ASSERT_FATAL(pr->pid >= 0);
	if (pr->pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(peer_child(p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	pr->to = p2c[1];
	pr->from = c2p[0];
	CU_ASSERT_FATAL(side_open(&pr->me) == 0);
	side_msg(&pr->me, &me);
	CU_ASSERT_FATAL(rd_all(pr->from, &pr->info, sizeof(pr->info)) == 0);
	CU_ASSERT_FATAL(wr_all(pr->to, &me, sizeof(me)) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(pr->me.qp, &pr->info.info, &fast_attr) == 0);
	CU_ASSERT_FATAL(rd_all(pr->from, &tok, 1) == 0 && tok == 'r');
}

static void
peer_cmd(struct peer *pr, char cmd, char reply)
{
	char tok = 0;

	CU_ASSERT_FATAL(wr_all(pr->to, &cmd, 1) == 0);
	CU_ASSERT_FATAL(rd_all(pr->from, &tok, 1) == 0);
	CU_ASSERT_EQUAL(tok, reply);
}

static void
peer_end(struct peer *pr)
{
	int status;

	kill(pr->pid, SIGCONT);
	kill(pr->pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pr->pid, &status, 0), pr->pid);
	close(pr->to);
	close(pr->from);
	CU_ASSERT_EQUAL(rdx_qp_destroy(pr->me.qp), 0);
	CU_ASSERT_EQUAL(rdx_cq_destroy(pr->me.cq), 0);
	rdx_dev_mem_free(pr->me.mem);
	rdx_dev_mem_free(pr->me.lmem);
	free(pr->me.lbuf);
	CU_ASSERT_EQUAL(rdx_dev_close(pr->me.dev), 0);
}

/* SIGSTOP: the stopped process's memory still answers WRITE and READ (its
 * "NIC" works); a SEND finds no receive and ends in RNR_RETRY_EXC; the
 * survivor then tears down while the peer is still stopped. */
static void
test_peer_stopped(void)
{
	struct peer pr;
	struct rdx_sge s;
	struct rdx_wr w;

	peer_start(&pr);
	CU_ASSERT_EQUAL(kill(pr.pid, SIGSTOP), 0);
	s = (struct rdx_sge){ pr.me.mem->iova, 64, pr.me.mem->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, pr.info.iova, pr.info.rkey);
	CU_ASSERT_EQUAL(do_wr(&pr.me, &w), IBV_WC_SUCCESS);
	w = wr_make(2, RDX_OP_READ, &s, pr.info.iova, pr.info.rkey);
	CU_ASSERT_EQUAL(do_wr(&pr.me, &w), IBV_WC_SUCCESS);
	w = wr_make(3, RDX_OP_SEND, &s, 0, 0);
	CU_ASSERT_EQUAL(do_wr(&pr.me, &w), IBV_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(pr.me.qp), RDX_SW_QPS_ERR);
	peer_end(&pr);
}

/* The peer truncates its own segment: our next access to it would be
 * SIGBUS; the guard turns it into a peer that stopped answering (0x15). */
static void
test_peer_truncates_own(void)
{
	struct rdx_sw_stats st;
	struct peer pr;
	struct rdx_sge s;
	struct rdx_wr w;

	peer_start(&pr);
	s = (struct rdx_sge){ pr.me.mem->iova, 64, pr.me.mem->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, pr.info.iova, pr.info.rkey);
	CU_ASSERT_EQUAL(do_wr(&pr.me, &w), IBV_WC_SUCCESS);
	peer_cmd(&pr, 'T', 'T');
	w = wr_make(2, RDX_OP_WRITE, &s, pr.info.iova, pr.info.rkey);
	CU_ASSERT_EQUAL(do_wr(&pr.me, &w), IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT(rdx_sw_stats_get(pr.me.dev, &st) == 0);
	CU_ASSERT_EQUAL(st.device_errors, 0); /* our own device is fine */
	peer_end(&pr);
}

/* The peer truncates OUR segment: our own rings, CQ and buffers past the
 * cut are gone. We must survive it (no SIGBUS death), count a device
 * error, and close. What the lost pages held is not recoverable. */
static void
test_peer_truncates_ours(void)
{
	struct rdx_sw_stats st;
	struct rdx_wc wc[4];
	struct peer pr;
	struct rdx_sge s;
	struct rdx_wr w;
	int i;

	peer_start(&pr);
	peer_cmd(&pr, 'U', 'U');
	s = (struct rdx_sge){ pr.me.mem->iova, 64, pr.me.mem->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, pr.info.iova, pr.info.rkey);
	rdx_qp_post_burst(pr.me.qp, &w, 1);
	for (i = 0; i < 100; i++)
		rdx_cq_poll_burst(pr.me.cq, wc, 4);
	rdx_sw_progress(pr.me.dev);
	CU_ASSERT(rdx_sw_stats_get(pr.me.dev, &st) == 0);
	CU_ASSERT(st.device_errors >= 1);
	peer_end(&pr);
}

/* The peer scribbles random words over its MR/QP tables and its rings and
 * buffers while we keep sending requests: each gets one completion with a
 * decoded status (success until the first error, flushes after it). */
static void
test_peer_scribbles(void)
{
	uint32_t hist[256] = { 0 };
	struct peer pr;
	struct rdx_sge s;
	struct rdx_wr w;
	int i, st, lost = 0;

	peer_start(&pr);
	peer_cmd(&pr, 'X', 'x');
	for (i = 0; i < 3000; i++) {
		switch (i % 4) {
		case 0:
			s = (struct rdx_sge){ pr.me.mem->iova, 64, pr.me.mem->lkey };
			w = wr_make((uint64_t)i, RDX_OP_WRITE, &s, pr.info.iova + 64, pr.info.rkey);
			break;
		case 1:
			s = (struct rdx_sge){ pr.me.mem->iova, 64, pr.me.mem->lkey };
			w = wr_make((uint64_t)i, RDX_OP_READ, &s, pr.info.iova + 64, pr.info.rkey);
			break;
		case 2:
			s = (struct rdx_sge){ pr.me.mem->iova + 128, 8, pr.me.mem->lkey };
			w = wr_make((uint64_t)i, RDX_OP_FAA, &s, pr.info.iova + 256, pr.info.rkey);
			w.compare_add = 1;
			break;
		default:
			s = (struct rdx_sge){ pr.me.mem->iova, 32, pr.me.mem->lkey };
			w = wr_make((uint64_t)i, RDX_OP_SEND, &s, 0, 0);
			break;
		}
		st = do_wr(&pr.me, &w);
		if (st < 0 || st > 255) {
			lost++;
			break;
		}
		hist[st]++;
		if (st == IBV_WC_WR_FLUSH_ERR)
			break; /* the QP is in error: the rest would be flushed */
	}
	CU_ASSERT_EQUAL(lost, 0);
	printf("\n    %d requests: ok %u, flushed %u, other errors %u\n", i + 1, hist[0],
	       hist[IBV_WC_WR_FLUSH_ERR],
	       (uint32_t)i + 1 - hist[0] - hist[IBV_WC_WR_FLUSH_ERR]);
	peer_end(&pr);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "two_processes", test_two_processes },
		{ "two_processes_thread", test_two_processes_thread },
		{ "two_processes_poll", test_two_processes_poll },
		{ "peer_closes", test_peer_closes },
		{ "peer_killed", test_peer_killed },
		{ "peer_killed_writes", test_peer_killed_writes },
		{ "stale_cleanup", test_stale_cleanup },
		{ "peer_stopped", test_peer_stopped },
		{ "peer_truncates_own", test_peer_truncates_own },
		{ "peer_truncates_ours", test_peer_truncates_ours },
		{ "peer_scribbles", test_peer_scribbles },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_xproc", cases, NULL, NULL);
}
