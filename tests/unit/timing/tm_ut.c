/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the timing components (drivers/mlx5/sw/timing/): the link,
 * the round-robin arbitration, PCIe, the LRU context cache, the atomic
 * unit, the profile parser and one WQE through the NIC. Figures are worked
 * by hand from the formulas in each file's header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"
#include "sw_timing.h"

static struct sw_tm_profile prof;

static int
suite_init(void)
{
	char err[1100];
	const char *dir = getenv("RDX_TIMING_DIR");

	if (sw_tm_profile_load(&prof, "cx6-200g", dir != NULL ? dir : "config/timing", err,
			       sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int
suite_fini(void)
{
	return 0;
}

static void
test_link(void)
{
	CU_ASSERT_EQUAL(sw_tm_link_packets(0, 4096), 1);
	CU_ASSERT_EQUAL(sw_tm_link_packets(4096, 4096), 1);
	CU_ASSERT_EQUAL(sw_tm_link_packets(4097, 4096), 2);
	CU_ASSERT_EQUAL(sw_tm_link_packets(65536, 1024), 64);
	/* 64 KiB at MTU 4096: 16 packets of 82 B headers, RETH once */
	CU_ASSERT_EQUAL(sw_tm_link_wire_bytes(65536, 4096, 82, 16), 65536 + 16 * 82 + 16);
	/* 1000 B at 100 Gb/s: 80 ns; at 200 Gb/s: 40 ns; rounded up */
	CU_ASSERT_EQUAL(sw_tm_link_ser_ps(1000, 100000), 80000);
	CU_ASSERT_EQUAL(sw_tm_link_ser_ps(1000, 200000), 40000);
	CU_ASSERT_EQUAL(sw_tm_link_ser_ps(1, 3), 2666667);
	/* goodput: payload over wire bytes of the rate; smaller MTU, less */
	CU_ASSERT_EQUAL(sw_tm_link_goodput_mbps(4096, 4096, 82, 0, 200000), 4096ULL * 200000 / 4178);
	CU_ASSERT(sw_tm_link_goodput_mbps(65536, 256, 82, 16, 200000) <
		  sw_tm_link_goodput_mbps(65536, 1024, 82, 16, 200000));
	CU_ASSERT(sw_tm_link_goodput_mbps(65536, 1024, 82, 16, 200000) <
		  sw_tm_link_goodput_mbps(65536, 4096, 82, 16, 200000));
	CU_ASSERT(sw_tm_link_goodput_mbps(65536, 4096, 26, 16, 200000) >
		  sw_tm_link_goodput_mbps(65536, 4096, 82, 16, 200000));
}

static void
test_port(void)
{
	static struct sw_tm_arb a;
	uint64_t pos;

	/* one QP: idle, starts when ready; busy, queues behind its own */
	sw_tm_arb_init(&a);
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 7, 100, 50, 1, &pos), 150);
	CU_ASSERT_EQUAL(pos, 50);
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 7, 120, 50, 5, &pos), 200);
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 7, 1000, 10, 1, &pos), 1010);
	CU_ASSERT_EQUAL(a.clock_ps, 1000);
	/* sent: no more finish time, its stream's position stays */
	sw_tm_arb_advance(&a, 2000);
	CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 7, pos), 0);
	CU_ASSERT_EQUAL(a.n, 0);
	CU_ASSERT_EQUAL(a.clock_ps, 2000);
	/* a ready time before the clock: the port's clock (never earlier) */
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 1, 1500, 10, 1, &pos), 2010);
}

/* The arbiter fed as the closed form: QPs in order, all at once. */
static uint64_t
arb_as_rr(const uint64_t *pkts, unsigned int n, unsigned int q, uint64_t pkt_ps)
{
	static struct sw_tm_arb a;
	uint64_t pos[8], t = 0;
	unsigned int j;

	sw_tm_arb_init(&a);
	for (j = 0; j < n; j++)
		(void)sw_tm_arb_send(&a, 100 + j, 0, pkts[j] * pkt_ps, pkts[j], &pos[j]);
	if (q < n)
		t = sw_tm_arb_finish(&a, 100 + q, pos[q]);
	return t;
}

