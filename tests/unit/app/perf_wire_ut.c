/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's checks of what a two-process peer sends (apps/rdx-perf/
 * perf_wire.c), for the fields -b added in wire version 5: CONFIG's -b
 * flag, which both ends must agree on, and ENDACK's counts of the server's
 * own loop, which the client's report divides by and sums; and RUN's
 * buffer slots (two for a ping-pong with one op in flight).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/perf_wire.c"

static void
config_init(struct wire_config *w)
{
	memset(w, 0, sizeof(*w));
	w->magic = PERF_WIRE_MAGIC;
	w->version = RDX_WIRE_VERSION;
	snprintf(w->app_version, sizeof(w->app_version), "%s", RDX_VERSION_STR);
	snprintf(w->test, sizeof(w->test), "write");
	w->mode = PERF_MODE_BW;
	w->nb_sizes = 1;
	w->sizes[0] = 4096;
}

static void
test_config_flags(void)
{
	struct wire_config me, peer;
	char err[256] = "";

	config_init(&me);
	config_init(&peer);
	me.flags = PERF_WIRE_F_BIDIR;
	peer.flags = PERF_WIRE_F_BIDIR;
	CU_ASSERT_EQUAL(perf_wire_config_check(&me, &peer, err, sizeof(err)), 0);
	peer.flags = PERF_WIRE_F_BIDIR | PERF_WIRE_F_RDMA_CM;
	me.flags = peer.flags;
	CU_ASSERT_EQUAL(perf_wire_config_check(&me, &peer, err, sizeof(err)), 0);
	/* -b on one end only: both refuse, naming it */
	peer.flags = 0;
	me.flags = PERF_WIRE_F_BIDIR;
	CU_ASSERT_EQUAL(perf_wire_config_check(&me, &peer, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "peer does not run -b") != NULL);
	peer.flags = PERF_WIRE_F_BIDIR;
	me.flags = 0;
	CU_ASSERT_EQUAL(perf_wire_config_check(&me, &peer, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "peer runs -b") != NULL);
	/* bits nobody defined */
	peer.flags = 4;
	CU_ASSERT_EQUAL(perf_wire_config_check(&me, &peer, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "CONFIG.flags 4") != NULL);
}

/* A -b ENDACK that fits a run of 2 QPs x 100 ops of 4 KiB. */
static void
end_good(struct wire_end *e, struct wire_end_expect *x)
{
	memset(e, 0, sizeof(*e));
	e->ops = 200;
	e->bytes = 200 * 4096;
	e->ns = 1000000;
	e->qps = 2;
	e->lcores = 1;
	x->bidir = true;
	x->qps = 2;
	x->size = 4096;
	x->iters = 100;
}

static void
test_end_plain(void)
{
	struct wire_end_expect x = { .bidir = false, .qps = 1, .size = 64 };
	struct wire_end e;
	char err[256] = "";

	memset(&e, 0, sizeof(e));
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	e.status = -5;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	e.status = 3;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	e.status = 0;
	/* the server's BW peak only with -b */
	e.peak_kib = 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "ENDACK.peak_kib 1 without -b") != NULL);
	e.peak_kib = 0;
	/* without -b the loop counts are 0: each field alone is refused */
	e.lcores = 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "without -b") != NULL);
	e.lcores = 0;
	e.ns = 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
}

