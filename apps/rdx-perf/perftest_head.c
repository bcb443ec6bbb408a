/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's parameter block and address lines, for the perftest form
 * (rdx-perf ib_write_bw ...): the lines a perftest script reads before the
 * first result, with rdx-perf's values. The layout follows what perftest
 * prints (its ctx_print_test_info and ctx_print_pingpong_data): a dashed
 * frame, "key : value" lines, then one "local address:" line per QP and one
 * "remote address:" line per QP. The values are rdx's: the QP numbers,
 * PSNs, keys and addresses of the endpoints as connected; on the software
 * device, whose link is Ethernet-like, the LID is 0 as on RoCE and there is
 * no GID table, so no GID line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "perf_app.h"
#include "perf_wire.h"

#define PT_LINE "---------------------------------------------------------------------------------------\n"

/* perftest's verb names by rdx's operation */
static const char *
pt_verb(enum rdx_op op)
{
	switch (op) {
	case RDX_OP_SEND: return "Send";
	case RDX_OP_SEND_IMM: return "Send_imm";
	case RDX_OP_WRITE: return "RDMA_Write";
	case RDX_OP_WRITE_IMM: return "RDMA_Write_imm";
	case RDX_OP_READ: return "RDMA_Read";
	case RDX_OP_CAS: return "Atomic CMP_AND_SWAP";
	case RDX_OP_FAA: return "Atomic FETCH_AND_ADD";
	default: return "Unknown";
	}
}

static bool
pt_has_recv(enum rdx_op op)
{
	return op == RDX_OP_SEND || op == RDX_OP_SEND_IMM || op == RDX_OP_WRITE_IMM;
}

static const char *
pt_link(uint8_t ll)
{
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
		ll == IBV_LINK_LAYER_INFINIBAND || ll == IBV_LINK_LAYER_UNSPECIFIED ? "IB" : "Unknown";
}

static unsigned int
pt_mtu_bytes(unsigned int ib_mtu)
{
	return ib_mtu >= IBV_MTU_256 && ib_mtu <= IBV_MTU_4096 ? 128u << ib_mtu : 0;
}

/* One address line: perftest's fields, RKey/VAddr for READ and WRITE only
 * (as perftest), OUT for READ, a GID line when the QP has a GID. */
static void
pt_addr(const struct perf_app *a, const char *side, uint32_t lid, uint32_t qpn, uint32_t psn,
	uint32_t rkey, uint64_t vaddr, const uint8_t *gid, bool has_gid)
{
	enum rdx_op op = a->eng->op;
	unsigned int i;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", side, lid, qpn, psn);
	if (op == RDX_OP_READ)
		printf(" OUT %#04x", PERF_PT_OUT_READS);
	if (op == RDX_OP_READ || op == RDX_OP_WRITE)
		printf(" RKey %#08x VAddr %#016" PRIx64, rkey, vaddr);
	putchar('\n');
	if (!has_gid)
		return;
	/* perftest prints each GID byte in decimal, two digits */
	printf(" GID: ");
	for (i = 0; i < 16; i++)
		printf("%02d%s", gid[i], i < 15 ? ":" : "\n");
}

static bool
gid_set(const uint8_t *g)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (g[i] != 0)
			return true;
	return false;
}

static const char *
pt_sweep_str(uint32_t lo, uint32_t hi, uint32_t f, char *buf, size_t len)
{
	if (f != 0)
		snprintf(buf, len, "%u-%u*%u", lo, hi, f);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
	return buf;
}

/* --tx-depth-sweep's last step (the largest -t at most its B) */
static uint32_t
pt_tsweep_last(const struct perf_opts *o)
{
	uint32_t t = o->tsweep_lo;

	while (perf_tsweep_next(o, t) <= o->tsweep_hi)
		t = perf_tsweep_next(o, t);
	return t;
}

/* "Number of qps": the run's QPs; a sweep's range of the steps' totals,
 * from the first step to the last (--qp-sweep: QPs per lcore times the
 * lcores; --lcore-sweep: the lcores of a step times -q) */