static void
test_arbiter(void)
{
	static const uint64_t sets[][3] = { { 4, 4, 4 }, { 100, 1, 1 }, { 1, 3, 2 }, { 7, 2, 5 } };
	static struct sw_tm_arb a;
	uint64_t pos, p1, p2, t1, t2;
	unsigned int i, q;

	/* the simulated port gives the tested closed form's times */
	for (i = 0; i < 4; i++)
		for (q = 0; q < 3; q++)
			CU_ASSERT_EQUAL(arb_as_rr(sets[i], 3, q, 10), sw_tm_rr_finish_ps(sets[i], 3, q, 10));
	/* ... also after serving part of it: advancing, then asking, is
	 * what asking at once said */
	sw_tm_arb_init(&a);
	(void)sw_tm_arb_send(&a, 1, 0, 70, 7, &p1);
	(void)sw_tm_arb_send(&a, 2, 0, 50, 5, &p2);
	t1 = sw_tm_arb_finish(&a, 1, p1);
	t2 = sw_tm_arb_finish(&a, 2, p2);
	CU_ASSERT_EQUAL(t1, 120);
	CU_ASSERT_EQUAL(t2, 100);
	for (i = 1; i < 120; i += 7) {
		sw_tm_arb_advance(&a, i);
		if (a.clock_ps < t2)
			CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 2, p2), t2);
		if (a.clock_ps < t1)
			CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 1, p1), t1);
	}
	/* a message queued later moves an earlier one on by its packets */
	sw_tm_arb_init(&a);
	t1 = sw_tm_arb_send(&a, 1, 0, 1000, 100, &p1);
	CU_ASSERT_EQUAL(t1, 1000);
	t2 = sw_tm_arb_send(&a, 2, 55, 30, 3, &p2);
	/* at 55 the packet in service (50..60) finishes and 1 goes to the
	 * tail; 2 joins behind it: 1, 2, 1, 2, 1, 2 */
	CU_ASSERT_EQUAL(t2, 120);
	CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 1, p1), 1030);
	/* a QP's second message goes behind its first */
	t2 = sw_tm_arb_send(&a, 1, 55, 10, 1, &pos);
	CU_ASSERT_EQUAL(t2, 1040);
	/* a packet shorter than the others (a message's last) */
	sw_tm_arb_init(&a);
	(void)sw_tm_arb_send(&a, 1, 0, 25, 3, &p1);   /* 9 9 7 */
	(void)sw_tm_arb_send(&a, 2, 0, 20, 2, &p2);   /* 10 10 */
	CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 1, p1), 45);
	CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 2, p2), 38);
	sw_tm_arb_advance(&a, 40);
	CU_ASSERT_EQUAL(a.clock_ps, 45);
	CU_ASSERT_EQUAL(a.n, 0);
	/* drained in whole rounds: out of the queue, and in again once */
	sw_tm_arb_init(&a);
	(void)sw_tm_arb_send(&a, 1, 0, 20, 2, &p1);
	(void)sw_tm_arb_send(&a, 2, 0, 40, 4, &p2);
	sw_tm_arb_advance(&a, 40);
	CU_ASSERT_EQUAL(a.n, 1);
	CU_ASSERT_EQUAL(a.rem_ps[2], 20);
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 1, 40, 10, 1, &p1), 60);
	CU_ASSERT_EQUAL(a.n, 2);
	CU_ASSERT_EQUAL(sw_tm_arb_finish(&a, 2, p2), 70);
	/* more QPs queued than SW_TM_ARB_EXACT: bounded, never earlier; the
	 * schedule's time when the others all have more than it */
	sw_tm_arb_init(&a);
	for (i = 0; i < 100; i++)
		(void)sw_tm_arb_send(&a, i, 0, 100, 10, &pos);
	CU_ASSERT(a.n > SW_TM_ARB_EXACT);
	CU_ASSERT_EQUAL(sw_tm_arb_send(&a, 200, 0, 30, 3, &p1), 100 * 30 + 30);
	sw_tm_arb_init(&a);
	for (i = 0; i < 100; i++)
		(void)sw_tm_arb_send(&a, i, 0, i < 50 ? 10 : 1000, i < 50 ? 1 : 100, &pos);
	t1 = sw_tm_arb_send(&a, 200, 0, 50, 5, &p1);
	CU_ASSERT(t1 >= 50 * 10 + 50 * 50 + 50);
	CU_ASSERT(t1 <= 50 * 10 + 50 * 1000 + 50);
	/* the sums the bound uses follow the queue */
	sw_tm_arb_advance(&a, 1000000);
	CU_ASSERT_EQUAL(a.n, 0);
	CU_ASSERT_EQUAL(a.sum_rem, 0);
	CU_ASSERT_EQUAL(a.sum_pkt, 0);
}