static void
test_end_bidir(void)
{
	struct wire_end_expect x;
	struct wire_end e;
	char err[256] = "";

	end_good(&e, &x);
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	/* -n 100: one more op per QP retires an unsignaled tail on a stop */
	e.ops = 202;
	e.bytes = 202 * 4096;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	e.ops = 203;
	e.bytes = 203 * 4096;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "ENDACK.ops 203: expected 1..202") != NULL);
	/* -D: any positive count */
	x.iters = 0;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	end_good(&e, &x);
	e.ops = 0;
	e.bytes = 0;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	end_good(&e, &x);
	e.bytes++;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "ENDACK.bytes 819201: 200 ops of 4096 B make 819200") != NULL);
	/* ops x size beyond 64 bits: refused, not wrapped */
	end_good(&e, &x);
	x.iters = 0;
	e.ops = UINT64_MAX / 4096 + 1;
	e.bytes = e.ops * 4096;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	end_good(&e, &x);
	e.qps = 3;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "ENDACK.qps 3: the run has 2 QPs") != NULL);
	end_good(&e, &x);
	e.lcores = 0;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	e.lcores = RDX_MAX_LCORES + 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	end_good(&e, &x);
	e.ns = 0;   /* the report divides by it */
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	e.ns = PERF_WIRE_MAX_RUN_NS + 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	/* a failed run: its counts are not used, so not checked */
	end_good(&e, &x);
	e.status = -EIO;
	e.ops = 0;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	/* -b: the server's BW peak, any value, 0 "not measured" (a peer of
	 * before sends 0); none for a failed run */
	end_good(&e, &x);
	e.peak_kib = 12345;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	e.peak_kib = UINT32_MAX;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
	e.status = -EIO;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "ENDACK.peak_kib 4294967295 for a failed run") != NULL);
	/* KiB/s, rounded; a measured peak never becomes "not measured" */
	CU_ASSERT_EQUAL(perf_wire_peak_kib(0), 0);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(-1), 0);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(1), 1);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(1535), 1);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(1536), 2);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(1e9), 976563);
	CU_ASSERT_EQUAL(perf_wire_peak_kib(1e16), UINT32_MAX);
	CU_ASSERT_EQUAL(perf_wire_peak_bytes(976563), 976563.0 * 1024);
	/* a huge -n does not overflow the bound */
	end_good(&e, &x);
	x.iters = UINT64_MAX - 1;
	CU_ASSERT_EQUAL(perf_wire_end_check(&e, &x, err, sizeof(err)), 0);
}

/*
 * RUN.slots: a ping-pong (write lat here) may use two send-buffer slots with
 * one op in flight, its next message built ahead in the other (pingpong.c's
 * pp_next); a stream (write bw) with one op in flight only one.
 */
static void
test_run_slots(void)
{
	static const struct rdx_perf_engine eng = {
		.name = "write", .op = RDX_OP_WRITE,
		.loop = { [PERF_MODE_BW] = PERF_LOOP_STREAM, [PERF_MODE_LAT] = PERF_LOOP_PINGPONG },
	};
	static struct perf_app a;
	struct wire_run r = { .size = 8, .req_size = 8, .stride = 64, .slots = 2, .qps = 1 };
	char err[256] = "";

	CU_ASSERT_EQUAL(perf_plan_slot_cap(1, true), 2);
	CU_ASSERT_EQUAL(perf_plan_slot_cap(1, false), 1);
	CU_ASSERT_EQUAL(perf_plan_slot_cap(3, true), 3);
	CU_ASSERT_EQUAL(perf_plan_max_slots(1, true), 2);
	CU_ASSERT_EQUAL(perf_plan_max_slots(1, false), 1);
	CU_ASSERT_EQUAL(perf_plan_max_slots(3, true), 4);
	CU_ASSERT_EQUAL(perf_plan_max_slots(64, true), 64);
	memset(&a, 0, sizeof(a));
	a.eng = &eng;
	a.o.mode = PERF_MODE_LAT;
	a.o.nb_sizes = 1;
	a.o.sizes[0] = 8;
	a.window = 1;
	a.region_len = 4096;
	a.total_qps = 1;
	CU_ASSERT_EQUAL(perf_wire_run_check(&a, &r, err, sizeof(err)), 0);
	r.slots = 4;
	CU_ASSERT_EQUAL(perf_wire_run_check(&a, &r, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "RUN.slots 4: expected a power of two <= 2") != NULL);
	/* the buffer still bounds them */
	r.slots = 2;
	a.region_len = 64;
	CU_ASSERT_EQUAL(perf_wire_run_check(&a, &r, err, sizeof(err)), -EPROTO);
	a.region_len = 4096;
	a.o.mode = PERF_MODE_BW;
	CU_ASSERT_EQUAL(perf_wire_run_check(&a, &r, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "RUN.slots 2: expected a power of two <= 1") != NULL);
	r.slots = 1;
	CU_ASSERT_EQUAL(perf_wire_run_check(&a, &r, err, sizeof(err)), 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "CONFIG -b flag", test_config_flags },
		{ "ENDACK without -b", test_end_plain },
		{ "ENDACK -b counts", test_end_bidir },
		{ "RUN slots of a ping-pong", test_run_slots },
		{ NULL, NULL },
	};

	return rdx_ut_run("perf_wire", cases, NULL, NULL);
}