static const char *
pt_qps(const struct perf_app *a, char *buf, size_t len)
{
	const struct perf_opts *o = &a->o;
	char sw[48];
	uint32_t k;

	if (a->client && o->sweep_hi != o->sweep_lo) {
		snprintf(buf, len, "%u..%u (swept: --qp-sweep %s)", o->sweep_lo * a->nb_lcores,
			 perf_sweep_last(o) * a->nb_lcores,
			 pt_sweep_str(o->sweep_lo, o->sweep_hi, o->sweep_factor, sw, sizeof(sw)));
	} else if (a->client && o->lsweep_lo != 0) {
		for (k = o->lsweep_lo; perf_lsweep_next(o, k) <= o->lsweep_hi;)
			k = perf_lsweep_next(o, k);
		snprintf(buf, len, "%u..%u (swept: --lcore-sweep %s, %u per lcore)",
			 o->lsweep_lo * o->sweep_lo, k * o->sweep_lo,
			 pt_sweep_str(o->lsweep_lo, o->lsweep_hi, o->lsweep_factor, sw, sizeof(sw)),
			 o->sweep_lo);
	} else {
		snprintf(buf, len, "%u", a->total_qps);
	}
	return buf;
}

void
perf_perftest_head(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	const struct rdx_dev_attr *at = a->attr;
	enum rdx_op op = a->eng->op;
	const struct perf_ep *mine = a->client ? a->cli : a->srv;
	bool lat = o->mode == PERF_MODE_LAT, two = perf_bidir_procs(a) || o->bidir;
	unsigned int i, mtu = pt_mtu_bytes(a->ib_mtu != 0 ? a->ib_mtu : at->active_mtu);
	char qps[96], sw[48];

	/* once, in the perftest form, with the table (not --output, MPI) */
	if (a->pt_head_printed || !o->perftest_form || o->output != PERF_OUTPUT_TABLE || a->mpi != NULL)
		return;
	a->pt_head_printed = true;
	printf(PT_LINE);
	printf("                    %s %s%s%sTest\n", pt_verb(op), !lat && two ? "Bidirectional " : "",
	       !lat && o->post_list > 1 ? "Post List " : "", lat ? "Latency " : "BW ");
	printf(" Dual-port       : OFF\t\tDevice         : %s\n", at->name);
	printf(" Number of qps   : %s\t\tTransport type : %s\n", pt_qps(a, qps, sizeof(qps)),
	       "IB");
	printf(" Connection type : %s\t\tUsing SRQ      : OFF\n",
	       o->transport == PERF_TRANSPORT_UD ? "UD" : "RC");
	printf(" PCIe relax order: Unsupported\t\tLock-free      : Unsupported\n");
	printf(" ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n");
	if ((a->client || two) && o->tsweep_lo != 0)
		printf(" TX depth        : %u..%u (swept: --tx-depth-sweep %s)\n", o->tsweep_lo,
		       pt_tsweep_last(o), pt_sweep_str(o->tsweep_lo, o->tsweep_hi, o->tsweep_factor,
						      sw, sizeof(sw)));
	else if (a->client || two)
		printf(" TX depth        : %u\n", a->window);
	if (o->post_list > 1)
		printf(" Post List       : %u\n", o->post_list);
	if (pt_has_recv(op) && (!a->client || two || a->responder))
		printf(" RX depth        : %u\n", o->rx_depth);
	if (!lat)
		printf(" CQ Moderation   : %u\n", o->sig_every);
	printf(" Mtu             : %u[B]\n", mtu);
	printf(" Link type       : %s\n", pt_link(at->link_layer));
	if (o->gid_index >= 0)
		printf(" GID index       : %d\n", o->gid_index);
	if (op != RDX_OP_READ && op != RDX_OP_CAS && op != RDX_OP_FAA)
		printf(" Max inline data : %u[B]\n", o->inline_max);
	else
		printf(" Outstand reads  : %u\n", PERF_PT_OUT_READS);
	printf(" rdma_cm QPs\t : %s\n", o->rdma_cm ? "ON" : "OFF");
	printf(" Data ex. method : %s\n", o->rdma_cm ? "rdma_cm" : "Ethernet");
	printf(PT_LINE);
	if (mine == NULL)
		return;
	for (i = 0; i < a->total_qps; i++) {
		const struct perf_ep *ep = &mine[i];
		const struct rdx_mem *t = ep->tbuf != NULL ? ep->tbuf : ep->buf;
		struct rdx_qp_info qi;

		memset(&qi, 0, sizeof(qi));
		if (ep->qp != NULL)
			rdx_qp_info_get(ep->qp, &qi);
		pt_addr(a, "local", qi.lid, qi.qp_num, qi.psn, t != NULL ? t->rkey : 0,
			t != NULL ? t->iova : 0, qi.gid, qi.gid_index >= 0 && gid_set(qi.gid));
	}
	for (i = 0; i < a->total_qps; i++) {
		const struct perf_ep *ep = &mine[i];

		pt_addr(a, "remote", ep->peer_id.lid, ep->peer_id.qpn, ep->peer_id.psn, ep->rkey,
			ep->raddr, ep->peer_id.gid, ep->peer_id.has_gid);
	}
	printf(PT_LINE);
}