static void
test_round_robin(void)
{
	const uint64_t two[] = { 4, 4 };
	const uint64_t mouse[] = { 100, 1 };
	const uint64_t three[] = { 1, 3, 2 };

	/* two equal QPs interleave: QP 0 ends at packet 7, QP 1 at 8 */
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(two, 2, 0, 10), 70);
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(two, 2, 1, 10), 80);
	/* a mouse behind an elephant waits one packet, not 100 */
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(mouse, 2, 1, 10), 20);
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(mouse, 2, 0, 10), 1010);
	/* 0 1 2 | 1 2 | 1: QP 1 last, QP 2 after 5 packets */
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(three, 3, 0, 1), 1);
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(three, 3, 2, 1), 5);
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(three, 3, 1, 1), 6);
	CU_ASSERT_EQUAL(sw_tm_rr_finish_ps(three, 3, 3, 1), 0);
}

static void
test_pcie(void)
{
	struct sw_tm_profile p = prof;
	uint64_t bf, db;

	p.pcie_mbps = 100000;
	p.tlp_hdr = 24;
	p.mrrs = 512;
	p.mps = 256;
	/* 1024 B in 256-B TLPs: 4 headers; in 512-B ones: 2 */
	CU_ASSERT_EQUAL(sw_tm_pcie_xfer_ps(&p, 1024, 256), sw_tm_link_ser_ps(1024 + 96, 100000));
	CU_ASSERT_EQUAL(sw_tm_pcie_xfer_ps(&p, 1024, 512), sw_tm_link_ser_ps(1024 + 48, 100000));
	CU_ASSERT_EQUAL(sw_tm_pcie_xfer_ps(&p, 0, 256), 0);
	CU_ASSERT_EQUAL(sw_tm_pcie_read_ps(&p, 64),
			p.pcie_rd_ns * 1000ULL + sw_tm_pcie_xfer_ps(&p, 64, 512));
	/* BlueFlame saves the WQE fetch's round trip; too big a WQE cannot */
	bf = sw_tm_pcie_wqe_ps(&p, 64, true);
	db = sw_tm_pcie_wqe_ps(&p, 64, false);
	CU_ASSERT(db > bf);
	CU_ASSERT(db - bf >= p.pcie_rd_ns * 1000ULL - 1000);
	CU_ASSERT_EQUAL(sw_tm_pcie_wqe_ps(&p, 512, true), sw_tm_pcie_wqe_ps(&p, 512, false));
}

static void
test_cache_lru(void)
{
	static struct sw_tm_cache c;
	unsigned int i, round, misses;

	sw_tm_cache_init(&c, 3);
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 1));
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 2));
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 3));
	CU_ASSERT_TRUE(sw_tm_cache_touch(&c, 1));   /* order now 1 3 2 */
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 4));  /* evicts 2 */
	CU_ASSERT_TRUE(sw_tm_cache_touch(&c, 3));
	CU_ASSERT_TRUE(sw_tm_cache_touch(&c, 1));
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 2));  /* evicts 4 */
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 4));
	CU_ASSERT_EQUAL(c.n, 3);
	/* the knee: QPs in turn, at most the capacity hit after the first
	 * round, one more thrash (LRU: every use a miss) */
	sw_tm_cache_init(&c, 256);
	for (round = 0, misses = 0; round < 3; round++)
		for (i = 0; i < 256; i++)
			misses += !sw_tm_cache_touch(&c, i);
	CU_ASSERT_EQUAL(misses, 256);
	sw_tm_cache_init(&c, 256);
	for (round = 0, misses = 0; round < 3; round++)
		for (i = 0; i < 257; i++)
			misses += !sw_tm_cache_touch(&c, i);
	CU_ASSERT_EQUAL(misses, 3 * 257);
	sw_tm_cache_init(&c, 0);
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 1));
	CU_ASSERT_FALSE(sw_tm_cache_touch(&c, 1));
}

