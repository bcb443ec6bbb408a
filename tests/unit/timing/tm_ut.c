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
	uint64_t free_ps = 0;

	/* idle: starts when ready; busy: queues behind */
	CU_ASSERT_EQUAL(sw_tm_port_send(&free_ps, 100, 50), 150);
	CU_ASSERT_EQUAL(sw_tm_port_send(&free_ps, 120, 50), 200);
	CU_ASSERT_EQUAL(sw_tm_port_send(&free_ps, 1000, 10), 1010);
	CU_ASSERT_EQUAL(free_ps, 1010);
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

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "link", test_link },
		{ "port", test_port },
		{ "round_robin", test_round_robin },
		{ "pcie", test_pcie },
		{ "cache_lru", test_cache_lru },
		{ "atomic_unit", test_atomic_unit },
		{ "profile", test_profile },
		{ "nic_wqe", test_nic_wqe },
		{ NULL, NULL },
	};

	return rdx_ut_run("tm", cases, suite_init, suite_fini);
}