static void
test_atomic_unit(void)
{
	static struct sw_tm_atomic u;
	uint64_t t, last = 0;
	unsigned int i;
	bool serial = false;

	/* one address: serialised, op_ps apart */
	sw_tm_atomic_init(&u, 16);
	for (i = 0; i < 10; i++)
		last = sw_tm_atomic_op(&u, 0x1000, 0, 300, 20, NULL);
	CU_ASSERT_EQUAL(last, 3000);
	/* the same 8 bytes, another byte offset: the same address */
	CU_ASSERT_EQUAL(sw_tm_atomic_op(&u, 0x1004, 0, 300, 20, &serial), 3300);
	CU_ASSERT_TRUE(serial);
	/* distinct addresses: pipelined, issue_ps apart */
	sw_tm_atomic_init(&u, 16);
	for (i = 0; i < 10; i++)
		last = sw_tm_atomic_op(&u, 0x1000 + 8 * i, 0, 300, 20, NULL);
	CU_ASSERT_EQUAL(last, 9 * 20 + 300);
	/* more addresses than units: the slot that frees first */
	sw_tm_atomic_init(&u, 2);
	CU_ASSERT_EQUAL(sw_tm_atomic_op(&u, 0, 0, 300, 20, NULL), 300);
	CU_ASSERT_EQUAL(sw_tm_atomic_op(&u, 8, 0, 300, 20, NULL), 320);
	t = sw_tm_atomic_op(&u, 16, 0, 300, 20, NULL);
	CU_ASSERT_EQUAL(t, 600);
	/* later, idle again: no wait */
	CU_ASSERT_EQUAL(sw_tm_atomic_op(&u, 0, 10000, 300, 20, &serial), 10300);
	CU_ASSERT_FALSE(serial);
}

static const char good[] =
	"# a profile\n"
	"link_mbps = 100000 # a\n mtu = 1024 # b\npkt_hdr = 26 # c\nreth = 16 # d\n"
	"atomic_hdr = 28 # e\nack_bytes = 4 # f\nprop_ns = 100 # g\npcie_mbps = 100000 # h\n"
	"pcie_rd_ns = 500 # i\npcie_wr_ns = 200 # j\nmrrs = 512 # k\nmps = 256 # l\n"
	"tlp_hdr = 24 # m\nbf_max = 256 # n\nmsg_rate_kops = 100000 # o\npipe_ns = 50 # p\n"
	"\nqpc_entries = 64 # q\nqpc_bytes = 256 # r\nqpc_miss_par = 8 # r2\natomic_ns = 300 # s\n"
	"atomic_issue_ns = 20 # t\natomic_units = 8 # u\ncqe_ns = 10   # assumed: why\n";

static int
parse_with(const char *text, char *err, unsigned int len)
{
	struct sw_tm_profile p;

	memset(&p, 0, sizeof(p));
	err[0] = '\0';
	return sw_tm_profile_parse(&p, text, "x.conf", err, len);
}

static void
test_profile(void)
{
	struct sw_tm_profile p;
	char err[256], buf[2048];

	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(sw_tm_profile_parse(&p, good, "x.conf", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.link_mbps, 100000);
	CU_ASSERT_EQUAL(p.mtu, 1024);
	CU_ASSERT_EQUAL(p.cqe_ns, 10);
	/* each error: one line with file:line */
	snprintf(buf, sizeof(buf), "%sbogus = 1 # x\n", good);
	CU_ASSERT_EQUAL(parse_with(buf, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "x.conf:26: unknown key bogus");
	snprintf(buf, sizeof(buf), "%smtu = 1024 # again\n", good);
	CU_ASSERT_EQUAL(parse_with(buf, err, sizeof(err)), -EINVAL);
	CU_ASSERT(strncmp(err, "x.conf:26: key given twice", 26) == 0);
	CU_ASSERT_EQUAL(parse_with("mtu = 1024\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strncmp(err, "x.conf:1: no source", 19) == 0);
	CU_ASSERT_EQUAL(parse_with("mtu 1024 # s\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strncmp(err, "x.conf:1: expected key = value", 30) == 0);
	CU_ASSERT_EQUAL(parse_with("\nmtu = 10x # s\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strncmp(err, "x.conf:2: bad value '10x'", 25) == 0);
	CU_ASSERT_EQUAL(parse_with("mtu = 99999 # s\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(parse_with("mtu = -1 # s\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(parse_with("mtu = 1024 # s\n", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strncmp(err, "x.conf: missing key link_mbps", 29) == 0);
	CU_ASSERT(strchr(err, '\n') == NULL);
	/* a name that is neither a profile nor a path; a missing file */
	CU_ASSERT_EQUAL(sw_tm_profile_load(&p, "../x", "/nonexistent", err, sizeof(err)), -ENOENT);
	CU_ASSERT_EQUAL(sw_tm_profile_load(&p, "a.b", "/nonexistent", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(sw_tm_profile_load(&p, "nope", "/nonexistent", err, sizeof(err)), -ENOENT);
	/* the shipped profiles parse, named by their file */
	CU_ASSERT_STRING_EQUAL(prof.name, "cx6-200g");
	CU_ASSERT_EQUAL(prof.link_mbps, 200000);
}

static void
test_nic_wqe(void)
{
	static struct sw_tm_nic n;
	struct sw_tm_wqe w = {
		.op = SW_TM_WRITE, .len = 65536, .wqe_bytes = 64, .bf = true, .signaled = true,
	};
	struct sw_tm_times t, t2;
	uint64_t ser, gap, min, i, first, last = 0;

	sw_tm_nic_init(&n, &prof);
	sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	CU_ASSERT(t.cqe_ps > t.data_ps);
	/* back to back: the link sets the pace, one 64 KiB message each */
	sw_tm_nic_wqe(&n, &prof, &w, 0, &t2);
	ser = sw_tm_link_ser_ps(sw_tm_link_wire_bytes(65536, prof.mtu, prof.pkt_hdr, prof.reth),
				prof.link_mbps);
	gap = t2.data_ps - t.data_ps;
	CU_ASSERT(gap >= ser && gap <= ser + 1000);
	/* the QP's path MTU: 256-B packets carry 16 x the headers */
	sw_tm_nic_init(&n, &prof);
	w.mtu = 256;
	sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	sw_tm_nic_wqe(&n, &prof, &w, 0, &t2);
	CU_ASSERT(t2.data_ps - t.data_ps >=
		  sw_tm_link_ser_ps(sw_tm_link_wire_bytes(65536, 256, prof.pkt_hdr, prof.reth),
				    prof.link_mbps));
	CU_ASSERT(t2.data_ps - t.data_ps > gap + gap / 4);
	w.mtu = 0;
	/* 8-byte inline writes: the message rate, not the link; the first on
	 * an idle NIC is the minimum one-way time */
	min = sw_tm_nic_min_write_ps(&prof);
	CU_ASSERT(min >= (prof.pcie_wr_ns * 2ULL + prof.prop_ns + 2ULL * prof.pipe_ns) * 1000);
	sw_tm_nic_init(&n, &prof);
	w.len = 8;
	w.inl = true;
	w.signaled = false;
	for (i = 0; i < 1000; i++) {
		sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
		if (i == 0)
			first = t.data_ps;
		last = t.data_ps;
	}
	/* the first paid a context miss; 999 more at the message rate */
	CU_ASSERT(first > min);
	CU_ASSERT((last - first) / 999 - 1000000000ULL / prof.msg_rate_kops <= 100);
	/* QPs in turn: within the context cache, the message rate; one QP
	 * more than it holds, every message a miss and the pipeline slower */
	sw_tm_nic_init(&n, &prof);
	for (i = 0; i < 4 * prof.qpc_entries; i++) {
		if (i == prof.qpc_entries)
			first = n.busy_ps;  /* after the cold round */
		w.qp_key = (uint32_t)(i % prof.qpc_entries);
		sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	}
	first = n.busy_ps - first;
	CU_ASSERT_EQUAL(n.qpc.misses, prof.qpc_entries);
	sw_tm_nic_init(&n, &prof);
	for (i = 0; i < 4 * prof.qpc_entries; i++) {
		if (i == prof.qpc_entries)
			last = n.busy_ps;
		w.qp_key = (uint32_t)(i % (prof.qpc_entries + 1));
		sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	}
	last = n.busy_ps - last;
	CU_ASSERT_EQUAL(n.qpc.misses, 4 * prof.qpc_entries);
	CU_ASSERT(last > 4 * first);
	w.qp_key = 0;
	/* atomics: one key serialised, many keys pipelined */
	sw_tm_nic_init(&n, &prof);
	w.op = SW_TM_ATOMIC;
	w.signaled = true;
	for (i = 0; i < 100; i++) {
		w.raddr = 0x1000;
		sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	}
	/* the busy time: one key, a whole operation each */
	CU_ASSERT(n.busy_ps >= 99ULL * prof.atomic_ns * 1000);
	sw_tm_nic_init(&n, &prof);
	for (i = 0; i < 100; i++) {
		w.raddr = 0x1000 + 8 * i;
		sw_tm_nic_wqe(&n, &prof, &w, 0, &t2);
	}
	CU_ASSERT(t.cqe_ps > 100ULL * prof.atomic_ns * 1000);
	CU_ASSERT(t2.cqe_ps < t.cqe_ps / 4);
	/* the busy time: many keys, an issue slot each */
	CU_ASSERT(n.busy_ps < 100ULL * prof.atomic_ns * 1000 / 4);
	/* READ: the completion comes with the data */
	sw_tm_nic_init(&n, &prof);
	w.op = SW_TM_READ;
	w.len = 4096;
	sw_tm_nic_wqe(&n, &prof, &w, 0, &t);
	CU_ASSERT(t.cqe_ps >= t.data_ps);
	CU_ASSERT_EQUAL(n.wqes, 1);
}

/* Two bw flows on one device: 32 x 64 KiB WRITEs each, QP 1's rung
 * first, then QP 2's, all at once. Their modelled completions (moved on
 * by what came in front of them, as the hook does while they wait) give
 * each flow about half the port. */
static void
test_fair(void)
{
	static struct sw_tm_nic n;
	static struct sw_tm_times t[2][32];
	struct sw_tm_wqe w = {
		.op = SW_TM_WRITE, .len = 65536, .wqe_bytes = 64, .bf = true, .signaled = true,
	};
	double x[2], jain;
	uint64_t end[2], first_end, ser;
	unsigned int f, i;

	sw_tm_nic_init(&n, &prof);
	for (f = 0; f < 2; f++)
		for (i = 0; i < 32; i++) {
			w.qp_key = 1 + f;
			sw_tm_nic_wqe(&n, &prof, &w, 0, &t[f][i]);
		}
	first_end = t[0][31].cqe_ps;
	for (f = 0; f < 2; f++) {
		for (i = 0; i < 32; i++) {
			(void)sw_tm_nic_delay(&n, &t[f][i]);
			/* each flow's completions stay in order */
			if (i > 0)
				CU_ASSERT(t[f][i].cqe_ps > t[f][i - 1].cqe_ps);
		}
		end[f] = t[f][31].cqe_ps;
		x[f] = 32.0 * 65536 / (double)end[f];
	}
	jain = (x[0] + x[1]) * (x[0] + x[1]) / (2 * (x[0] * x[0] + x[1] * x[1]));
	printf("\n    fair (%s, modelled): QP 1 done at %.1f us, %.1f Gb/s; QP 2 at %.1f us, "
	       "%.1f Gb/s; Jain %.3f (in arrival order QP 1 at %.1f us)\n", prof.name,
	       (double)end[0] / 1e6, x[0] * 8000, (double)end[1] / 1e6, x[1] * 8000, jain,
	       (double)first_end / 1e6);
	CU_ASSERT(jain >= 0.99);
	/* in arrival order QP 1 would have had the port alone first */
	CU_ASSERT(end[0] > first_end + first_end / 2);
	/* the port is not over its rate: 64 messages' wire time at least */
	ser = sw_tm_link_ser_ps(sw_tm_link_wire_bytes(65536, prof.mtu, prof.pkt_hdr, prof.reth),
				prof.link_mbps);
	CU_ASSERT(end[0] >= 63 * ser && end[1] >= 64 * ser);
	/* moved on once: asking again changes nothing */
	CU_ASSERT_EQUAL(sw_tm_nic_delay(&n, &t[0][0]), 0);
}

/* The mouse behind the elephant: an 8-byte inline WRITE on QP 2 rung while
 * QP 1's 1 MiB WRITE is on the wire waits for about one of its packets,
 * not the megabyte. */
static void
test_mouse(void)
{
	static struct sw_tm_nic n;
	struct sw_tm_wqe el = {
		.op = SW_TM_WRITE, .len = 1 << 20, .wqe_bytes = 64, .bf = true, .signaled = true,
		.qp_key = 1,
	};
	struct sw_tm_wqe mo = {
		.op = SW_TM_WRITE, .len = 8, .wqe_bytes = 64, .inl = true, .bf = true,
		.signaled = true, .qp_key = 2,
	};
	struct sw_tm_times te, tm, alone;
	uint64_t at, pkt, d;

	sw_tm_nic_init(&n, &prof);
	sw_tm_nic_wqe(&n, &prof, &mo, 0, &alone);
	sw_tm_nic_init(&n, &prof);
	sw_tm_nic_wqe(&n, &prof, &el, 0, &te);
	at = te.wire_ps / 2;
	/* one of its packets: the link's or the PCIe read's pace */
	pkt = sw_tm_link_ser_ps(prof.mtu + prof.pkt_hdr + prof.reth, prof.link_mbps);
	if (sw_tm_pcie_xfer_ps(&prof, prof.mtu, prof.mrrs) > pkt)
		pkt = sw_tm_pcie_xfer_ps(&prof, prof.mtu, prof.mrrs);
	sw_tm_nic_wqe(&n, &prof, &mo, at, &tm);
	CU_ASSERT(tm.cqe_ps <= alone.cqe_ps + at + 2 * pkt);
	CU_ASSERT(tm.cqe_ps < te.wire_ps);
	/* on a fresh NIC at the same time, its own time */
	sw_tm_nic_init(&n, &prof);
	sw_tm_nic_wqe(&n, &prof, &mo, at, &alone);
	printf("\n    mouse (%s, modelled): rung to CQE %.2f us behind 1 MiB, %.2f us alone; "
	       "the megabyte's last bit %.2f us after the mouse was rung\n", prof.name,
	       (double)(tm.cqe_ps - at) / 1e6, (double)(alone.cqe_ps - at) / 1e6,
	       (double)(te.wire_ps - at) / 1e6);
	CU_ASSERT(tm.cqe_ps <= alone.cqe_ps + 2 * pkt);
	CU_ASSERT(tm.cqe_ps >= alone.cqe_ps);
	/* and the elephant is moved on by the mouse's packet, no more */
	sw_tm_nic_init(&n, &prof);
	sw_tm_nic_wqe(&n, &prof, &el, 0, &te);
	sw_tm_nic_wqe(&n, &prof, &mo, at, &tm);
	d = sw_tm_nic_delay(&n, &te);
	CU_ASSERT(d > 0);
	CU_ASSERT(d <= sw_tm_link_ser_ps(8 + prof.pkt_hdr + prof.reth, prof.link_mbps) + 1);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "link", test_link },
		{ "port", test_port },
		{ "round_robin", test_round_robin },
		{ "arbiter", test_arbiter },
		{ "pcie", test_pcie },
		{ "cache_lru", test_cache_lru },
		{ "atomic_unit", test_atomic_unit },
		{ "profile", test_profile },
		{ "nic_wqe", test_nic_wqe },
		{ "fair", test_fair },
		{ "mouse", test_mouse },
		{ NULL, NULL },
	};

	return rdx_ut_run("tm", cases, suite_init, suite_fini);
}
